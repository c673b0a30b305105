"""The in-process embedder's worker process: the same vectors as the model in this process, its
frames, a death restarted once and otherwise reported with its cause, and no child left behind."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from knotwork.core import open_core
from knotwork.errors import ConfigError, ModelUnavailableError
from knotwork.llm.clients import USE_DIMENSION, USE_MODEL, build_embedder
from knotwork.llm.embed_process import (
    BATCH_TEXTS,
    PER_TEXT_S,
    REQUEST_TIMEOUT_S,
    EncoderProcess,
    worker_env,
)
from knotwork.llm.embed_use import UseEmbedding
from knotwork.llm.embed_worker import pack_texts, read_frame, unpack_texts, write_frame
from knotwork.llm.encoders import EncoderSpec
from knotwork.settings import Settings
from tests.conftest import make_settings

TEXTS = [
    "Alice and Bob are working together on the knowledge graph project.",
    "Grüne Pflanzen wandeln Kohlendioxid und Wasser in Zucker um. 🌱",
    "",
    "a line\nand a NUL \x00 between",
    "Il teorema di de l'Hôpital " * 200,
]


def use_settings(**overrides: object) -> Settings:
    defaults: dict[str, object] = {
        "embed_provider": "use-multilingual",
        "embed_model": USE_MODEL,
        "embed_dimension": USE_DIMENSION,
        "embed_batch_size": 2,
    }
    return make_settings(**(defaults | overrides))


@pytest.fixture(scope="module")
def in_worker() -> Iterator[UseEmbedding]:
    embedder = build_embedder(use_settings())  # the default: a worker process
    assert isinstance(embedder, UseEmbedding)
    yield embedder
    embedder.close()


@pytest.fixture(scope="module")
def in_thread() -> UseEmbedding:
    embedder = build_embedder(use_settings(embed_worker="thread"))
    assert isinstance(embedder, UseEmbedding)
    return embedder


def gone(pid: int) -> bool:
    """No process ``pid`` at all, not even a zombie waiting to be reaped."""
    return not Path(f"/proc/{pid}").exists()


def test_texts_and_frames_round_trip() -> None:
    texts = [*TEXTS, "\ud800 a lone surrogate"]
    assert unpack_texts(pack_texts(texts)) == texts
    assert unpack_texts(pack_texts([])) == []
    stream = io.BytesIO()
    write_frame(stream, b"ab", b"c")
    write_frame(stream, b"")
    stream.seek(0)
    assert [read_frame(stream), read_frame(stream), read_frame(stream)] == [b"abc", b"", None]
    with pytest.raises(EOFError, match="after 1 of a frame's 3 bytes"):
        read_frame(io.BytesIO(stream.getvalue()[:5]))
    with pytest.raises(EOFError, match="inside a frame's length"):
        read_frame(io.BytesIO(stream.getvalue()[:2]))


async def test_the_worker_gives_the_vectors_of_the_model_in_this_process(
    in_worker: UseEmbedding, in_thread: UseEmbedding
) -> None:
    assert in_worker.worker_pid is not None and in_thread.worker_pid is None
    assert in_worker.dimension == in_thread.dimension == USE_DIMENSION
    # Five texts in batches of two: three requests, sent concurrently by LlamaIndex.
    from_worker = np.array(await in_worker.aget_text_embedding_batch(TEXTS), dtype=np.float32)
    here = np.array(in_thread.get_text_embedding_batch(TEXTS), dtype=np.float32)
    assert from_worker.shape == (len(TEXTS), USE_DIMENSION)
    np.testing.assert_allclose(from_worker, here, rtol=0, atol=1e-6)
    query = await in_worker.aget_query_embedding(TEXTS[1])
    np.testing.assert_allclose(query, here[1], rtol=0, atol=1e-6)
    assert await in_worker.aget_text_embedding_batch([]) == []


def test_a_killed_worker_is_restarted_and_answers_the_same(in_worker: UseEmbedding) -> None:
    before = in_worker.get_text_embedding(TEXTS[0])
    pid = in_worker.worker_pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    after = in_worker.get_text_embedding(TEXTS[0])  # the request that finds it dead restarts it
    assert in_worker.worker_pid not in (None, pid)
    assert after == pytest.approx(before, abs=1e-6)
    assert gone(pid)  # the dead one was reaped


def test_a_worker_that_dies_again_after_its_restart_is_reported_with_its_stderr(
    tmp_path: Path,
) -> None:
    starts = tmp_path / "starts"
    process = EncoderProcess(EncoderSpec("use-multilingual", USE_MODEL))
    process.command = [
        sys.executable,
        "-c",
        f"open({str(starts)!r}, 'a').write('x'); import sys; "
        "sys.stderr.write('MemoryError: cannot allocate the weights\\n'); sys.exit(3)",
    ]
    with pytest.raises(ModelUnavailableError) as caught:
        process.encode(["a text"])
    message = str(caught.value)
    assert "died" in message and "again after a restart" in message
    assert "exit status 3" in message
    assert "MemoryError: cannot allocate the weights" in message
    assert starts.read_text() == "xx"  # started, restarted once, not more
    assert process.pid is None  # nothing left running


def test_a_model_the_settings_cannot_load_is_a_config_error_from_the_worker() -> None:
    # Without the local-embed extra the worker cannot import sentence-transformers; with it,
    # the folder is not a model. Either way the setting is at fault, not a model server.
    process = EncoderProcess(EncoderSpec("sentence-transformers", "/nonexistent/model"))
    with pytest.raises(ConfigError, match="sentence-transformers"):
        process.start()
    assert process.pid is None


def test_the_worker_is_not_told_knotworks_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KNOTWORK_NEO4J_PASSWORD", "secret-password")
    env = worker_env(threads=2)
    assert not any(name.startswith("KNOTWORK_") for name in env)
    assert env["OPENBLAS_NUM_THREADS"] == env["OMP_NUM_THREADS"] == "2"


async def test_closing_the_core_stops_the_worker_and_leaves_no_child() -> None:
    # No connection is made: the driver connects on its first query, and this makes none.
    async with open_core(use_settings(neo4j_password="unused")) as core:
        embedder = core.embedder
        assert isinstance(embedder, UseEmbedding)
        await embedder.aget_text_embedding_batch(TEXTS[:2])
        pid = embedder.worker_pid
        assert pid is not None and not gone(pid)
    assert embedder.worker_pid is None
    assert gone(pid)
    with pytest.raises(ModelUnavailableError, match="closed"):
        await embedder.aget_text_embedding_batch(TEXTS[:1])


def test_a_script_that_never_closes_its_embedder_leaves_no_worker_behind() -> None:
    script = (
        "from knotwork.llm.embed_use import UseEmbedding\n"
        "embedder = UseEmbedding()\n"
        "embedder.get_text_embedding('hello')\n"
        "print(embedder.worker_pid, flush=True)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        env=worker_env(threads=1),
        check=True,
    )
    pid = int(done.stdout.split()[-1])
    deadline = time.monotonic() + 5.0
    while not gone(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert gone(pid), Path(f"/proc/{pid}/status").read_text()[:200]


def test_a_worker_that_hangs_is_stopped_and_reported_and_the_next_request_starts_another() -> None:
    process = EncoderProcess(EncoderSpec("use-multilingual", USE_MODEL))
    try:
        before = process.encode([TEXTS[0]])
        pid = process.pid
        assert pid is not None
        os.kill(pid, signal.SIGSTOP)  # alive, holding its pipes, answering nothing
        process.request_timeout_s = 0.5
        with pytest.raises(ModelUnavailableError) as caught:
            process.encode([TEXTS[0]])
        message = str(caught.value)
        assert "still embedding a batch after 0.5 s" in message and "stopped" in message
        assert process.pid is None and gone(pid)  # killed and reaped, not left stopped
        process.request_timeout_s = 60.0
        after = process.encode([TEXTS[0]])  # a new worker
        assert process.pid not in (None, pid)
        np.testing.assert_allclose(after, before, rtol=0, atol=1e-6)
    finally:
        process.close()


def test_a_large_batch_has_longer_to_be_answered_than_a_small_one() -> None:
    """A batch size raised far above the default on a slow CPU is not a hung worker."""
    process = EncoderProcess(EncoderSpec("use-multilingual", USE_MODEL))  # not started
    assert process.answer_within(1) == process.answer_within(BATCH_TEXTS) == REQUEST_TIMEOUT_S
    assert process.answer_within(1024) == REQUEST_TIMEOUT_S + PER_TEXT_S * (1024 - BATCH_TEXTS)
    process.request_timeout_s = 0.5  # the floor, as the hung-worker test sets it
    assert process.answer_within(1) == 0.5
    assert process.pid is None


def test_a_worker_that_never_finishes_loading_is_reported() -> None:
    process = EncoderProcess(EncoderSpec("use-multilingual", USE_MODEL))
    process.command = [sys.executable, "-c", "import time; time.sleep(60)"]
    process.load_timeout_s = 0.5
    with pytest.raises(ModelUnavailableError, match=r"still loading its model after 0\.5 s"):
        process.start()
    assert process.pid is None
