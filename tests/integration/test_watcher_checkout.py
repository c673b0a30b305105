"""A `git checkout` of a branch that renames notes, as the watcher sees it: git deletes the old
files first and writes the new ones later, in one burst of events. The deletes are held until
the burst pauses, so each new file is found as its note moved (ingest/moved.py): renamed,
nothing embedded again, no delete in its history. A lone delete is not held."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

from knotwork.core import Core
from tests.fakes.ollama import FakeOllama
from tests.integration.conftest import put
from tests.integration.test_watcher import assert_verified, graph_paths, settle, watched
from tests.integration.test_watcher_moves import _revisions

NOTES = 12


def _text(i: int) -> str:
    return f"# N{i}\n\nNote {i} on the lake and its herons; see [[n{(i + 1) % NOTES:02d}]].\n"


async def test_notes_deleted_then_written_elsewhere_in_one_burst_are_moves(
    core: Core, vault: Path, fake_ollama: FakeOllama
) -> None:
    """Each delete's debounce ends while the burst goes on (git on a busy machine): applied
    then, the note would be gone from the graph when its new file is read, and made anew."""
    for i in range(NOTES):
        put(vault, f"People/n{i:02d}.md", _text(i))
    async with watched(core, vault, watch_debounce_ms=100, watch_rescan_s=0) as running:
        before = len(await _revisions(core))
        fake_ollama.calls.clear()
        for i in range(NOTES):  # the deletes first, 50 ms apart: 600 ms in all
            (vault / f"People/n{i:02d}.md").unlink()
            await asyncio.sleep(0.05)
        for i in range(NOTES):  # then the new files (the same names: a name is embedded too)
            put(vault, f"Renamed/n{i:02d}.md", _text(i))
            await asyncio.sleep(0.05)
        await settle(running, quiet=1.5)
        await assert_verified(running)
        assert await graph_paths(core) == [f"Renamed/n{i:02d}.md" for i in range(NOTES)]
        assert sorted((await _revisions(core))[before:]) == [
            (f"Renamed/n{i:02d}.md", "rename", f"People/n{i:02d}.md") for i in range(NOTES)
        ]
        assert fake_ollama.embedded_texts() == []


async def test_a_git_checkout_renaming_notes_keeps_them_moves(
    core: Core, vault: Path, fake_ollama: FakeOllama
) -> None:
    for i in range(NOTES):
        put(vault, f"People/n{i:02d}.md", _text(i))

    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(vault), *args], check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    git("-c", "user.email=a@b", "-c", "user.name=t", "add", "-A")
    git("-c", "user.email=a@b", "-c", "user.name=t", "commit", "-qm", "base")
    git("checkout", "-qb", "other")
    git("mv", "People", "Renamed")
    git("-c", "user.email=a@b", "-c", "user.name=t", "commit", "-qm", "renamed")
    git("checkout", "-q", "main")
    async with watched(core, vault, watch_debounce_ms=100, watch_rescan_s=0) as running:
        before = len(await _revisions(core))
        fake_ollama.calls.clear()
        await asyncio.to_thread(git, "checkout", "-q", "other")
        await settle(running, quiet=1.5)
        await assert_verified(running)
        assert fake_ollama.embedded_texts() == []
        assert {kind for _, kind, _ in (await _revisions(core))[before:]} == {"rename"}


async def test_a_lone_delete_is_applied_at_its_debounce(core: Core, vault: Path) -> None:
    put(vault, "a.md", "# A\n\nA note.\n")
    put(vault, "b.md", "# B\n\nAnother note.\n")
    async with watched(core, vault, watch_debounce_ms=100, watch_rescan_s=0) as running:
        before = running.status.events
        (vault / "a.md").unlink()
        for _ in range(3000):  # its event read (30 s at most)
            if running.status.events != before:
                break
            await asyncio.sleep(0.01)
        item = running.pending.get("a.md")  # None: already applied
        assert item is None or running.is_due(item, item.due)  # nothing holds it
        await settle(running, since=before)
        assert await graph_paths(core) == ["b.md"]
