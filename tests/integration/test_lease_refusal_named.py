"""A REST write and `retry --errors` refused by another writer name the holder the refusing take
read, though that holder gives the lease back before anything reads it again (a second read
found no one: the write was refused as by "another writer", and `retry --errors` failed)."""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from knotwork.cli import app as cli
from knotwork.core import Core, open_core
from knotwork.errors import LeaseHeldError
from knotwork.graph.lease import WATCHED, Lease, lease_status
from knotwork.ingest.journal import Journal
from knotwork.serving.refusals import busy
from knotwork.serving.writers import VaultWriters
from knotwork.settings import get_settings
from tests.fakes.ollama import FakeOllama
from tests.integration.conftest import hold_vault

cli_app = importlib.import_module("knotwork.cli.app")  # the module, not its Typer ``app``


class LeftAfterRefusal(Lease):
    """A writer whose every refusal is followed at once by the holder giving the lease back
    (its work just finished), before anything else reads it."""

    async def acquire(self, status: Mapping[str, Any] | None = None) -> None:
        try:
            await super().acquire(status)
        except LeaseHeldError as exc:
            assert exc.held_by is not None
            await Lease(self.store, self.vault, 30, exc.held_by["holder"]).release()
            raise


class LeftWriters(VaultWriters):
    def _lease(self) -> Lease:
        return LeftAfterRefusal(self.core.store, self.vault, 30, self.holder)


async def test_a_rest_write_refused_names_the_holder_that_left_meanwhile(
    core: Core, tmp_path: Path
) -> None:
    other = Lease(core.store, core.settings.vault_name, 30)
    await other.acquire({"mode": "cli-ingest", "watches": False})
    writers = LeftWriters(core, Journal(tmp_path / "journal"))
    async with writers.write() as way:
        assert way.kind == "busy"
        assert way.holder is not None and way.holder["holder"] == other.holder
        said = str(busy("a.md", way))
    assert f"vault writes are held by {other.holder} (mode cli-ingest, host " in said, said
    assert f"pid {other.pid}), which does not watch the vault's files" in said, said
    assert await lease_status(core.store, core.settings.vault_name) is None, "it left"


def test_retry_errors_names_the_watcher_that_left_meanwhile(
    env: None, ann_vault: Path, fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    ingested = CliRunner().invoke(cli, ["ingest", str(ann_vault)])
    assert ingested.exit_code == 0, ingested.output
    watcher = asyncio.run(hold_vault({"mode": "inotify", "watches": True}))

    def lease(core: Core, watched: str = WATCHED) -> Lease:
        settings = core.settings
        return LeftAfterRefusal(
            core.store, settings.vault_name, settings.lease_ttl_s, watched=watched
        )

    monkeypatch.setattr(cli_app, "writer_lease", lease)
    held = CliRunner().invoke(cli, ["retry", "--errors"])
    assert held.exit_code == 0, held.output
    assert f"a watcher holds the vault ({watcher.holder}); it extracts" in held.output, held.output
    assert asyncio.run(_lease_row()) is None, "the watcher gave the lease back meanwhile"


async def _lease_row() -> dict[str, Any] | None:
    async with open_core(get_settings()) as core:
        return await lease_status(core.store, core.settings.vault_name)
