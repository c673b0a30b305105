"""Ingest's model calls: a model that fails leaves the work pending and says why."""

from __future__ import annotations

import json
import logging
import socket
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest

from knotwork.core import Core, open_core
from knotwork.ingest import modelcalls
from knotwork.ingest.modelcalls import ModelCalls
from tests.conftest import make_settings
from tests.fakes.http import JsonHandler, serve, shut
from tests.fakes.ollama import FakeOllama

DIM = 8
PEAK = [0]  # the most /api/embed requests the embed_server had in hand at once
Answer = Callable[[list[str]], Any]  # the texts asked → the "embeddings" the server gives


@pytest.fixture
def silent_server() -> Iterator[str]:
    """A loopback port that accepts connections and never answers: every call times out, and
    httpx's ReadTimeout carries no text of its own."""
    listener = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except TimeoutError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    listener.close()


async def test_an_embedding_failure_names_its_cause_even_when_the_error_has_no_text(
    silent_server: str, caplog: pytest.LogCaptureFixture
) -> None:
    settings = make_settings(
        ollama_base_url=silent_server, ollama_timeout_s=0.2, neo4j_password="unused"
    )
    caplog.set_level(logging.WARNING, logger="knotwork.ingest.modelcalls")
    async with open_core(settings) as core:
        calls = ModelCalls(core, "v", extract_enabled=False, embed_enabled=True, model_tag="m")
        assert await calls.embed(["a chunk"]) is None  # pending, not raised
    [record] = [r for r in caplog.records if "embedding failed" in r.getMessage()]
    assert "ReadTimeout" in record.getMessage()  # not a message ending in ": "


@pytest.fixture
def embed_server() -> Iterator[list[Answer]]:
    """A loopback server speaking Ollama's /api/embed whose answer the test sets: the shape
    of a misbehaving model or proxy, which the fake Ollama's hashing embedder never gives."""
    answer: list[Answer] = [lambda texts: [[1.0] * DIM for _ in texts]]
    lock, in_flight = threading.Lock(), [0]

    class Handler(JsonHandler):
        def do_POST(self) -> None:
            with lock:
                in_flight[0] += 1
                PEAK[0] = max(PEAK[0], in_flight[0])
            time.sleep(0.02)  # long enough for calls sent together to overlap
            with lock:
                in_flight[0] -= 1
            texts = self._body().get("input", [])
            embeddings = answer[0](texts if isinstance(texts, list) else [texts])
            payload = {"model": "nomic-embed-text:latest", "embeddings": embeddings}
            self._send(200, json.dumps(payload).encode())  # NaN written as JSON's NaN

    server = serve(Handler, "embed-server")
    host, port = server.server_address[:2]
    answer.append(f"http://{host!s}:{port}")  # type: ignore[arg-type]
    yield answer
    shut(server)


@pytest.fixture
async def embed_core(embed_server: list[Any]) -> AsyncIterator[Core]:
    settings = make_settings(
        ollama_base_url=embed_server[1],
        embed_dimension=DIM,
        embed_batch_size=2,
        neo4j_password="unused",
    )
    async with open_core(settings) as core:
        yield core


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        (lambda texts: [[1.0] * DIM for _ in texts[1:]], "returned 1 vector for 3 texts"),
        (lambda texts: [[1.0] * (DIM + 1) for _ in texts], "a vector of size 9"),
        (lambda texts: [[float("nan")] * DIM for _ in texts], "NaN or infinity"),
        (lambda texts: [[1.0] * (DIM - 1) + [float("inf")] for _ in texts], "NaN or infinity"),
        (lambda texts: [[0.0] * DIM for _ in texts], "a zero vector"),
    ],
)
async def test_garbage_vectors_leave_the_chunks_pending_and_say_why(
    embed_server: list[Any],
    embed_core: Core,
    answer: Answer,
    problem: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Never stored: a short answer would crash the pairing of chunks and vectors (a whole
    sync stopped), NaN fails the note's write in Neo4j, and a zero vector would be recorded
    as embedded while the cosine index leaves it out."""
    caplog.set_level(logging.WARNING, logger="knotwork.ingest.modelcalls")
    embed_server[0] = answer
    calls = ModelCalls(embed_core, "v", extract_enabled=False, embed_enabled=True, model_tag="m")
    assert await calls.embed(["one", "two", "three"]) is None
    assert any(problem in r.getMessage() for r in caplog.records), caplog.text
    embed_server[0] = lambda texts: [[0.5] * DIM for _ in texts]  # a sound answer is kept
    assert await calls.embed(["one"]) == [[0.5] * DIM]


async def test_a_large_call_is_asked_a_few_batches_at_a_time(
    embed_server: list[Any], embed_core: Core
) -> None:
    """A note of a megabyte is a thousand chunks: sent in one call, the client would ask for
    all their batches at once, and a CPU model times out on the last ones."""
    PEAK[0] = 0
    calls = ModelCalls(embed_core, "v", extract_enabled=False, embed_enabled=True, model_tag="m")
    texts = [f"chunk {i}" for i in range(40)]  # 20 batches of 2
    vectors = await calls.embed(texts)
    assert vectors is not None and len(vectors) == len(texts)
    assert 1 <= PEAK[0] <= modelcalls.EMBED_SLICE_BATCHES


async def test_an_embedding_model_that_stays_down_is_said_once_and_its_return_once(
    fake_ollama: FakeOllama,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Each period's pass of a watcher or a server asks the model again once its back-off is
    over: while it stays down that is one warning (what waits, why), not one a pass, and one
    line when it answers again. A one-shot command's run still says it."""
    monkeypatch.setattr(modelcalls, "MODEL_BACKOFF_S", 0.0)  # every pass asks it again
    settings = make_settings(ollama_base_url=fake_ollama.base_url, neo4j_password="unused")
    caplog.set_level(logging.DEBUG, logger="knotwork")
    async with open_core(settings) as core:
        calls = ModelCalls(core, "v", extract_enabled=False, embed_enabled=True, model_tag="m")
        fake_ollama.down = True  # every request answered 503
        for _ in range(2):  # two periods' passes meet the model down
            assert await calls.embed(["a chunk"]) is None
        asked = len(fake_ollama.calls_to("/api/embed"))
        assert asked >= 2, asked  # both passes asked the model: it was not merely let be
        warned = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
        assert len(warned) == 1, warned
        assert warned[0].startswith("the embedding model unavailable (embedding failed: ")
        assert "503" in warned[0] and "stay pending" in warned[0], warned[0]
        # Another writer of the vault in this process (a server's next note write) meets the
        # same trouble; a one-shot `knotwork ingest` or `retry` is a process of its own (its
        # own core): it says it too.
        write = ModelCalls(core, "v", extract_enabled=False, embed_enabled=True, model_tag="m")
        assert await write.embed(["a chunk"]) is None
        assert len([r for r in caplog.records if r.levelno >= logging.WARNING]) == 1
        async with open_core(settings) as own:
            run = ModelCalls(own, "v", extract_enabled=False, embed_enabled=True, model_tag="m")
            assert await run.embed(["a chunk"]) is None
        assert len([r for r in caplog.records if r.levelno >= logging.WARNING]) == 2
        fake_ollama.down = False
        for _ in range(2):  # the model answers again: said by the first pass only
            assert await calls.embed(["a chunk"]) is not None
    back = [r.getMessage() for r in caplog.records if "reachable again" in r.getMessage()]
    assert len(back) == 1 and back[0].startswith("the embedding model reachable again"), back
    assert len([r for r in caplog.records if r.levelno >= logging.WARNING]) == 2


async def test_the_back_off_is_the_vaults_for_every_writer_in_the_process(
    fake_ollama: FakeOllama,
) -> None:
    """A server's next write (model calls of its own) waits out the back-off the last one
    began, rather than ask the model again and wait for its time-out; another vault's writer
    does not, and an explicit retry's ``ask_again`` asks at once, for every writer."""
    settings = make_settings(ollama_base_url=fake_ollama.base_url, neo4j_password="unused")
    async with open_core(settings) as core:

        def writer(vault: str) -> ModelCalls:
            return ModelCalls(core, vault, extract_enabled=False, embed_enabled=True, model_tag="m")

        def asked() -> int:
            return len(fake_ollama.calls_to("/api/embed"))

        fake_ollama.down = True
        first = writer("v")
        assert await first.embed(["a chunk"]) is None
        before = asked()
        assert before >= 1
        later = writer("v")
        assert later.embed_down and later.down and not later.chat_down
        assert await later.embed(["a chunk"]) is None
        assert asked() == before  # let be: not asked
        assert await writer("w").embed(["a chunk"]) is None
        assert asked() > before  # another vault's writer asks
        before = asked()
        later.ask_again()
        assert not first.embed_down
        assert await first.embed(["a chunk"]) is None
        assert asked() > before
