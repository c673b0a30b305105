"""A vault folder refilled slowly under a running watcher: made again at its path (or another
put there) and copied into file by file, or emptied and restored into. The rescan waits for
the copy to end, as a held delete does: read half-filled, a folder made again was refused as
another vault's (the watcher stopped), and a restore had every note not yet copied deleted,
then made anew (its history cut, its chunks embedded again)."""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
from pathlib import Path

import pytest

from knotwork.core import Core
from knotwork.errors import VaultFolderError
from knotwork.watch import apply as watching
from knotwork.watch.watcher import VaultWatcher
from tests.integration.conftest import ad_hoc, put
from tests.integration.test_watcher import graph_paths, settle, started, synced_not_running

NOTES = {
    f"{folder}/Note {i}.md": f"# Note {i} of {folder}\n\nA note kept through the restore, {i}.\n"
    for folder in ("Projects", "People", "Areas")
    for i in range(12)
}


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    for rel, text in NOTES.items():
        put(root, rel, text)
    return root


async def _revisions(core: Core) -> int:
    rows = await ad_hoc(
        core, "MATCH (r:Revision {vault: 'w'}) RETURN count(r) AS n", {}, write=False
    )
    return int(rows[0]["n"])


async def _copy_slowly(vault: Path, pause: float) -> None:
    """The notes written back one by one, ``pause`` apart (a backup restored by hand)."""
    for rel, text in NOTES.items():
        put(vault, rel, text)
        await asyncio.sleep(pause)


async def _refilled(core: Core, vault: Path, task: asyncio.Task[None], run: VaultWatcher) -> None:
    """The watcher went on, and the graph holds every note with no revision since the start:
    none deleted and made again."""
    assert not task.done(), task.exception() if task.done() else None
    await settle(run, quiet=1.5)
    assert not task.done(), task.exception() if task.done() else None
    assert await graph_paths(core) == sorted(NOTES)


@pytest.mark.parametrize("away", ["deleted", "moved away"])
async def test_a_folder_made_again_and_refilled_slowly_is_judged_once_quiet(
    core: Core, vault: Path, away: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Made again at its path and copied into over ~5 s (deleted, or moved away and left
    empty a while, its failed rescans retried meanwhile): judged once the copy ends, as the
    vault's; nothing deleted, the watcher still running."""
    monkeypatch.setattr(watching, "RETRY_GRAPH_S", 0.3)  # an empty folder's retries mid-copy
    run, task = await started(core, vault, watch_debounce_ms=100, watch_rescan_s=0, lease_ttl_s=5)
    try:
        revisions = await _revisions(core)
        if away == "deleted":
            shutil.rmtree(vault)
            os.mkdir(vault)
        else:
            os.rename(vault, vault.with_name("vault.away"))
            os.mkdir(vault)
            await asyncio.sleep(2.5)  # followed, found empty, tried again
        await _copy_slowly(vault, 0.12)
        await _refilled(core, vault, task, run)
        assert await _revisions(core) == revisions
    finally:
        run.stop()
        await asyncio.wait_for(task, 30)


async def test_a_folder_replaced_by_another_vaults_says_so_once_quiet(
    core: Core, vault: Path, tmp_path: Path
) -> None:
    """A quiet folder at the path that still holds too few of the vault's notes stops the
    watcher, said as one folder replaced (not the same path named twice), and --new-folder
    offered for once the folder holds what it should."""
    run, task = await started(core, vault, watch_debounce_ms=100, watch_rescan_s=0, lease_ttl_s=5)
    try:
        other = tmp_path / "other"  # made while the vault's folder is there: never its inode
        put(other, "Other.md", "# Other\n\nAnother vault's note.\n")
        shutil.rmtree(vault)
        os.rename(other, vault)
        with pytest.raises(VaultFolderError) as stopped:
            await asyncio.wait_for(task, 30)
    finally:
        run.stop()
    said = str(stopped.value)
    assert f"the vault folder {vault} was replaced by one holding 0 of the 36 " in said
    assert "; this folder, " not in said and "once the folder holds what it should, run" in said
    assert await graph_paths(core) == sorted(NOTES)


async def test_a_restore_into_the_emptied_folder_keeps_every_notes_history(
    core: Core, vault: Path
) -> None:
    """``rm -rf vault/*`` then the backup copied back 30 ms a note: the rescan its folders'
    deletes ask for waits for the restore to end, so no note is deleted and made again."""
    run, task = await started(core, vault, watch_debounce_ms=100, watch_rescan_s=0, lease_ttl_s=5)
    try:
        revisions = await _revisions(core)
        for child in os.listdir(vault):
            shutil.rmtree(vault / child)
        await asyncio.sleep(0.05)
        await _copy_slowly(vault, 0.03)
        await _refilled(core, vault, task, run)
        assert await _revisions(core) == revisions
    finally:
        run.stop()
        await asyncio.wait_for(task, 30)


async def test_an_empty_folder_rescan_failing_is_said_once_and_when_it_ends(
    core: Core, vault: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A rescan of the vault folder left empty (a drive unmounted) fails each retry: said once
    (then once a minute), and once more when it succeeds again."""
    caplog.set_level(logging.INFO, logger="knotwork")
    running = await synced_not_running(core, vault)
    held = vault.with_name("drive")
    os.rename(vault, held)
    os.mkdir(vault)
    for _ in range(3):
        assert not await running._rescan_or_retry()
    said = [r.getMessage() for r in caplog.records if "is empty while" in r.getMessage()]
    assert len(said) == 1, said
    os.rmdir(vault)
    os.rename(held, vault)
    assert await running._rescan_or_retry()
    assert any("the vault folder reachable again" in r.getMessage() for r in caplog.records)
