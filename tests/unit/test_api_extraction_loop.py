"""The API's background extraction loop (serving/extraction.py), no Neo4j: a server left stale
by a ``knotwork reembed`` says so once, with what to do, rather than every period; while
another writer holds the vault's lease the periods read the lease, not the pending count, and
look again once it is given back."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from types import SimpleNamespace
from typing import Any

import pytest

from knotwork.errors import GraphQueryError, LeaseHeldError, ManifestMismatchError
from knotwork.ingest import owed as owing
from knotwork.ingest.owed import Owed
from knotwork.llm.embed_trouble import EmbedTrouble
from knotwork.serving import extraction as api_extraction
from knotwork.serving.extraction import Extraction

PERIOD_S = 0.01
PERIODS = 30


def _stale() -> ManifestMismatchError:
    return ManifestMismatchError("all-minilm", 384, "nomic-embed-text", 768, changed=True)


class Vault:
    """What the loop reads and takes, counted: the pending count, the lease, the passes."""

    def __init__(self) -> None:
        self.counts = self.passes = self.lease_reads = 0
        self.pending = 3
        self.holder: str | None = None  # another writer's holder id, while it holds the lease
        self.refusal: Exception | None = None  # what every pass meets

    async def owed(self, models: Any) -> Owed:  # a period's count of the pending chunks
        self.counts += 1
        return await self.left()

    async def left(self) -> Owed:  # what a run of passes logs it left, not counted
        return Owed(extractions=self.pending, chunks=self.pending)

    async def lease_status(self, store: Any, vault: str) -> dict[str, Any] | None:
        self.lease_reads += 1
        return None if self.holder is None else {"holder": self.holder, "live": True}

    @contextlib.asynccontextmanager
    async def model_pass(self) -> AsyncIterator[None]:
        if self.holder is not None:
            raise LeaseHeldError(f"vault 'v' is being written by {self.holder}")
        yield

    async def pending_work(self, ingestor: Any, limit: int, *, progress: Any, said: Any) -> int:
        self.passes += 1
        if self.refusal is not None:
            raise self.refusal
        done, self.pending = self.pending, 0
        return done

    async def check_manifest(self) -> None:
        if isinstance(self.refusal, ManifestMismatchError):
            raise self.refusal


@pytest.fixture
def vault(monkeypatch: pytest.MonkeyPatch) -> Vault:
    fake = Vault()
    monkeypatch.setattr(owing, "owed", fake.owed)
    monkeypatch.setattr(api_extraction, "lease_status", fake.lease_status)
    monkeypatch.setattr(api_extraction, "pending_work", fake.pending_work)
    monkeypatch.setattr(api_extraction, "PASS_GAP_S", 0.0)
    return fake


def _extraction(vault: Vault) -> Extraction:
    core = SimpleNamespace(store=None, check_manifest=vault.check_manifest)
    writers: Any = SimpleNamespace(
        core=core, vault="v", holder="api", syncing=False, model_pass=vault.model_pass
    )
    work = Extraction(writers)
    work._work._left = vault.left  # a run's own count is no period's
    models = SimpleNamespace(trouble=EmbedTrouble())  # the embedding model's, read as it counts
    work._ingestor = SimpleNamespace(models=models)  # type: ignore[assignment]
    work.every_s = PERIOD_S
    return work


@contextlib.asynccontextmanager
async def _running(work: Extraction) -> AsyncIterator[None]:
    """The loop running for the block, stopped after it."""
    task = asyncio.create_task(work.forever())
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def _periods(n: int = PERIODS) -> None:
    await asyncio.sleep(PERIOD_S * n)


def _warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]


async def test_a_stale_server_says_so_once_with_what_to_do(
    vault: Vault, caplog: pytest.LogCaptureFixture
) -> None:
    vault.refusal = _stale()
    work = _extraction(vault)
    with caplog.at_level(logging.DEBUG, logger=api_extraction.__name__):
        async with _running(work):
            await _periods()
    said = _warnings(caplog)
    assert len(said) == 1, said
    assert said[0].startswith("pending model work stopped") and "Restart it" in said[0]
    assert vault.passes == 1 and vault.counts == 1  # the manifest alone is read after
    assert work.stale is not None


async def test_a_graph_re_embedded_back_resumes_the_work(
    vault: Vault, caplog: pytest.LogCaptureFixture
) -> None:
    vault.refusal = _stale()
    work = _extraction(vault)
    with caplog.at_level(logging.INFO, logger=api_extraction.__name__):
        async with _running(work):
            await _periods(5)
            vault.refusal = None  # the graph names this server's model again
            await _periods(5)
    assert work.stale is None and vault.pending == 0  # the chunks done
    assert any("matches this server's again" in r.getMessage() for r in caplog.records)


async def test_another_failure_that_stands_is_said_once(
    vault: Vault, caplog: pytest.LogCaptureFixture
) -> None:
    vault.refusal = failure = GraphQueryError("Neo4j refused the chunks' query")
    work = _extraction(vault)
    with caplog.at_level(logging.DEBUG, logger=api_extraction.__name__):
        async with _running(work):
            await _periods()
    assert vault.passes > 3  # tried again every period, as the failure may pass …
    said = _warnings(caplog)
    assert said == [f"pending model work not finished yet: {failure}"]  # … said once


async def test_while_another_writer_holds_the_lease_the_pending_count_is_not_read(
    vault: Vault,
) -> None:
    vault.holder = "watcher"
    work = _extraction(vault)
    async with _running(work):
        await _periods()
        assert vault.counts == 1 and vault.passes == 0  # the pass met the watcher's lease …
        assert vault.lease_reads > 3  # … and the periods since read the lease only
        vault.holder = None  # given back: the next period looks, and does the chunks
        await _periods(5)
    assert vault.counts >= 2 and vault.pending == 0


async def test_a_pass_asked_for_looks_again_at_once(vault: Vault) -> None:
    vault.holder = "watcher"
    work = _extraction(vault)
    work.every_s = 60.0  # no period comes during the test but the first
    async with _running(work):
        await _periods(5)
        assert vault.counts == 1 and vault.passes == 0
        vault.holder = None
        reads = vault.lease_reads
        work.wanted()  # a direct write of this process left chunks pending: it held the lease
        await _periods(5)
    assert vault.pending == 0 and vault.lease_reads == reads
