"""`knotwork reembed` rewrites every vault's vectors in the database, so it holds them all: it
does not start while a writer of any vault holds its lease (naming each), and while it runs,
a writer of another vault is refused (told it is a re-embedding, and whose), and one whose
lease lapsed meanwhile stops at its next renewal rather than store the old model's vectors."""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from typer.testing import CliRunner

from knotwork.cli import app as cli
from knotwork.core import Core, open_core
from knotwork.errors import LeaseLostError, ReembedInterruptedError, ReembedRunningError
from knotwork.graph import schema
from knotwork.graph.lease import Lease
from knotwork.graph.reembed_lease import ReembedLease
from knotwork.ingest.journal import Journal
from knotwork.llm.clients import ModelClients
from knotwork.serving import extraction as api_extraction
from knotwork.serving.writers import VaultWriters
from knotwork.settings import Settings, get_settings
from tests.fakes.ollama import FakeOllama, hash_embedding
from tests.integration.conftest import ad_hoc, hold_vault, put

NEW_MODEL, NEW_SIZE = "all-minilm", 384


def _ingest_a(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Vault "a" of four notes, embedded with the old model; the CLI's vault is "a"."""
    monkeypatch.setenv("KNOTWORK_VAULT_NAME", "a")
    get_settings.cache_clear()
    for name in "ABCD":
        put(vault, f"{name}.md", f"# {name}\n\nNote {name} is about kites and gliders.\n")
    result = CliRunner().invoke(cli, ["ingest", str(vault), "--no-extract"])
    assert result.exit_code == 0, result.output


def _switch(monkeypatch: pytest.MonkeyPatch, fake_ollama: FakeOllama) -> None:
    fake_ollama.models[f"{NEW_MODEL}:latest"] = NEW_SIZE
    monkeypatch.setenv("KNOTWORK_EMBED_MODEL", NEW_MODEL)
    monkeypatch.setenv("KNOTWORK_EMBED_DIMENSION", str(NEW_SIZE))
    monkeypatch.setenv("KNOTWORK_EMBED_BATCH_SIZE", "1")
    get_settings.cache_clear()


def _vault_b() -> Settings:
    return get_settings().model_copy(update={"vault_name": "b"})


async def _graph(query: str) -> list[dict[str, Any]]:
    async with open_core(get_settings()) as core:
        return await ad_hoc(core, query, {}, write=False)


def test_reembed_does_not_start_while_another_vaults_writer_holds_its_lease(
    env: None, vault: Path, fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    _ingest_a(vault, monkeypatch)
    watcher = asyncio.run(hold_vault({"mode": "inotify", "watches": True}, _vault_b()))
    _switch(monkeypatch, fake_ollama)
    result = CliRunner().invoke(cli, ["reembed"])
    said = " ".join(result.output.split())
    assert result.exit_code == 1, said
    assert f"vault 'b': {watcher.holder} (host {watcher.host}, pid {watcher.pid}, mode inotify" in (
        said
    )
    assert "re-embeds every vault of this database" in said and "Stop them" in said, said
    # Refused before anything was dropped or marked: the graph is the old model's, whole.
    rows = asyncio.run(_graph("MATCH (c:Chunk) RETURN DISTINCT size(c.embedding) AS n"))
    assert [r["n"] for r in rows] == [768]
    [m] = asyncio.run(_graph("MATCH (m:Manifest) RETURN properties(m) AS m"))
    assert m["m"]["embed_model"] == "nomic-embed-text" and "reembedding_model" not in m["m"]

    async def give_back() -> None:
        async with open_core(_vault_b()) as core:
            await Lease(core.store, "b", 60, watcher.holder).release()

    asyncio.run(give_back())  # the watcher stopped: now it runs
    result = CliRunner().invoke(cli, ["reembed"])
    assert result.exit_code == 0, result.output


def test_a_running_reembed_refuses_other_vaults_writers_and_stops_a_lapsed_one(
    env: None, vault: Path, fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    _ingest_a(vault, monkeypatch)
    started, go = threading.Event(), threading.Event()

    def stalled(texts: list[str], dim: int) -> list[list[float]]:
        """The new model's first chunk waits: the re-embedding is under way meanwhile."""
        if any("kites" in t for t in texts):
            started.set()
            go.wait(60)
        return [hash_embedding(t, dim) for t in texts]

    async def lapsing() -> Lease:
        """Vault b's writer, paused past its lease's TTL before the re-embedding starts."""
        async with open_core(_vault_b()) as core:
            lease = Lease(core.store, "b", 1)
            await lease.acquire({"mode": "cli-ingest", "watches": False})
        await asyncio.sleep(1.5)
        return lease

    paused = asyncio.run(lapsing())
    _switch(monkeypatch, fake_ollama)
    fake_ollama.embed_script = stalled
    done: list[Result] = []
    run = threading.Thread(target=lambda: done.append(CliRunner().invoke(cli, ["reembed"])))
    run.start()
    try:
        assert started.wait(60), "the re-embedding never reached its first chunk"

        async def meanwhile() -> None:
            b = _vault_b()
            with pytest.raises(ReembedRunningError) as refused:
                await hold_vault({"mode": "inotify", "watches": True}, b)
            said = str(refused.value)
            assert "vault 'b' cannot be written now" in said, said
            assert "`knotwork reembed` is re-embedding every vault" in said, said
            assert "vault 'a'" not in said and "mode cli-reembed" in said, said
            async with open_core(b) as core:
                paused.store = core.store
                with pytest.raises(ReembedRunningError, match="This writer stopped"):
                    await paused.renew({"mode": "cli-ingest", "watches": False})
                # A reader is told it runs, not that it was interrupted.
                with pytest.raises(ReembedInterruptedError, match="is being re-embedded to"):
                    await schema.check_manifest(core.store, b)

        asyncio.run(meanwhile())
    finally:
        go.set()
        run.join(120)
    assert done and done[0].exit_code == 0, done and done[0].output
    # Done: vault b's writers take its lease again.
    asyncio.run(hold_vault({"mode": "cli-ingest", "watches": False}, _vault_b()))


def test_a_watcher_started_during_a_reembed_ends_saying_so(
    env: None, vault: Path, fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It does not wait for the lease, as it waits out an `ingest`: once the re-embedding is
    done the graph names a model it does not embed with."""
    _ingest_a(vault, monkeypatch)

    async def reembedding() -> ReembedLease:  # as `knotwork reembed` of vault "b" holds it
        async with open_core(_vault_b()) as core:
            guard = ReembedLease(core.store, 60, "reembedder")
            await guard.acquire({"mode": "cli-reembed", "watches": False})
            return guard

    asyncio.run(reembedding())
    try:  # a process of its own: the CLI's signal handlers want the main thread
        ran = subprocess.run(
            [sys.executable, "-m", "knotwork.cli", "watch", str(vault)],
            capture_output=True,
            text=True,
            timeout=90,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("the watcher waited for the re-embedding instead of ending")
    said = " ".join((ran.stdout + ran.stderr).split())
    assert ran.returncode == 1, said
    assert "vault 'a' cannot be written now: `knotwork reembed` is re-embedding" in said, said
    assert "reembedder (host" in said, said


STATUS = {"mode": "cli-reembed", "watches": False}


async def test_a_reembed_whose_lease_lapsed_is_not_renewed_and_is_told_so(core: Core) -> None:
    """A vault's lease that lapsed is renewed if no one took it; the re-embedding's is not, and
    its loss is said of the re-embedding, not as a vault that cannot be written."""
    first = ReembedLease(core.store, 1, "first")
    await first.acquire(STATUS)
    await asyncio.sleep(1.5)  # paused past its TTL (Ctrl-Z)
    with pytest.raises(LeaseLostError) as lapsed:
        await first.renew(STATUS)
    assert "lost its lease over every vault" in str(lapsed.value), lapsed.value
    assert "no one holds it now" in str(lapsed.value), lapsed.value
    await ReembedLease(core.store, 60, "second").acquire(STATUS)
    with pytest.raises(LeaseLostError) as taken:
        await first.renew(STATUS)
    said = str(taken.value)
    assert not isinstance(taken.value, ReembedRunningError)
    assert "another `knotwork reembed` holds it now, second (host" in said, said
    assert "cannot be written now" not in said and "*reembed*" not in said, said


async def test_a_reembed_that_lost_its_lease_to_another_leaves_the_mark(
    core: Core, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Resumed after another re-embedding took the lapsed lease, it does not name the model
    nor clear the mark under the other; the one that holds the lease does."""
    monkeypatch.setattr(schema, "MANIFEST_RECHECK_S", 0.0)
    chunks = "UNWIND [1, 2] AS i CREATE (:Chunk {id: 'c' + i, hash: 'h' + i, text: 't' + i})"
    await ad_hoc(core, chunks, write=True)

    async def embed(texts: list[str]) -> list[list[float]]:
        return [hash_embedding(t, settings.embed_dimension) for t in texts]

    await ReembedLease(core.store, 1, "first").acquire(STATUS)
    await asyncio.sleep(1.5)
    await ReembedLease(core.store, 60, "second").acquire(STATUS)
    for holder in ("first", None):  # a caller holding no lease is refused as well
        with pytest.raises(LeaseLostError, match="another `knotwork reembed` holds it now"):
            await schema.reembed(core.store, settings, embed, holder=holder)
        manifest = await core.store.get_manifest()
        assert manifest and manifest["reembedding_model"] == settings.embed_model, manifest
    done = await schema.reembed(core.store, settings, embed, holder="second")
    manifest = await core.store.get_manifest()
    assert done.embedded == 2 and manifest and not manifest.get("reembedding_model"), manifest


async def test_the_api_extraction_says_a_reembed_once_and_waits_for_its_end(
    core: Core, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    writers = VaultWriters(core, Journal(tmp_path / "journal"))
    work = writers.extraction
    guard = ReembedLease(core.store, 60, "reembedder")
    await guard.acquire(STATUS)
    with caplog.at_level(logging.WARNING, logger=api_extraction.__name__):
        for _ in range(3):  # a period's pass each
            assert await work._pass(4, lambda *_: None) == 0
    said = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(said) == 1 and "`knotwork reembed` is re-embedding" in said[0], said
    assert not await work._due()  # the guard alone read while it is live
    await guard.release()
    await work._due()
    assert not work._reembedding  # its end seen: the pending chunks looked for again


def test_reembed_is_refused_before_the_models_load(
    env: None, vault: Path, fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another vault's writer, or another re-embedding, is named before the model clients
    load, as the vault's own writer is."""
    _ingest_a(vault, monkeypatch)
    watcher = asyncio.run(hold_vault({"mode": "inotify", "watches": True}, _vault_b()))
    _switch(monkeypatch, fake_ollama)
    loaded: list[bool] = []
    monkeypatch.setattr(ModelClients, "load", lambda self: loaded.append(True))

    def refused() -> str:
        result = CliRunner().invoke(cli, ["reembed"])
        said = " ".join(result.output.split())
        assert result.exit_code == 1, said
        assert "re-embeds every vault of this database" in said, said
        assert not loaded, "the model clients were loaded before the refusal"
        return said

    assert f"vault 'b': {watcher.holder} (host" in refused()

    async def swap() -> None:  # the watcher stopped; another re-embedding runs
        async with open_core(_vault_b()) as core:
            await Lease(core.store, "b", 60, watcher.holder).release()
            await ReembedLease(core.store, 60, "reembedder").acquire(STATUS)

    asyncio.run(swap())
    assert "reembedder (host" in refused()
