"""A vault path that is a symbolic link, re-pointed under a running watcher (a deploy's
``ln -sfn /data/release-2 /data/vault``, a synced folder switched): followed as a vault folder
replaced at its path is. Resolved once, the watcher followed the old target for good: the
edits in the new one never reached the graph, and nothing said so."""

from __future__ import annotations

import asyncio
import os
import shutil
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from knotwork.core import Core
from knotwork.errors import VaultFolderError
from knotwork.graph.lease import Lease, lease_status
from knotwork.ingest import plan
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from knotwork.text.digest import text_hash
from knotwork.vault.folders import folder_key
from knotwork.watch.following import Following
from knotwork.watch.watcher import VaultWatcher
from tests.integration.conftest import ad_hoc, put
from tests.integration.test_watcher import graph_paths, settle, started

NOTES = {
    f"{folder}/Note {i}.md": f"# Note {i} of {folder}\n\nA note of the first release, {i}.\n"
    for folder in ("Projects", "People")
    for i in range(4)
}
EDITED = "Projects/Note 1.md"


@pytest.fixture
def release(tmp_path: Path) -> Path:
    """The folder the vault path points to first (resolved: as the watcher names it)."""
    root = tmp_path.resolve() / "release-1"
    for rel, text in NOTES.items():
        put(root, rel, text)
    return root


@pytest.fixture
def link(tmp_path: Path, release: Path) -> Path:
    """The configured vault path: a symbolic link to ``release``."""
    path = tmp_path / "vault"
    os.symlink(release, path)
    return path


def repoint(link: Path, target: Path) -> None:
    """``ln -sfn target link``: the link replaced at once, as a rename over it."""
    fresh = link.with_name(f".{link.name}.new")
    os.symlink(target, fresh)
    os.replace(fresh, link)


async def _notes(core: Core) -> dict[str, tuple[str, str]]:
    """Path → (the note node's identity, its content hash): a note deleted and made again
    gets another node."""
    rows = await ad_hoc(
        core,
        "MATCH (n:Note {vault: 'w'}) RETURN n.path AS path, elementId(n) AS id, "
        "n.content_hash AS hash",
        {},
    )
    return {r["path"]: (r["id"], r["hash"]) for r in rows}


async def _revisions(core: Core) -> dict[str, int]:
    rows = await ad_hoc(
        core,
        "MATCH (r:Revision {vault: 'w'}) RETURN r.path AS path, count(r) AS n",
        {},
    )
    return {r["path"]: int(r["n"]) for r in rows}


async def _until(check: Callable[[], Awaitable[bool]], limit_s: float = 30) -> None:
    deadline = time.monotonic() + limit_s
    while not await check():
        if time.monotonic() > deadline:
            raise AssertionError(f"not so after {limit_s} s")
        await asyncio.sleep(0.2)


async def test_a_link_repointed_to_a_copy_is_followed_keeping_history(
    core: Core, link: Path, release: Path
) -> None:
    """Re-pointed to a copy with one note edited: the edit reaches the graph, every other
    note keeps its node and its history, the lease names the new folder, and a note written
    in it afterwards is heard (the observer follows it)."""
    run, task = await started(core, link, watch_debounce_ms=100, watch_rescan_s=0, lease_ttl_s=5)
    try:
        before, revisions = await _notes(core), await _revisions(core)
        second = release.with_name("release-2")
        shutil.copytree(release, second)
        put(second, EDITED, "# Note 1 of Projects\n\nEdited in the second release.\n")
        repoint(link, second)

        async def edited() -> bool:
            return (await _notes(core))[EDITED][1] != before[EDITED][1]

        await _until(edited)
        await settle(run, quiet=1.0)
        assert not task.done(), task.exception() if task.done() else None
        after = await _notes(core)
        assert sorted(after) == sorted(NOTES)
        assert {p: v for p, v in after.items() if p != EDITED} == {
            p: v for p, v in before.items() if p != EDITED
        }
        assert after[EDITED][0] == before[EDITED][0]  # edited, not deleted and made again
        now = await _revisions(core)
        assert {p: n for p, n in now.items() if p != EDITED} == {
            p: n for p, n in revisions.items() if p != EDITED
        }
        assert now[EDITED] == revisions[EDITED] + 1
        assert run.root == second
        assert run.status.folder == str(second)
        assert run.status.folder_id == folder_key(second)

        async def leased() -> bool:  # the next heartbeat carries it
            row = await lease_status(core.store, "w")
            return row is not None and row["folder"] == str(second)

        await _until(leased)
        events = run.status.events
        put(second, "New.md", "# New\n\nWritten in the second release once followed.\n")
        await settle(run, since=events)
        assert await graph_paths(core) == sorted([*NOTES, "New.md"])
    finally:
        run.stop()
        await asyncio.wait_for(task, 30)


async def test_a_link_repointed_to_another_folder_is_refused_naming_both(
    core: Core, link: Path, release: Path
) -> None:
    """Re-pointed to a folder that is not the vault's: the watcher stops, said as the link
    now pointing elsewhere (both targets named) and what to run; the graph is untouched."""
    run, task = await started(core, link, watch_debounce_ms=100, watch_rescan_s=0, lease_ttl_s=5)
    try:
        before, revisions = await _notes(core), await _revisions(core)
        other = release.with_name("other")
        put(other, "Other.md", "# Other\n\nAnother vault's note.\n")
        repoint(link, other)
        with pytest.raises(VaultFolderError) as stopped:
            await asyncio.wait_for(task, 30)
    finally:
        run.stop()
    said = str(stopped.value)
    assert f"the vault path {link} now points to {other} (was {release})" in said
    assert "which holds 0 of the 8 notes of vault 'w'" in said and "nothing was changed" in said
    assert f"`knotwork ingest {link} --new-folder`" in said
    assert f"`ln -sfn {release} {link}`" in said
    assert await _notes(core) == before
    assert await _revisions(core) == revisions


async def test_a_link_repointed_before_a_follow_begins_is_followed(
    core: Core, link: Path, release: Path
) -> None:
    """Re-pointed between the watcher's making and its follow (as while its lease was taken
    by another writer, the follow begun again once it is back): the new folder is followed
    and named in its status, not the one the path led to when the watcher was made."""
    ingestor = Ingestor(core, root=link, vault="w", extract_enabled=False)
    await sync_vault(ingestor)
    run = VaultWatcher(ingestor, Lease(core.store, "w", 5))
    second = release.with_name("release-2")
    shutil.copytree(release, second)
    repoint(link, second)
    ready = asyncio.Event()
    task = asyncio.create_task(run.run(ready=ready))
    try:
        await asyncio.wait_for(ready.wait(), 60)
        assert run.status.folder == str(second)
        assert run.status.folder_id == folder_key(second)
        events = run.status.events
        put(second, "New.md", "# New\n\nWritten in the second release.\n")
        await settle(run, since=events)
        assert await graph_paths(core) == sorted([*NOTES, "New.md"])
    finally:
        run.stop()
        await asyncio.wait_for(task, 30)


def _repointed_on_first_read(
    monkeypatch: pytest.MonkeyPatch, module: object, name: str, link: Path, to: Path
) -> list[bool]:
    """``module.name`` (a vault read) re-points ``link`` to ``to`` as it is first called:
    the link moved midway through what reads the folder, with no timing. The list records
    the call that did it."""
    real = getattr(module, name)
    done: list[bool] = []

    def read(*args: object, **kwargs: object) -> object:
        if not done:
            done.append(True)
            repoint(link, to)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, read)
    return done


async def test_a_link_repointed_while_a_sync_reads_reads_one_folder(
    core: Core, link: Path, release: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Re-pointed after the folder is listed, before its notes are read: the sync reads them
    all in the folder it listed (none with the other folder's text), and deletes nothing
    (a note gone from the first folder is kept for the next sync, which reads the other)."""
    ingestor = Ingestor(core, root=link, vault="w", extract_enabled=False)
    await sync_vault(ingestor)
    before = await _notes(core)
    second = release.with_name("release-2")
    shutil.copytree(release, second)
    changed = [rel for rel in NOTES if rel.startswith("Projects/")]
    for rel in changed:  # half the notes differ: still the vault's folder
        put(second, rel, f"# {rel}\n\nThe second release's text.\n")
    (release / "People/Note 3.md").unlink()  # gone from the first folder only
    done = _repointed_on_first_read(monkeypatch, plan, "read_group", link, second)
    report = await sync_vault(ingestor)
    assert done and os.readlink(link) == str(second)
    assert await _notes(core) == before  # nothing read in the second, nothing deleted
    assert report.kept_gone == 1 and report.deleted == 0
    assert any("leads elsewhere now" in w for w in report.warnings), report.warnings
    report = await sync_vault(ingestor)  # the next sync reads the folder it leads to now
    assert report.kept_gone == 0
    after = await _notes(core)
    assert sorted(after) == sorted(NOTES)
    assert {p: v[0] for p, v in after.items()} == {p: v[0] for p, v in before.items()}
    assert [p for p in NOTES if after[p][1] != before[p][1]] == changed


async def test_a_change_heard_before_a_repoint_is_noticed_is_read_where_heard(
    core: Core, link: Path, release: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A note edited in the folder followed as the link is re-pointed, the re-point not yet
    noticed (looked at each second; here never): its change is written as that folder has
    it, not read through the link in the other folder."""
    monkeypatch.setattr(Following, "_look_at_path", lambda self: None)
    run, task = await started(core, link, watch_debounce_ms=100, watch_rescan_s=0, lease_ttl_s=5)
    try:
        second = release.with_name("release-2")
        shutil.copytree(release, second)
        put(second, EDITED, "# Note 1 of Projects\n\nThe second release's text.\n")
        repoint(link, second)
        edit = "# Note 1 of Projects\n\nEdited in the first release, as followed.\n"
        events = run.status.events
        put(release, EDITED, edit)
        await settle(run, since=events)
        assert not task.done(), task.exception() if task.done() else None
        assert (await _notes(core))[EDITED][1] == text_hash(edit)
    finally:
        run.stop()
        await asyncio.wait_for(task, 30)
