"""`ingest` or `watch` of a folder refused while a watcher of ANOTHER folder holds the same
vault name: told which folder that watcher follows and the ways out, not "nothing to do here"
(that watcher would never sync this folder). A watcher of this very folder, by path or by
identity, still gets the "nothing to do" advice."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from knotwork.cli import app as cli
from knotwork.core import open_core
from knotwork.graph.lease import Lease
from knotwork.settings import Settings
from knotwork.vault.folders import folder_key
from tests.integration.test_one_writer import WATCHED_ADVICE, _hold


async def _give_back(settings: Settings, holder: str) -> None:
    async with open_core(settings) as core:
        await Lease(core.store, "default", 60, holder).release()


@pytest.mark.parametrize("command", ["ingest", "watch"])
def test_a_watcher_of_another_folder_is_named_not_left_the_work(
    env: None, settings: Settings, tmp_path: Path, command: str
) -> None:
    vault, elsewhere = tmp_path / "v", tmp_path / "elsewhere"
    for folder in (vault, elsewhere):
        folder.mkdir()
    (vault / "One.md").write_text("# One\n")
    assert CliRunner().invoke(cli, ["init"]).exit_code == 0
    watching = {"mode": "inotify", "watches": True}
    lease = asyncio.run(
        _hold(settings, {**watching, "folder": str(elsewhere), "folder_id": folder_key(elsewhere)})
    )
    args = [command, str(vault), *(["--no-extract"] if command == "ingest" else [])]
    result = CliRunner().invoke(cli, args)
    said = " ".join(result.output.split())
    assert result.exit_code == 1, result.output
    assert f"That watcher follows {elsewhere}, not {vault.resolve()}" in said, said
    assert "KNOTWORK_VAULT_NAME" in said and "nothing to do" not in said, said
    # Stopping that watcher is not enough: the vault's notes came from its folder.
    assert f"then run `knotwork ingest {vault.resolve()} --new-folder` once" in said, said

    # The same folder by identity (a container mounts it at another path): nothing to do.
    same = {**watching, "folder": "/vault", "folder_id": folder_key(vault)}
    asyncio.run(_give_back(settings, lease.holder))
    asyncio.run(_hold(settings, same))
    said = " ".join(CliRunner().invoke(cli, args).output.split())
    assert WATCHED_ADVICE[command] in said and "That watcher follows" not in said, said


async def _hold_from(settings: Settings, host: str, status: dict[str, Any]) -> None:
    """Take the vault's lease as a watcher on another host (a container) would."""
    async with open_core(settings) as core:
        lease = Lease(core.store, "default", 60)
        lease.host = host
        await lease.acquire(status)


@pytest.mark.parametrize("command", ["ingest", "watch"])
def test_a_container_watcher_of_another_identity_is_not_said_to_be_elsewhere(
    env: None, settings: Settings, tmp_path: Path, command: str
) -> None:
    """Docker Desktop shares a folder into its VM under other device and inode numbers, so a
    container's watcher of this very folder does not look like it: both cases are said."""
    vault = tmp_path / "v"
    vault.mkdir()
    (vault / "One.md").write_text("# One\n")
    assert CliRunner().invoke(cli, ["init"]).exit_code == 0
    status = {"mode": "inotify", "watches": True, "folder": "/vault", "folder_id": "1:2"}
    asyncio.run(_hold_from(settings, "0123456789ab", status))
    args = [command, str(vault), *(["--no-extract"] if command == "ingest" else [])]
    result = CliRunner().invoke(cli, args)
    said = " ".join(result.output.split())
    assert result.exit_code == 1, result.output
    assert "That watcher runs on host 0123456789ab and follows /vault." in said, said
    assert f"If that is {vault.resolve()} as its container mounts it" in said, said
    assert WATCHED_ADVICE[command] in said and "KNOTWORK_VAULT_NAME" in said, said


def test_a_folder_that_does_not_exist_is_said_so_first(
    env: None, settings: Settings, tmp_path: Path
) -> None:
    """A typo is not told to make itself a vault of its own."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert CliRunner().invoke(cli, ["init"]).exit_code == 0
    watching = {"mode": "inotify", "watches": True, "folder": str(elsewhere)}
    asyncio.run(_hold(settings, {**watching, "folder_id": folder_key(elsewhere)}))
    typo = tmp_path / "elswhere"
    result = CliRunner().invoke(cli, ["ingest", str(typo), "--no-extract"])
    said = " ".join(result.output.split())
    assert result.exit_code == 2, result.output  # as without a watcher: the folder's fault
    assert f"the vault folder {typo} does not exist" in said, said
    assert "That watcher follows" not in said, said
