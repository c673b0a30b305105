"""A client that stops reading a streamed answer (api/send_timeout.py), at the ASGI level with
the real app and no server: after the send timeout the request ends, the stream's generator is
closed and its work slot given back, and the connection is reset; a client that reads gets
the whole answer."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

import knotwork.answer.respond as respond
from knotwork.api import create_app
from knotwork.api.send_timeout import SendTimeout
from knotwork.errors import ServerBusyError
from knotwork.limits import WorkLimiter
from tests.conftest import make_settings

BODY = json.dumps({"question": "What does Ann do?", "stream": True}).encode()
SCOPE: dict[str, Any] = {
    "type": "http",
    "asgi": {"version": "3.0", "spec_version": "2.3"},
    "http_version": "1.1",
    "method": "POST",
    "path": "/query",
    "raw_path": b"/query",
    "query_string": b"",
    "root_path": "",
    "scheme": "http",
    "server": ("testserver", 80),
    "client": ("127.0.0.1", 50000),
    "headers": [
        (b"host", b"testserver"),
        (b"content-type", b"application/json"),
        (b"content-length", str(len(BODY)).encode()),
    ],
}


class Transport:
    """What uvicorn's request cycle holds: the middleware resets the connection through it."""

    aborted = False

    def get_extra_info(self, name: str) -> None:
        return None

    def abort(self) -> None:
        self.aborted = True


class Client:
    """uvicorn's cycle as the app sees it: ``send`` a bound method of it, the way the
    middleware finds the transport. A stalled client's body sends wait as uvicorn's do on a
    full socket buffer; its connection stays open (no disconnect ever arrives)."""

    def __init__(self, *, reads: bool) -> None:
        self.reads, self.transport, self.body = reads, Transport(), b""
        self._asked = False

    async def send(self, message: dict[str, Any]) -> None:
        if message["type"] == "http.response.body":
            if not self.reads:
                await asyncio.Event().wait()
            self.body += message.get("body", b"")

    async def receive(self) -> dict[str, Any]:
        if not self._asked:
            self._asked = True
            return {"type": "http.request", "body": BODY, "more_body": False}
        await asyncio.Event().wait()
        raise AssertionError("unreachable")


@pytest.fixture
def closed(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """The model's stream faked (the route's first event, then tokens); records its close."""
    closed: list[bool] = []

    async def answer_stream(core: Any, question: str, **_: Any) -> AsyncIterator[Any]:
        try:
            for i in range(200):
                yield respond.TokenEvent(f"token {i} ")
                await asyncio.sleep(0)
        finally:
            closed.append(True)

    monkeypatch.setattr(respond, "answer_stream", answer_stream)
    return closed


def _run(client: Client, closed: list[bool], timeout_s: float) -> tuple[bool, bool, bool]:
    """Serve one streamed question to ``client`` with one work slot: whether the request ended
    (a stalled client keeps one that nothing cuts off open for good; the bound is generous, a
    busy machine streams slowly), and then, in the same event loop (whose end closes every
    generator left), whether the model's stream was closed and the slot free."""
    settings = make_settings(api_allowed_hosts=["testserver"], api_send_timeout_s=timeout_s)
    app = create_app(settings)
    app.state.limiter = limiter = WorkLimiter(1, 0)
    app.state.core = type("Core", (), {"settings": settings})()
    served = SendTimeout(app, timeout_s)

    async def slot_free() -> bool:
        try:
            async with limiter.slot():
                return True
        except ServerBusyError:  # the one slot still held
            return False

    async def serve() -> tuple[bool, bool, bool]:
        task = asyncio.create_task(served(SCOPE, client.receive, client.send))
        done, _ = await asyncio.wait({task}, timeout=30.0)
        state = (bool(done), closed == [True], await slot_free())
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        return state

    return asyncio.run(serve())


def test_a_client_that_stops_reading_is_cut_off_and_its_slot_given_back(
    closed: list[bool], caplog: pytest.LogCaptureFixture
) -> None:
    client = Client(reads=False)
    ended, stream_closed, slot_free = _run(client, closed, timeout_s=0.1)
    assert ended, "the request ended at the send timeout, not when the client left"
    assert stream_closed, "the model's stream was closed at once, not by the collector"
    assert slot_free, "the work slot was given back"
    assert client.transport.aborted, "the connection was reset, not left to drain"
    assert "the client read nothing for 0.1 s" in caplog.text


def test_a_client_that_reads_gets_the_whole_stream(closed: list[bool]) -> None:
    client = Client(reads=True)
    assert _run(client, closed, timeout_s=0.1) == (True, True, True)
    assert not client.transport.aborted
    tokens = [
        json.loads(line.removeprefix("data: "))["text"]
        for line in client.body.decode().splitlines()
        if line.startswith("data: ")
    ]
    assert tokens == [f"token {i} " for i in range(200)]
