"""A vault folder nested far deeper than any vault's: walked without recursion (a scan, a
watcher's created folder), and never made by a write."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest
from watchdog.events import DirCreatedEvent, FileSystemEventHandler

from knotwork.errors import VaultPathError, VaultUnavailableError
from knotwork.vault.files import list_notes, scan_notes
from knotwork.vault.write import MAX_FOLDER_DEPTH, note_target
from knotwork.watch import created
from knotwork.watch.events import PathEvents
from knotwork.watch.queue import WatchStatus, start_observer
from tests.deep_folders import chain, nested


def test_a_scan_walks_a_folder_nested_3000_deep(tmp_path: Path) -> None:
    """os.walk recursed once per level: 1,000 levels raised RecursionError in every sync,
    verify and watcher. Past PATH_MAX (~2,000 levels of one-letter names) a folder cannot be
    named to the system: it is a folder that cannot be listed, as any other, not a crash."""
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "top.md").write_text("# Top\n")
    with nested(vault, 3000, {1200: "mid.md", 3000: "bottom.md"}):
        scan = scan_notes(vault)
        assert scan.paths == [f"{chain(1200)}/mid.md", "top.md"]
        assert list_notes(vault) == scan.paths
        [(folder, why)] = scan.unreadable.items()
        assert folder.startswith(chain(1500)) and "too long" in why.lower()
        assert not scan.errors and not scan.warnings


def test_a_write_deeper_than_the_cap_is_refused_a_delete_is_not(tmp_path: Path) -> None:
    deepest = f"{chain(MAX_FOLDER_DEPTH)}/x.md"
    assert note_target(tmp_path, deepest)[0] == deepest
    too_deep = f"{chain(MAX_FOLDER_DEPTH + 1)}/x.md"
    with pytest.raises(VaultPathError, match=f"at most {MAX_FOLDER_DEPTH} folders deep"):
        note_target(tmp_path, too_deep)
    assert note_target(tmp_path, too_deep, deleting=True)[0] == too_deep  # makes no folder
    assert not (tmp_path / "d").exists()


async def test_a_created_folder_chain_is_listed_once_off_the_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each folder of a chain made at once comes as its own created-folder event. Each was
    listed with its whole subtree on the loop (quadratic, the loop standing still; 1,000
    levels deep a RecursionError per event): now the chain is listed once, in a thread, and
    the same notes are marked."""
    listings: list[tuple[str, bool]] = []

    def counted(root: Path) -> list[str]:
        listings.append(
            (root.relative_to(tmp_path).as_posix(), loop_thread is threading.current_thread())
        )
        return list_notes(root)

    loop_thread = threading.current_thread()
    monkeypatch.setattr(created, "list_notes", counted)
    waiting = PathEvents(tmp_path, debounce=0.3, queue_max=10_000, status=WatchStatus())
    notes = {1: "a.md", 600: "b.md", 1200: ".hidden.md"}
    with nested(tmp_path, 1200, notes):
        for level in range(1, 1201):
            waiting.on_event(DirCreatedEvent(str(tmp_path / chain(level))))
        assert not waiting.pending  # nothing listed on the loop: marked once listed
        for _ in range(500):
            if waiting.pending:
                break
            await asyncio.sleep(0.01)
        assert sorted(waiting.pending) == ["d/a.md", f"{chain(600)}/b.md"]
        assert all(item.there for item in waiting.pending.values())
        assert listings == [("d", False)]


@pytest.mark.parametrize("polling", [False, True])
def test_a_folder_too_deep_for_the_observer_is_said_not_a_traceback(
    tmp_path: Path, polling: bool
) -> None:
    """watchdog walks the vault recursively to watch it (inotify) or to list it (polling):
    ~1,000 levels deep it raises RecursionError, which stopped `knotwork watch` with a raw
    traceback. Said as the vault folder's trouble instead, with what to do."""
    too_deep = pytest.raises(VaultUnavailableError, match="nested too deep for the file observer")
    with nested(tmp_path, 1500, {}), too_deep:
        start_observer(tmp_path, FileSystemEventHandler(), polling, WatchStatus())
