"""One graph writer per vault, always: a held lease outlives its TTL through its heartbeat, a
writer whose lease is taken stops, the CLI writers refuse while another holds it, and a REST
write is either ingested or refused — never acknowledged and left behind."""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from knotwork.api import create_app
from knotwork.check.verify import verify_vault
from knotwork.cli import app as cli
from knotwork.core import Core, open_core
from knotwork.errors import LeaseHeldError, LeaseLostError
from knotwork.graph.lease import Lease, holding, lease_status
from knotwork.ingest.ingestor import Ingestor
from knotwork.llm.clients import ModelClients
from knotwork.settings import Settings
from tests.fakes.ollama import FakeOllama, schema_instance
from tests.integration.conftest import Neo4jTarget, stored_notes
from tests.integration.server import free_port, serving

TTL = 5  # the least lease_ttl_s allows: a heartbeat every 1.7 s


async def test_a_renewed_lease_keeps_a_second_writer_out_past_its_ttl(core: Core) -> None:
    held, unrenewed = Lease(core.store, "v1", TTL), Lease(core.store, "v2", TTL)
    await unrenewed.acquire({"mode": "test"})  # taken once, never renewed
    async with holding(held, {"mode": "test", "watches": False}):
        await asyncio.sleep(TTL + 2.5)
        with pytest.raises(LeaseHeldError, match=held.holder):
            await Lease(core.store, "v1", TTL).acquire()
        status = await lease_status(core.store, "v1")
        assert status and status["live"] and status["mode"] == "test"
        await Lease(core.store, "v2", TTL).acquire()  # the unrenewed one lapsed: taken over
    assert await lease_status(core.store, "v1") is None, "given back at the end"


async def test_a_writer_whose_lease_is_taken_stops_with_lease_lost(core: Core) -> None:
    mine, other = Lease(core.store, "v", TTL), Lease(core.store, "v", TTL)
    wrote_after_loss = False
    with pytest.raises(LeaseLostError, match=other.holder):
        async with holding(mine, {"mode": "test"}):
            await mine.release()  # as if it had lapsed: another writer takes it
            await other.acquire({"mode": "other"})
            await asyncio.sleep(3 * TTL)  # the writer's next await is cancelled
            wrote_after_loss = True
    assert not wrote_after_loss
    status = await lease_status(core.store, "v")
    assert status and status["holder"] == other.holder, "the new holder's lease is left alone"


async def _hold(settings: Settings, status: dict[str, Any]) -> Lease:
    """Take the vault's lease as another writer; the API's own, held a moment after a write it
    answered (its background pass), is waited out (on a loaded machine, a second or two)."""
    async with open_core(settings) as core:
        lease = Lease(core.store, "default", 60)
        deadline = time.monotonic() + 20
        while True:
            try:
                await lease.acquire(status)
                return lease
            except LeaseHeldError:
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.2)


# What each writer refused by a watcher is told: the watcher never "finishes", and it already
# does what most of them would.
WATCHED_ADVICE = {
    "ingest": "The watcher already syncs this vault, every change as it is saved, so there is "
    "nothing to do here; to run `knotwork ingest` anyway (with --new-folder, say), stop the "
    "watcher first",
    "retry": "The watcher finishes the pending chunks itself, every 30 s once the model "
    "answers, so there is nothing to do here",
    "reembed": "The watcher embeds with the model it started with: stop it first, run "
    "`knotwork reembed`, then start it again",
    "watch": "The watcher already follows this vault, and one is enough",
}


@pytest.mark.parametrize("command", [["ingest", "--no-extract"], ["retry"], ["reembed"], ["watch"]])
def test_cli_writers_refuse_while_another_holder_is_live(
    env: None,
    settings: Settings,
    tmp_path: Path,
    command: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Refused at once, before the model clients are built (seconds of LlamaIndex), and told
    that the holder is a watcher and what that means for this command."""
    vault = tmp_path / "v"
    vault.mkdir()
    (vault / "One.md").write_text("# One\n")
    assert CliRunner().invoke(cli, ["init"]).exit_code == 0
    loads: list[object] = []
    monkeypatch.setattr(ModelClients, "load", lambda self: loads.append(self))
    lease = asyncio.run(_hold(settings, {"mode": "inotify", "watches": True}))
    args = [command[0], *([str(vault)] if command[0] in ("ingest", "watch") else []), *command[1:]]
    result = CliRunner().invoke(cli, args)
    said = " ".join(result.output.split())
    assert result.exit_code == 1, result.output
    assert lease.holder in said and "only one writer" in said
    assert f"being written by the watcher {lease.holder}" in said, said
    assert WATCHED_ADVICE[command[0]] in said, said
    assert "wait for it to finish" not in said, said
    assert loads == [], "refused before the model clients were built"

    async def notes() -> list[dict[str, Any]]:
        async with open_core(settings) as core:
            return [{"path": p} for p in await stored_notes(core)]

    assert asyncio.run(notes()) == [], "nothing was written"


@pytest.fixture
def client(
    settings: Settings, vault: Path, tmp_path: Path, empty_db: Neo4jTarget
) -> Iterator[TestClient]:
    app = create_app(
        settings.model_copy(
            update={"vault_path": vault, "extract": False, "state_dir": tmp_path / "state"}
        )
    )
    with TestClient(app, headers={"Content-Type": "text/markdown"}) as test_client:
        yield test_client


def test_a_write_no_one_would_ingest_is_refused_and_changes_nothing(
    client: TestClient, vault: Path, settings: Settings
) -> None:
    assert client.put("/notes/Kept.md", content="# Kept\n").status_code == 200
    lease = asyncio.run(_hold(settings, {"mode": "cli-ingest", "watches": False}))
    put = client.put("/notes/Kept.md", content="# Changed\n")
    assert put.status_code == 409, put.text
    assert lease.holder in put.json()["detail"] and "cli-ingest" in put.json()["detail"]
    assert (vault / "Kept.md").read_text() == "# Kept\n", "the file is unchanged"
    new = client.put("/notes/New.md", content="# New\n")
    assert new.status_code == 409 and not (vault / "New.md").exists()
    gone = client.delete("/notes/Kept.md")
    assert gone.status_code == 409 and (vault / "Kept.md").exists()


def test_a_write_is_left_only_to_a_watcher_of_this_vault_folder(
    client: TestClient, vault: Path, settings: Settings, tmp_path: Path
) -> None:
    """A watcher under the same vault name following another folder would never see the
    write: refused (409) before the file changes. Its own folder, by path or by identity (a
    container's mount point elsewhere), is accepted (202)."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    other = os.stat(elsewhere)
    lease = asyncio.run(
        _hold(
            settings,
            {
                "mode": "inotify",
                "watches": True,
                "folder": str(elsewhere),
                "folder_id": f"{other.st_dev}:{other.st_ino}",
            },
        )
    )
    put = client.put("/notes/Lost.md", content="# Lost\n")
    assert put.status_code == 409, put.text
    detail = " ".join(put.json()["detail"].split())
    assert lease.holder in detail and f"a watcher of {elsewhere}" in detail
    assert "the same KNOTWORK_VAULT_PATH" in detail and not (vault / "Lost.md").exists()
    # The same path is not enough where both say their folder: two containers' /vault.
    asyncio.run(
        _hold_as(
            settings,
            lease.holder,
            {
                "mode": "inotify",
                "watches": True,
                "folder": str(vault.resolve()),
                "folder_id": f"{other.st_dev}:{other.st_ino}",
            },
        )
    )
    assert client.put("/notes/Lost.md", content="# Lost\n").status_code == 409
    here = os.stat(vault)
    for status in (
        {"folder": str(vault.resolve()), "folder_id": None},
        {"folder": "/vault", "folder_id": f"{here.st_dev}:{here.st_ino}"},  # mounted elsewhere
    ):
        asyncio.run(
            _hold_as(settings, lease.holder, {"mode": "inotify", "watches": True, **status})
        )
        taken = client.put("/notes/Seen.md", content="# Seen\n")
        assert taken.status_code == 202, (status, taken.text)
        assert (vault / "Seen.md").read_text() == "# Seen\n"


async def _hold_as(settings: Settings, holder: str, status: dict[str, Any]) -> None:
    """Renew ``holder``'s lease with another status, as its next heartbeat would."""
    async with open_core(settings) as core:
        await Lease(core.store, "default", 60, holder).acquire(status)


def test_a_long_sync_keeps_its_lease_and_ingests_writes_made_meanwhile(
    settings: Settings, vault: Path, tmp_path: Path, fake_ollama: FakeOllama, empty_db: Neo4jTarget
) -> None:
    (vault / "Slow.md").write_text("# Slow\n\nSlow works with Ann on the long report.\n")
    extracting, go_on = threading.Event(), threading.Event()

    def slow_model(body: dict[str, Any]) -> str:
        extracting.set()
        go_on.wait(60)
        fmt = body.get("format")
        return json.dumps(schema_instance(fmt)) if isinstance(fmt, dict) else "{}"

    fake_ollama.chat_script = slow_model
    port = free_port()
    app = create_app(
        settings.model_copy(
            update={
                "vault_path": vault,
                "state_dir": tmp_path / "state",
                "api_port": port,
                "lease_ttl_s": TTL,
            }
        )
    )
    with serving(app, port) as base:
        answers: dict[str, httpx.Response] = {}
        syncing = threading.Thread(
            target=lambda: answers.update(sync=httpx.post(f"{base}/sync", timeout=120))
        )
        syncing.start()
        assert extracting.wait(60), ("the sync did not reach the model", answers)
        time.sleep(TTL + 2.5)  # the sync outlives its lease's TTL: its heartbeat renews it

        async def second_writer() -> None:
            async with open_core(settings) as core:
                with pytest.raises(LeaseHeldError, match=app.state.writers.holder):
                    await Lease(core.store, "default", TTL).acquire({"mode": "inotify"})

        asyncio.run(second_writer())
        put = httpx.put(
            f"{base}/notes/Fresh.md",
            content="# Fresh\n\nFresh links to [[Slow]].\n",
            headers={"Content-Type": "text/markdown"},
            timeout=60,
        )
        assert put.status_code == 202, put.text
        assert put.json()["ingested_by"] == app.state.writers.holder
        go_on.set()
        syncing.join(120)
        assert answers["sync"].status_code == 200, answers["sync"].text
        assert len(app.state.writers.journal) == 0

    async def check() -> None:
        async with open_core(settings) as core:
            assert sorted(await stored_notes(core)) == ["Fresh.md", "Slow.md"]
            ingestor = Ingestor(core, root=vault, extract_enabled=False)
            assert await verify_vault(ingestor) == []
            assert await lease_status(core.store, "default") is None, "given back"

    asyncio.run(check())
