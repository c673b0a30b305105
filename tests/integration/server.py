"""A real uvicorn server in a thread, for tests that need sockets: raw requests that a test
client would not send, concurrency, and a Neo4j behind a proxy that can be cut."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
from collections.abc import Callable, Iterator

import uvicorn
from fastapi import FastAPI


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextlib.contextmanager
def serving(app: FastAPI, port: int) -> Iterator[str]:
    """Serve ``app`` on 127.0.0.1:``port`` until the block ends; yields the base URL."""
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_config=None, lifespan="on")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 120
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the API server did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


class TcpProxy:
    """Forwards a local port to Neo4j's Bolt port; ``cut()`` drops every connection and
    refuses new ones, as a stopped server would, and ``restore()`` listens again. ``freeze()``
    keeps every connection open and accepts new ones but forwards no byte either way, as a
    frozen server (or a stalled network) would; ``thaw()`` forwards again. ``on_connect`` is
    called (in the proxy's thread) as each connection is accepted. ``replies_held_after``
    bytes of the server's replies are forwarded on each connection accepted while it is set,
    the rest never: 4 answers the Bolt handshake only, as a server alive but slow to log in."""

    def __init__(self, target_host: str, target_port: int) -> None:
        self.target = (target_host, target_port)
        self.port = free_port()
        self._loop = asyncio.new_event_loop()
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._flowing: asyncio.Event | None = None  # made in the proxy's loop
        self.on_connect: Callable[[], object] | None = None
        self.replies_held_after: int | None = None
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()

    def _call(self, coro: object) -> None:
        asyncio.run_coroutine_threadsafe(coro, self._loop).result(30)  # type: ignore[arg-type]

    async def _pipe(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        held_after: int | None = None,
    ) -> None:
        with contextlib.suppress(OSError, asyncio.CancelledError):
            while data := await reader.read(65536):
                if self._flowing is not None:
                    await self._flowing.wait()  # held while frozen
                if held_after is not None:
                    data, held_after = data[:held_after], max(0, held_after - len(data))
                writer.write(data)
                await writer.drain()
        writer.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.on_connect is not None:
            self.on_connect()
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.target)
        except OSError:
            writer.close()
            return
        self._writers |= {writer, up_writer}
        replies = self._pipe(up_reader, writer, self.replies_held_after)
        await asyncio.gather(self._pipe(reader, up_writer), replies)

    async def _flow(self, on: bool) -> None:
        if self._flowing is None:
            self._flowing = asyncio.Event()
        if on:
            self._flowing.set()
        else:
            self._flowing.clear()

    async def _start(self) -> None:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", self.port)

    async def _stop(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        for writer in list(self._writers):
            writer.transport.abort()
        self._writers.clear()

    def start(self) -> TcpProxy:
        self._call(self._start())
        return self

    def cut(self) -> None:
        self._call(self._stop())

    def restore(self) -> None:
        self._call(self._start())

    def freeze(self) -> None:
        self._call(self._flow(False))

    def thaw(self) -> None:
        self._call(self._flow(True))

    def close(self) -> None:
        self._call(self._stop())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
