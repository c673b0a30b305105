"""A sync deletes only what it saw to be gone: a vault folder that is missing, unreadable or
an empty mount point, a folder it cannot list, a note it cannot read and another folder under
the vault's name leave the graph as it was, with an error that says so."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from knotwork.core import Core
from knotwork.errors import VaultFolderError, VaultUnavailableError
from knotwork.ingest import plan
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from knotwork.vault.files import NoteScan, scan_notes
from tests.integration.conftest import put, stored_notes

NOTES = {
    "Alice.md": "# Alice\nWorks with [[Bob]].\n",
    "team/Bob.md": "# Bob\nAn engineer.\n",
    "team/Carol.md": "# Carol\nWorks with [[Alice]].\n",
}


def _empty(folder: Path) -> None:
    """Everything in the folder removed, the folder kept: made again, it would be another
    folder (another inode, unless the file system happens to reuse it), which the sync's
    folder check refuses with VaultFolderError before the empty-folder rule is reached."""
    for entry in folder.iterdir():
        shutil.rmtree(entry) if entry.is_dir() else entry.unlink()


async def _synced(vault: Path, ingestor: Ingestor, core: Core) -> dict[str, str | None]:
    for path, text in NOTES.items():
        put(vault, path, text)
    report = await sync_vault(ingestor)
    assert report.written == 3 and not report.errors
    held = await stored_notes(core, "t")
    assert sorted(held) == sorted(NOTES)
    return held


async def test_a_missing_vault_folder_stops_the_sync_and_deletes_nothing(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    held = await _synced(vault, ingestor, core)
    shutil.rmtree(vault)
    with pytest.raises(VaultUnavailableError, match="does not exist; nothing in the graph"):
        await sync_vault(ingestor)
    put(vault.parent, vault.name, "a file where the folder was")
    with pytest.raises(VaultUnavailableError, match="is not a folder"):
        await sync_vault(ingestor)
    assert await stored_notes(core, "t") == held


async def test_an_empty_vault_folder_deletes_nothing_until_a_file_says_it_is_meant(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    held = await _synced(vault, ingestor, core)
    _empty(vault)  # what an unmounted drive's mount point looks like
    with pytest.raises(VaultUnavailableError, match="is empty while the graph holds 3 notes"):
        await sync_vault(ingestor)
    assert await stored_notes(core, "t") == held

    (vault / ".keep").write_text("")
    report = await sync_vault(ingestor)
    assert report.deleted == 3 and await stored_notes(core, "t") == {}


def _unlistable(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """Folders called ``name`` fail to be listed, through the scan's own error path (the
    walk's ``onerror``, vault/walk.py): tests run as root, for whom no permission makes a
    folder unreadable."""
    real_scandir = os.scandir

    def scandir(path: str) -> Any:
        if Path(path).name == name:
            raise PermissionError(13, "Permission denied", path)
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)


async def test_a_folder_the_scan_cannot_list_keeps_its_notes(
    core: Core, vault: Path, ingestor: Ingestor, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = await _synced(vault, ingestor, core)
    (vault / "Alice.md").unlink()  # seen gone: deleted as ever
    _unlistable(monkeypatch, "team")
    scan = scan_notes(vault)
    assert scan.unreadable == {"team": "Permission denied"} and scan.unseen("team/Bob.md")

    report = await sync_vault(ingestor)
    assert report.deleted == 1
    assert "team/: cannot be listed (Permission denied); the graph keeps the 2 notes" in (
        " ".join(report.errors)
    )
    assert await stored_notes(core, "t") == {p: h for p, h in held.items() if p != "Alice.md"}


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a folder whatever its permissions")
async def test_an_unreadable_folder_keeps_its_notes(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    held = await _synced(vault, ingestor, core)
    (vault / "team").chmod(0)
    try:
        report = await sync_vault(ingestor)
    finally:
        (vault / "team").chmod(0o755)
    assert report.deleted == 0 and any("team/: cannot be listed" in e for e in report.errors)
    assert await stored_notes(core, "t") == held


async def test_the_vault_folder_itself_unlistable_stops_the_sync(
    core: Core, vault: Path, ingestor: Ingestor, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = await _synced(vault, ingestor, core)

    def unlistable(root: Path) -> NoteScan:
        return NoteScan([], unreadable={".": "Input/output error"})

    monkeypatch.setattr(plan, "scan_notes", unlistable)
    with pytest.raises(VaultUnavailableError, match=r"cannot be listed \(Input/output error\)"):
        await sync_vault(ingestor)
    assert await stored_notes(core, "t") == held


async def test_a_note_that_cannot_be_read_keeps_its_last_version(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    held = await _synced(vault, ingestor, core)
    (vault / "team/Bob.md").write_bytes(b"\x00\x01 not a note any more")
    put(vault, "team/Carol.md", "# Carol\nWorks alone.\n")
    report = await sync_vault(ingestor)
    assert report.written == 1 and report.deleted == 0
    [error] = report.errors
    assert "team/Bob.md: looks binary" in error and "the graph keeps its last version" in error
    now = await stored_notes(core, "t")
    assert (
        now["team/Bob.md"] == held["team/Bob.md"] and now["team/Carol.md"] != held["team/Carol.md"]
    )


async def test_the_report_names_the_notes_kept_as_data(
    core: Core, vault: Path, ingestor: Ingestor, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The notes a sync keeps at their last version, the folder unable to read or list them,
    are on its report (``kept``), as each error names them: verify's fresh parse keeps the
    same ones, and read them out of the errors' words before. A file never ingested has no
    last version to keep."""
    await _synced(vault, ingestor, core)
    assert (await sync_vault(ingestor)).kept == set()
    (vault / "Alice.md").write_bytes(b"\x00\x01 not a note any more")
    (vault / "New.md").write_bytes(b"\x00\x01 never a note")
    _unlistable(monkeypatch, "team")
    report = await sync_vault(ingestor)
    assert report.kept == {"Alice.md", "team/Bob.md", "team/Carol.md"}, report.errors
    assert sorted(e.partition(":")[0] for e in report.errors) == ["Alice.md", "New.md", "team/"]


async def test_another_folder_under_the_vaults_name_deletes_nothing_unless_it_is_meant(
    core: Core, vault: Path, ingestor: Ingestor, tmp_path: Path
) -> None:
    """A second vault synced under the default name, or a subfolder of the vault, would take
    every note it lacks for deleted: the sync stops and names both folders; with
    ``new_folder`` (``knotwork ingest PATH --new-folder``) the folder becomes the vault's."""
    held = await _synced(vault, ingestor, core)
    other = tmp_path / "other"
    put(other, "Dave.md", "# Dave\n")
    for folder in (other, vault / "team"):
        elsewhere = Ingestor(core, root=folder, vault="t", extract_enabled=False)
        with pytest.raises(VaultFolderError, match=f"holds 3 notes synced from {vault}"):
            await sync_vault(elsewhere)
        assert await stored_notes(core, "t") == held
    moved = Ingestor(core, root=other, vault="t", extract_enabled=False)
    report = await sync_vault(moved, new_folder=True)
    assert report.deleted == 3 and sorted(await stored_notes(core, "t")) == ["Dave.md"]
    with pytest.raises(VaultFolderError, match=f"synced from {other}"):
        await sync_vault(ingestor)  # the old folder is now the other one
    assert sorted(await stored_notes(core, "t")) == ["Dave.md"]


async def test_a_folder_with_the_vaults_paths_but_other_notes_is_not_the_vaults(
    core: Core, vault: Path, ingestor: Ingestor, tmp_path: Path
) -> None:
    """Two vaults made from one template share most of their paths (People/, the daily notes'
    dates, Index.md): a folder holds a note of the vault only with its path and its content,
    so another vault's folder synced under this vault's name does not replace its notes."""
    held = await _synced(vault, ingestor, core)
    twin = tmp_path / "twin"
    for path, text in NOTES.items():
        put(twin, path, text.replace("\n", " in the twin vault.\n", 1))
    put(twin, "Alice.md", NOTES["Alice.md"])  # one of the three as the graph holds it
    elsewhere = Ingestor(core, root=twin, vault="t", extract_enabled=False)
    with pytest.raises(VaultFolderError, match=f"this folder, {twin}, holds 1 of them"):
        await sync_vault(elsewhere)
    assert await stored_notes(core, "t") == held
    put(twin, "team/Bob.md", NOTES["team/Bob.md"])  # two of three: the vault, edited since
    report = await sync_vault(elsewhere)
    assert report.written == 1 and report.deleted == 0 and report.unchanged == 2


async def test_the_vault_folder_moved_or_made_again_is_still_the_vaults(
    core: Core, vault: Path, ingestor: Ingestor, tmp_path: Path
) -> None:
    """The folder the last sync read (its path and identity), or any holding at least half of
    the vault's notes (moved, mounted elsewhere, made again), is the vault's: synced as ever,
    and recorded where it is now. A folder at the same path holding other notes (another
    vault mounted at /vault, another drive at the mount point) is not."""
    held = await _synced(vault, ingestor, core)
    renamed = tmp_path / "renamed"
    os.rename(vault, renamed)
    report = await sync_vault(Ingestor(core, root=renamed, vault="t", extract_enabled=False))
    assert report.deleted == 0 and await stored_notes(core, "t") == held
    shutil.copytree(renamed, vault)  # made again at the first path: another identity
    shutil.rmtree(renamed)
    assert (await sync_vault(ingestor)).deleted == 0 and await stored_notes(core, "t") == held
    zed = tmp_path / "zed"  # made while the vault's folder is there: never its inode
    put(zed, "Zed.md", "# Zed\n")
    shutil.rmtree(vault)
    os.rename(zed, vault)  # another vault where this one was
    with pytest.raises(VaultFolderError, match=f"folder {vault} was replaced by one holding 0 of"):
        await sync_vault(ingestor)
    assert await stored_notes(core, "t") == held
    for path in ("Alice.md", "team/Bob.md"):  # two of its three notes: the vault's again
        put(vault, path, NOTES[path])
    report = await sync_vault(ingestor)
    assert report.deleted == 1 and sorted(await stored_notes(core, "t")) == [
        "Alice.md",
        "Zed.md",
        "team/Bob.md",
    ]
