"""The watcher on a real folder, with the real Neo4j and the fake Ollama: every kind of change
ends, once the watcher is idle, with `verify` finding no difference."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from knotwork import core as core_module
from knotwork.check.verify import verify_vault
from knotwork.core import Core, open_core
from knotwork.errors import (
    GraphQueryError,
    GraphUnavailableError,
    LeaseHeldError,
    LeaseLostError,
    ManifestMismatchError,
    NoteError,
    VaultUnavailableError,
)
from knotwork.graph import schema
from knotwork.graph.lease import Lease, lease_status
from knotwork.graph.queries.writes import CHUNKS_PENDING
from knotwork.ingest import modelcalls
from knotwork.ingest.changes import NoteOutcome
from knotwork.ingest.ingestor import Ingestor, Move
from knotwork.ingest.sync import sync_vault
from knotwork.settings import Settings
from knotwork.vault.folders import folder_id, folder_key
from knotwork.watch import apply as watching
from knotwork.watch import created as watch_created
from knotwork.watch.events import Pending
from knotwork.watch.queue import INOTIFY_LOGGER
from knotwork.watch.watcher import VaultWatcher
from tests.fakes.ollama import FakeOllama
from tests.integration.conftest import ad_hoc, put, stored_notes


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    root.mkdir()
    (root / "People").mkdir()
    (root / "People/Alice.md").write_text("# Alice\n\nAlice works with [[Bob]].\n")
    (root / "Bob.md").write_text("---\nrole: engineer\n---\n# Bob\n\nBob knows [[Alice]].\n")
    return root


@pytest.fixture(params=["inotify", "polling"])
async def watcher(
    core: Core, vault: Path, request: pytest.FixtureRequest
) -> AsyncIterator[VaultWatcher]:
    """A running watcher on the vault, once with inotify and once polling."""
    fast = dataclasses.replace(
        core,
        settings=core.settings.model_copy(
            update={
                "watch_debounce_ms": 100,
                "watch_rescan_s": 0,
                "lease_ttl_s": 5,
                "watch_polling": request.param == "polling",
            }
        ),
    )
    ingestor = Ingestor(fast, root=vault, vault="w", extract_enabled=False)
    running = VaultWatcher(ingestor, Lease(fast.store, "w", 5))
    ready = asyncio.Event()
    task = asyncio.create_task(running.run(ready=ready))
    await asyncio.wait(
        [task, asyncio.create_task(ready.wait())], timeout=60, return_when=asyncio.FIRST_COMPLETED
    )
    if task.done():
        task.result()  # raises what stopped it
    assert ready.is_set(), "the watcher did not finish its start-up reconcile in 60 s"
    yield running
    running.stop()
    await asyncio.wait_for(task, 30)


async def started(
    core: Core, vault: Path, *, extract: bool = False, **settings: object
) -> tuple[VaultWatcher, asyncio.Task[None]]:
    """A watcher of vault "w" under these settings (model extraction with ``extract``), run
    until it finished its start-up reconcile; the caller stops it and awaits the task."""
    tuned = dataclasses.replace(core, settings=core.settings.model_copy(update=settings))
    ingestor = Ingestor(tuned, root=vault, vault="w", extract_enabled=extract)
    running = VaultWatcher(ingestor, Lease(tuned.store, "w", 5))
    ready = asyncio.Event()
    task = asyncio.create_task(running.run(ready=ready))
    await asyncio.wait_for(ready.wait(), 60)
    return running, task


@contextlib.asynccontextmanager
async def watched(
    core: Core, vault: Path, *, extract: bool = False, **settings: object
) -> AsyncIterator[VaultWatcher]:
    """``started``'s watcher for the body of an ``async with``, stopped and awaited after it
    however the body ends."""
    running, task = await started(core, vault, extract=extract, **settings)
    try:
        yield running
    finally:
        running.stop()
        await asyncio.wait_for(task, 30)


async def settle(
    watcher: VaultWatcher, quiet: float = 0.6, limit_s: float = 60, since: int | None = None
) -> None:
    """Wait until no event arrived for ``quiet`` seconds and nothing is pending; with
    ``since`` (the event count before the change), first until an event came after it.

    A polling observer looks once a second, so its quiet window must be longer. A file moved
    out of the folder is reported only once inotify gives up waiting for its other half
    (watchdog holds an unpaired move ~0.5 s), which on a busy machine can come after a quiet
    window: a test of such a change passes ``since``.
    """
    if watcher.status.mode == "polling":
        quiet = max(quiet, 2.5)
    deadline = time.monotonic() + limit_s
    while since is not None and watcher.status.events <= since:
        if time.monotonic() > deadline:
            raise AssertionError(f"no event after {limit_s} s")
        await asyncio.sleep(0.05)
    seen = -1
    while time.monotonic() < deadline:
        if watcher.status.events == seen and watcher.idle:
            return
        seen = watcher.status.events
        await asyncio.sleep(quiet)
    raise AssertionError(f"watcher not idle after {limit_s} s: {len(watcher.pending)} pending")


async def assert_verified(watcher: VaultWatcher) -> None:
    differences = await verify_vault(watcher.ingestor)
    assert differences == [], differences


async def graph_paths(core: Core) -> list[str]:
    return sorted(await stored_notes(core, "w"))


async def _alice_revisions(core: Core) -> list[tuple[str, str]]:
    """(path, kind) of the revisions of Alice's note at either of its names, oldest first (a
    rename's record closing the old path, written at the same time, after it)."""
    rows = await ad_hoc(
        core,
        "MATCH (r:Revision {vault: 'w'}) WHERE r.path IN ['People/Alice.md', 'People/Alicia.md'] "
        "RETURN r.path AS path, r.kind AS kind ORDER BY r.at, r.kind",
        {},
        write=False,
    )
    return [(r["path"], r["kind"]) for r in rows]


async def test_atomic_save_is_one_modification(
    watcher: VaultWatcher, vault: Path, core: Core
) -> None:
    tmp = vault / ".Bob.md.swp"
    tmp.write_text("---\nrole: manager\n---\n# Bob\n\nBob knows [[Alice]] well.\n")
    os.replace(tmp, vault / "Bob.md")
    await settle(watcher)
    await assert_verified(watcher)
    rows = await ad_hoc(
        core,
        "MATCH (:Note {vault: 'w', path: 'Bob.md'})-[r:HAS_ROLE]->(e) RETURN e.key AS role",
        {},
        write=False,
    )
    assert rows == [{"role": "manager"}]
    assert await graph_paths(core) == ["Bob.md", "People/Alice.md"]


async def test_rename_and_folder_move_keep_embeddings(
    watcher: VaultWatcher, vault: Path, core: Core, fake_ollama: FakeOllama
) -> None:
    fake_ollama.calls.clear()
    (vault / "People").rename(vault / "Friends")
    await settle(watcher)
    assert fake_ollama.embedded_texts() == [], "a folder move re-embeds nothing"
    # A rename retitles the note, and its chunks embed their title: only they are re-embedded.
    (vault / "Bob.md").rename(vault / "Robert.md")
    await settle(watcher)
    await assert_verified(watcher)
    assert await graph_paths(core) == ["Friends/Alice.md", "Robert.md"]
    assert fake_ollama.embedded_texts() == ["Robert > Bob\n\n# Bob\n\nBob knows [[Alice]]."]


async def test_a_rename_then_an_edit_of_the_new_name_stays_a_rename(
    watcher: VaultWatcher, vault: Path, core: Core, fake_ollama: FakeOllama
) -> None:
    """The edit delays the new path past the old one's due time: the old path waits for the
    move instead of being deleted on its own (which made the move a new note)."""
    watcher.debounce = 1.0
    fake_ollama.calls.clear()
    (vault / "People/Alice.md").rename(vault / "People/Alicia.md")
    await asyncio.sleep(0.3)
    with (vault / "People/Alicia.md").open("a") as note:
        note.write("\n## Later\n\nAn edit right after the rename.\n")
    await settle(watcher, quiet=1.5)
    await assert_verified(watcher)
    assert await graph_paths(core) == ["Bob.md", "People/Alicia.md"]
    assert (await _alice_revisions(core))[1:] == [
        ("People/Alicia.md", "rename"),
        ("People/Alice.md", "renamed"),
    ]
    # Retitled, so the old section is embedded again with its new title, and the new one.
    assert len(fake_ollama.embedded_texts()) == 2


async def test_a_note_created_at_the_old_path_while_a_rename_is_written_is_ingested(
    watcher: VaultWatcher, vault: Path, core: Core
) -> None:
    """Its event comes while the rename is being written: it waits its own turn instead of
    being taken for the old path the rename consumed (and left for the next rescan)."""
    renames = watcher.ingestor.renames
    wait = 2.5 if watcher.status.mode == "polling" else 0.5  # for the new file's event

    async def slow_renames(moves: list[Move]) -> list[NoteOutcome]:
        for old, _, _ in moves:
            (vault / old).write_text("# Alice again\n\nA new note where the old one was.\n")
        await asyncio.sleep(wait)
        return await renames(moves)

    watcher.ingestor.renames = slow_renames  # type: ignore[method-assign]
    (vault / "People/Alice.md").rename(vault / "People/Alicia.md")
    await settle(watcher, quiet=1.5)
    await assert_verified(watcher)
    assert await graph_paths(core) == ["Bob.md", "People/Alice.md", "People/Alicia.md"]


async def test_a_rename_given_up_still_deletes_the_old_note(
    watcher: VaultWatcher, vault: Path, core: Core
) -> None:
    """The new path cannot be ingested (say, grown past the size limit): the old note, gone
    from the disk, still goes from the graph instead of staying as a ghost."""

    async def refused(moves: list[Move]) -> list[NoteOutcome]:
        raise NoteError(f"{moves[0][1]}: larger than the limit")

    watcher.ingestor.renames = refused  # type: ignore[method-assign]
    (vault / "People/Alice.md").rename(vault / "People/Alicia.md")
    await settle(watcher, quiet=1.5)
    assert await graph_paths(core) == ["Bob.md"]


async def test_a_rename_refused_once_is_tried_again_as_a_rename(
    watcher: VaultWatcher, vault: Path, core: Core, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The old path waits for the move's next try rather than being deleted in the same pass
    (which made the move a new note, embedded all again)."""
    monkeypatch.setattr(watching, "RETRY_GRAPH_S", 0.3)
    renames, failures = watcher.ingestor.renames, [GraphQueryError("refused once")]

    async def flaky(moves: list[Move]) -> list[NoteOutcome]:
        if failures:
            raise failures.pop()
        return await renames(moves)

    watcher.ingestor.renames = flaky  # type: ignore[method-assign]
    (vault / "People/Alice.md").rename(vault / "People/Alicia.md")
    await settle(watcher, quiet=1.5)
    assert not failures
    assert await graph_paths(core) == ["Bob.md", "People/Alicia.md"]
    assert (await _alice_revisions(core))[1:] == [
        ("People/Alicia.md", "rename"),
        ("People/Alice.md", "renamed"),
    ]


async def test_an_unexpected_failure_is_tried_again_and_the_watcher_goes_on(
    watcher: VaultWatcher, vault: Path, core: Core, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(watching, "RETRY_GRAPH_S", 0.3)
    upsert, failures = watcher.ingestor.upsert_path, [RuntimeError("a bug")]

    async def flaky(rel: str) -> NoteOutcome:
        if failures:
            raise failures.pop()
        return await upsert(rel)

    watcher.ingestor.upsert_path = flaky  # type: ignore[method-assign]
    put(vault, "Carol.md", "# Carol\n\nCarol knows [[Bob]].\n")
    await settle(watcher, quiet=1.5)
    assert not failures and watcher.status.errors >= 1
    assert await graph_paths(core) == ["Bob.md", "Carol.md", "People/Alice.md"]


async def test_a_file_name_that_is_not_utf8_is_skipped_and_the_watcher_goes_on(
    watcher: VaultWatcher, vault: Path, core: Core, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="knotwork")
    put(vault, "good.md", "# Bad\n")
    os.rename(vault / "good.md", os.path.join(os.fsencode(vault), b"bad\xff.md"))
    put(vault, "Carol.md", "# Carol\n\nA note.\n")
    await settle(watcher)
    # Named as its event is read, once, not only by the next rescan.
    said = [r.getMessage() for r in caplog.records if "bad\\udcff.md" in r.getMessage()]
    assert len(said) == 1 and said[0].startswith("not ingested: "), said
    await watcher.rescan()
    # A file not ingested (an error of the sync's report, in the watcher's log), not a failure.
    assert any("not valid UTF-8" in e for e in watcher.last_report.errors)
    assert await graph_paths(core) == ["Bob.md", "Carol.md", "People/Alice.md"]


async def test_the_vault_folder_deleted_and_made_again_is_followed(
    watcher: VaultWatcher, vault: Path, core: Core, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(watching, "RETRY_GRAPH_S", 0.3)
    saved = {p: (vault / p).read_text() for p in ("Bob.md", "People/Alice.md")}
    shutil.rmtree(vault)
    await asyncio.sleep(1.5)
    for rel, text in saved.items():
        put(vault, rel, text)  # the folder made again
    await settle(watcher, quiet=2.5)  # the new folder followed and rescanned
    before = watcher.status.events
    put(vault, "Carol.md", "# Carol\n\nA note written once the folder is back.\n")
    await settle(watcher, since=before)  # its event came: the watcher is not deaf
    assert await graph_paths(core) == ["Bob.md", "Carol.md", "People/Alice.md"]


async def test_move_out_of_the_vault_deletes(
    watcher: VaultWatcher, vault: Path, core: Core, tmp_path: Path
) -> None:
    before = watcher.status.events
    shutil.move(str(vault / "Bob.md"), str(tmp_path / "Bob.md"))
    await settle(watcher, since=before)
    await assert_verified(watcher)
    assert await graph_paths(core) == ["People/Alice.md"]
    before = watcher.status.events
    shutil.move(str(tmp_path / "Bob.md"), str(vault / "Bob.md"))  # and back in
    await settle(watcher, since=before)
    assert await graph_paths(core) == ["Bob.md", "People/Alice.md"]


async def test_burst_of_500_writes(watcher: VaultWatcher, vault: Path, core: Core) -> None:
    """500 writes to 100 notes as fast as the disk takes them (no wall-clock bound here: a
    busy machine writes slower, and speed is the benchmarks' to measure): every note lands
    once, in its last version."""
    for i in range(500):
        (vault / f"burst{i % 100}.md").write_text(f"# Burst {i}\n\nLinks to [[burst{i % 7}]].\n")
    await settle(watcher, limit_s=180)
    await assert_verified(watcher)
    assert len(await graph_paths(core)) == 102


async def test_second_watcher_is_refused_and_told_who_holds_the_lease(
    watcher: VaultWatcher, core: Core
) -> None:
    second = VaultWatcher(watcher.ingestor, Lease(core.store, "w", 5))
    with pytest.raises(LeaseHeldError, match=r"being written by .*pid \d+, mode (inotify|polling)"):
        await second.run()
    status = await lease_status(core.store, "w")
    assert status and status["live"] and status["holder"] == watcher.lease.holder


async def test_a_watcher_started_on_a_missing_folder_says_so(core: Core, tmp_path: Path) -> None:
    """Not a bare errno from the file observer: the vault error `ingest` gives, naming it."""
    missing = tmp_path / "nowhere"
    watcher = VaultWatcher(Ingestor(core, root=missing, vault="w"), Lease(core.store, "w", 5))
    with pytest.raises(VaultUnavailableError, match=f"the vault folder {missing} does not exist"):
        await watcher.run()


def test_sigkill_mid_ingest_then_changes_then_restart(
    settings: Settings, tmp_path: Path, empty_db: object
) -> None:
    vault = tmp_path / "big"
    vault.mkdir()
    for i in range(300):
        (vault / f"n{i:03d}.md").write_text(
            f"# N{i}\n\nN{i} works with [[n{(i + 1) % 300:03d}]].\n"
        )
    env = {
        **os.environ,
        "KNOTWORK_NEO4J_URI": settings.neo4j_uri,
        "KNOTWORK_NEO4J_PASSWORD": settings.password(),
        "KNOTWORK_OLLAMA_BASE_URL": settings.ollama_base_url,
        "KNOTWORK_VAULT_NAME": "k",
        "KNOTWORK_EXTRACT": "false",
        "KNOTWORK_LEASE_TTL_S": "5",
        "KNOTWORK_WATCH_DEBOUNCE_MS": "100",
    }
    cmd = [sys.executable, "-m", "knotwork.cli", "watch", str(vault)]
    first = subprocess.Popen(
        cmd, env=env, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    time.sleep(6)  # the initial reconcile is under way
    first.send_signal(signal.SIGKILL)
    first.wait()
    (vault / "n001.md").write_text("# N1\n\nChanged while the watcher was down.\n")
    (vault / "n002.md").rename(vault / "renamed.md")
    (vault / "n003.md").unlink()
    time.sleep(6)  # the dead watcher's lease (5 s) lapses; a live one would refuse us
    second = subprocess.Popen(
        cmd, env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        verified = None
        for _ in range(10):  # the reconcile takes a while here; verify itself is heavy
            time.sleep(15)
            assert second.poll() is None, second.stderr.read() if second.stderr else ""
            verified = subprocess.run(
                [sys.executable, "-m", "knotwork.cli", "verify", str(vault)],
                env=env,
                cwd=tmp_path,
                capture_output=True,
                text=True,
            )
            if verified.returncode == 0:
                break
        assert verified is not None and verified.returncode == 0, verified.stdout[-3000:]
    finally:
        second.send_signal(signal.SIGTERM)
        second.wait(timeout=30)
    assert second.returncode == 0


async def test_queue_overflow_drops_events_and_rescans(core: Core, vault: Path) -> None:
    """With a bound of 20, both overflows happen — events piling up unread while the loop is
    busy, and paths piling up behind the debounce — and each time the pending work is dropped,
    the whole vault is rescanned, and the graph ends equal to the vault."""
    running, task = await started(
        core, vault, watch_debounce_ms=2000, watch_rescan_s=0, watch_queue_max=20
    )
    try:
        for i in range(60):
            (vault / f"flood{i:02d}.md").write_text(f"# Flood {i}\n\nSee [[flood{i + 1:02d}]].\n")
        (vault / "Bob.md").unlink()
        # The loop is busy (as with a slow ingest): watchdog's events pile up unread.
        time.sleep(1.5)  # noqa: ASYNC251
        await settle(running, quiet=2.5)
        assert running.status.overflows == 1, running.status
        assert "events waiting" in (running.status.last_overflow or "")
        await assert_verified(running)
        assert len(await graph_paths(core)) == 61

        # Read promptly, but each waits out its debounce: here long, so that the paths pile up
        # however slowly a busy machine writes them (within 2 s, they were applied as they came).
        running.debounce = 60.0
        for i in range(40):
            (vault / f"flood{i:02d}.md").write_text(f"# Flood {i}\n\nEdited.\n")
            await asyncio.sleep(0.02)
        running.debounce = 2.0
        for item in running.pending.values():  # what came once the rescan began: due now
            item.due = time.monotonic()
        await settle(running, quiet=2.5)
        assert running.status.overflows >= 2, running.status
        assert "paths waiting" in (running.status.last_overflow or "")
        await assert_verified(running)
        for _ in range(50):  # the heartbeat carries it to the lease, which /health shows
            status = await lease_status(core.store, "w")
            if status and status.get("overflows") == running.status.overflows:
                break
            await asyncio.sleep(0.2)
        assert status and status["overflows"] >= 2 and "rescanned" in status["last_overflow"]
    finally:
        running.stop()
        await asyncio.wait_for(task, 30)


async def test_inotify_overflow_reported_by_watchdog_triggers_a_rescan(
    watcher: VaultWatcher, vault: Path
) -> None:
    """watchdog surfaces the kernel's IN_Q_OVERFLOW only as a warning on its inotify logger (it
    rebuilds its watches, hands no event on); that warning is what starts the rescan."""
    rescans = watcher.status.rescans
    logging.getLogger(INOTIFY_LOGGER).warning(
        "Inotify queue overflowed; filesystem events were lost"
    )
    await settle(watcher)
    assert watcher.status.overflows == 1 and watcher.status.rescans == rescans + 1
    assert "IN_Q_OVERFLOW" in (watcher.status.last_overflow or "")
    await assert_verified(watcher)


async def test_symlinked_notes_are_never_ingested(
    watcher: VaultWatcher, vault: Path, core: Core
) -> None:
    """A link to a note or a folder inside the vault is not followed: the graph never records a
    link's name with its target's text, and a note replaced by a link leaves the graph."""
    (vault / "Carol.md").write_text("# Carol\n\nCarol knows [[Bob]].\n")
    os.symlink("Bob.md", vault / "boblink.md")
    os.symlink("People", vault / "Linked")
    await settle(watcher)
    assert await graph_paths(core) == ["Bob.md", "Carol.md", "People/Alice.md"]
    (vault / "Carol.md").unlink()
    os.symlink("Bob.md", vault / "Carol.md")
    await settle(watcher)
    assert await graph_paths(core) == ["Bob.md", "People/Alice.md"]
    await assert_verified(watcher)


async def test_the_watcher_finishes_chunks_left_pending_once_the_model_answers(
    core: Core, vault: Path, fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`knotwork retry` cannot run beside a watcher (it holds the lease): the watcher does it."""
    monkeypatch.setattr(modelcalls, "MODEL_BACKOFF_S", 0.5)
    fake_ollama.down = True
    fast = dataclasses.replace(
        core, settings=core.settings.model_copy(update={"watch_rescan_s": 0, "lease_ttl_s": 5})
    )
    running = VaultWatcher(
        Ingestor(fast, root=vault, vault="w", extract_enabled=False), Lease(fast.store, "w", 5)
    )
    running.retry_s = 0.5
    ready = asyncio.Event()
    task = asyncio.create_task(running.run(ready=ready))
    try:
        await asyncio.wait_for(ready.wait(), 60)
        pending = await core.store.read(
            CHUNKS_PENDING, vault="w", extract=True, limit=100, asked_before=int(time.time() * 1000)
        )
        assert len(pending) >= 2, "the start-up sync left every chunk waiting for its embedding"
        fake_ollama.down = False
        for _ in range(120):
            if not await core.store.read(
                CHUNKS_PENDING,
                vault="w",
                extract=True,
                limit=100,
                asked_before=int(time.time() * 1000),
            ):
                break
            await asyncio.sleep(0.5)
        assert (
            await core.store.read(
                CHUNKS_PENDING,
                vault="w",
                extract=True,
                limit=100,
                asked_before=int(time.time() * 1000),
            )
            == []
        )
        assert not task.done(), "the watcher still follows the vault"
    finally:
        running.stop()
        await asyncio.wait_for(task, 30)


async def test_a_folder_appearing_inside_an_ignored_one_is_not_ingested(
    watcher: VaultWatcher, vault: Path, core: Core, tmp_path: Path
) -> None:
    """A folder moved into .trash from outside the vault, a package unpacked in node_modules:
    their notes lie in ignored folders whatever way they came."""
    (vault / ".trash").mkdir()
    (vault / "node_modules").mkdir()
    await settle(watcher)
    outside = tmp_path / "old"
    put(outside, "Old.md", "# Old\n\nKept out.\n")
    unpacked = tmp_path / "pkg"
    put(unpacked, "README.md", "# Package\n\nKept out too.\n")
    before = watcher.status.events
    shutil.move(str(outside), str(vault / ".trash/old"))
    shutil.move(str(unpacked), str(vault / "node_modules/pkg"))
    await settle(watcher, since=before)
    assert await graph_paths(core) == ["Bob.md", "People/Alice.md"]


async def test_a_note_name_with_a_backslash_is_skipped_and_touches_no_other_note(
    watcher: VaultWatcher, vault: Path, core: Core
) -> None:
    """On Linux "People\\Alice.md" is a file of its own; read as a path it would be
    People/Alice.md, whose note its delete would remove."""
    before_text = await stored_notes(core, "w")
    before = watcher.status.events
    put(vault, "People\\Alice.md", "# Not Alice\n")
    await settle(watcher, since=before)
    await watcher.rescan()
    assert any("backslash" in e for e in watcher.last_report.errors)
    before = watcher.status.events
    (vault / "People\\Alice.md").unlink()
    await settle(watcher, since=before)
    assert await graph_paths(core) == ["Bob.md", "People/Alice.md"]
    assert await stored_notes(core, "w") == before_text


async def test_a_note_name_with_a_c1_control_or_line_separator_is_skipped_and_said_escaped(
    watcher: VaultWatcher, vault: Path, core: Core, caplog: pytest.LogCaptureFixture
) -> None:
    """A name "Ali\\x85ce.md" shows as "Alice.md", and a U+2028 in a name would start a forged line
    in a log viewer that breaks on it: neither is ingested, and the log names them escaped."""
    caplog.set_level(logging.INFO, logger="knotwork")
    before = watcher.status.events
    put(vault, "People/Ali\x85ce.md", "# Impostor\n")
    put(vault, "Forged\u20282026 INFO all good.md", "# Forged\n")
    await settle(watcher, since=before)
    await watcher.rescan()
    errors = [e for e in watcher.last_report.errors if "control character" in e]
    assert len(errors) == 2 and any("Ali\\x85ce.md" in e for e in errors), errors
    assert any("Forged\\u20282026" in e for e in errors), errors
    assert await graph_paths(core) == ["Bob.md", "People/Alice.md"]
    logged = [r.getMessage() for r in caplog.records]
    assert not [m for m in logged if "\x85" in m or "\u2028" in m], logged


async def test_a_change_still_waiting_when_the_watcher_stops_is_applied(
    core: Core, vault: Path
) -> None:
    running, task = await started(
        core, vault, watch_debounce_ms=60_000, watch_rescan_s=0, lease_ttl_s=5
    )
    before = running.status.events
    put(vault, "Carol.md", "# Carol\n\nWritten just before the watcher stops.\n")
    deadline = time.monotonic() + 30
    while not running.pending:
        if time.monotonic() > deadline:
            raise AssertionError("the write was never seen")
        await asyncio.sleep(0.05)
    assert running.status.events > before  # seen, and waiting out its debounce
    running.stop()
    await asyncio.wait_for(task, 30)
    assert await graph_paths(core) == ["Bob.md", "Carol.md", "People/Alice.md"]


async def test_a_folder_copied_in_just_before_the_watcher_stops_is_applied(
    core: Core, vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The notes of a folder that appeared are listed in a thread (watch/created.py); a stop
    while that listing runs waits for it and applies its notes, as it applies a change still
    waiting, and leaves no listing running after the watcher."""
    listing, release = threading.Event(), threading.Event()
    below = watch_created.notes_below

    def slow_below(root: Path, folders: set[str]) -> list[str]:
        listing.set()
        release.wait(30)
        return below(root, folders)

    monkeypatch.setattr(watch_created, "notes_below", slow_below)
    running, task = await started(
        core, vault, watch_debounce_ms=60_000, watch_rescan_s=0, lease_ttl_s=5
    )
    made = vault.with_name("made")
    put(made, "Team/Dora.md", "# Dora\n\nIn a folder copied into the vault.\n")
    os.rename(made / "Team", vault / "Team")
    assert await asyncio.to_thread(listing.wait, 30), "the new folder was never listed"
    # Its note's own event dropped, as inotify drops those of a folder made too fast to
    # watch (`mkdir -p`, an unpacked archive): only the listing finds the note.
    deadline = time.monotonic() + 10
    while "Team/Dora.md" not in running.pending:
        if time.monotonic() > deadline:
            break  # never seen by its own event: the listing alone must find it
        await asyncio.sleep(0.05)
    for _ in range(3):  # an event of the note's late in coming dropped too
        running.pending.pop("Team/Dora.md", None)
        await asyncio.sleep(0.1)
    assert "Team/Dora.md" not in running.pending
    running.stop()
    await asyncio.sleep(0.3)  # the stop under way, the listing still running
    release.set()
    await asyncio.wait_for(task, 30)
    assert await graph_paths(core) == ["Bob.md", "People/Alice.md", "Team/Dora.md"]
    assert not running._created.busy  # no listing left running after the watcher


async def synced_not_running(core: Core, vault: Path) -> VaultWatcher:
    """A watcher of vault "w", synced and not started: a test feeds its changes by hand."""
    ingestor = Ingestor(core, root=vault, vault="w", extract_enabled=False)
    await sync_vault(ingestor)
    return VaultWatcher(ingestor, Lease(core.store, "w", 5))


async def test_a_note_missing_while_the_folder_is_away_waits_and_is_not_deleted(
    core: Core, vault: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A drive unmounted or a folder moved away: the notes it no longer shows are not known
    to be gone, so their changes wait for it (said once) and apply once it is back."""
    caplog.set_level(logging.INFO, logger="knotwork")
    running = await synced_not_running(core, vault)
    away = vault.with_name("away")
    os.rename(vault, away)
    for _ in range(2):  # tried twice: said once
        now = time.monotonic()
        running.pending.setdefault("Bob.md", Pending(now, now)).due = now
        await running._process_due()
    assert await graph_paths(core) == ["Bob.md", "People/Alice.md"]
    assert "Bob.md" in running.pending
    said = [r.getMessage() for r in caplog.records if "unavailable" in r.getMessage()]
    assert len(said) == 1 and said[0].startswith("the vault folder unavailable (does not exist)")
    os.rename(away, vault)
    os.unlink(vault / "Bob.md")  # now it is gone, in a folder that shows
    running.pending["Bob.md"].due = time.monotonic()
    await running._process_due()
    assert await graph_paths(core) == ["People/Alice.md"] and not running.pending
    assert any("the vault folder reachable again" in r.getMessage() for r in caplog.records)


async def test_a_folder_left_empty_is_an_unmounted_drive_until_a_file_says_otherwise(
    core: Core, vault: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A drive unmounted leaves its mount point, another and empty folder, and a polling
    observer then reports every note deleted: the deletes wait, as a sync refuses them, until
    the folder shows anything again (the drive back, or a file saying the notes are gone)."""
    caplog.set_level(logging.INFO, logger="knotwork")
    running = await synced_not_running(core, vault)
    hidden = vault.with_name("drive")
    shutil.move(vault, hidden)
    os.mkdir(vault)  # the mount point, the drive away
    running.status.folder_id = folder_key(vault)  # followed within a second, said as followed
    running.folder.remember_full(folder_id(vault))  # looked at every second: empty, not kept
    running.folder.followed = folder_id(vault)
    running.folder_replaced()  # empty: a mount point, its deletes wait, not judged
    now = time.monotonic()
    for rel in ("Bob.md", "People/Alice.md"):
        running.pending[rel] = Pending(now, now)
    await running._process_due()
    assert await graph_paths(core) == ["Bob.md", "People/Alice.md"]
    assert set(running.pending) == {"Bob.md", "People/Alice.md"}
    said = [r.getMessage() for r in caplog.records if "unavailable" in r.getMessage()]
    assert len(said) == 1 and "is empty while the graph holds 2 notes of vault 'w'" in said[0]
    (vault / ".keep").write_text("")  # the notes are gone for good
    for item in running.pending.values():
        item.due = time.monotonic()
    await running._process_due()
    assert await graph_paths(core) == [] and not running.pending


async def test_a_polling_watcher_keeps_the_notes_of_a_drive_unmounted(
    core: Core, vault: Path
) -> None:
    """End to end: the polling observer sees every note gone and the watcher follows the empty
    mount point, yet no note is deleted; a file in the folder says they are gone."""
    running, task = await started(
        core, vault, watch_debounce_ms=100, watch_rescan_s=0, lease_ttl_s=5, watch_polling=True
    )
    try:
        before = running.status.events
        shutil.move(vault, vault.with_name("drive"))
        os.mkdir(vault)  # the mount point, the drive away
        deadline = time.monotonic() + 30
        while running.status.events == before or running.status.folder_id != folder_key(vault):
            assert time.monotonic() < deadline, "the unmount was not seen"
            await asyncio.sleep(0.2)
        await asyncio.sleep(watching.RETRY_GRAPH_S + 2)  # a try, and its retry once followed
        assert await graph_paths(core) == ["Bob.md", "People/Alice.md"]
        (vault / ".keep").write_text("")
        while await graph_paths(core):
            assert time.monotonic() < deadline + 30, "the deletes never applied"
            await asyncio.sleep(0.5)
    finally:
        running.stop()
        await asyncio.wait_for(task, 30)


async def test_the_followed_folder_emptied_of_its_notes_deletes_them(
    core: Core, vault: Path
) -> None:
    """The last notes deleted (through the API, or by hand) leave the followed folder itself
    empty: that is no drive away, and their deletes apply."""
    running = await synced_not_running(core, vault)
    for rel in ("Bob.md", "People/Alice.md"):
        os.unlink(vault / rel)
    os.rmdir(vault / "People")
    now = time.monotonic()
    for rel in ("Bob.md", "People/Alice.md"):
        running.pending[rel] = Pending(now, now)
    await running._process_due()
    assert await graph_paths(core) == [] and not running.pending


async def test_a_stopping_watcher_says_so_before_its_last_flush(
    core: Core, vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """From its stop on, the lease no longer says it watches: REST writes are refused, not left
    to a watcher that may not see them."""
    running, task = await started(
        core, vault, watch_debounce_ms=100, watch_rescan_s=0, lease_ttl_s=5
    )
    assert (await lease_status(core.store, "w") or {})["watches"] is True
    seen: list[dict[str, object] | None] = []
    flush = running._flush

    async def spying() -> None:
        seen.append(await lease_status(core.store, "w"))
        await flush()

    monkeypatch.setattr(running, "_flush", spying)
    running.stop()
    await asyncio.wait_for(task, 30)
    assert seen and seen[0] is not None and seen[0]["watches"] is False


async def followed_again(core: Core, task: asyncio.Task[None], path: str) -> None:
    """Wait until ``path``, written while the watcher had lost its lease, is in the graph: the
    watcher took the lease back and rescanned, and never ended meanwhile."""
    deadline = time.monotonic() + 60
    while path not in await graph_paths(core):
        assert time.monotonic() < deadline, f"the watcher did not rescan {path} in 60 s"
        assert not task.done(), task.exception() if task.done() else None
        await asyncio.sleep(0.2)


async def test_a_lease_taken_by_a_writer_that_does_not_watch_is_taken_back_after_it(
    core: Core, vault: Path
) -> None:
    """An outage longer than the lease's TTL lets the API's journal replay take the lease when
    Neo4j is back: the watcher waits for it to finish, takes the lease back and rescans — it
    does not stop (which stopped `scripts/run`'s whole stack). Another watcher's is refused."""
    watcher, task = await started(core, vault, watch_debounce_ms=100, watch_rescan_s=0)
    replay = Lease(core.store, "w", 5)
    await watcher.lease.release()  # as if it had lapsed while Neo4j was away
    await replay.acquire({"mode": "rest-write", "watches": False})
    put(vault, "During.md", "# During\n\nWritten while the replay held the lease.\n")
    await asyncio.sleep(5)  # past a heartbeat: the watcher finds its lease taken
    assert not task.done(), task.exception() if task.done() else None
    assert "During.md" not in await graph_paths(core)  # the watcher writes nothing meanwhile
    await replay.release()
    await followed_again(core, task, "During.md")
    status = await lease_status(core.store, "w")
    assert status and status["live"] and status["holder"] == watcher.lease.holder
    put(vault, "After.md", "# After\n\nEdited once the watcher followed again.\n")
    await settle(watcher)
    assert "After.md" in await graph_paths(core)

    other = Lease(core.store, "w", 5)
    await watcher.lease.release()
    await other.acquire({"mode": "inotify", "watches": True})  # a second watcher: not waited for
    with pytest.raises(LeaseLostError, match=other.holder):
        await asyncio.wait_for(task, 30)


async def test_neo4j_away_again_as_the_lease_is_taken_back_is_waited_out(
    core: Core, vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rescan after taking the lease back meets Neo4j away, and giving the lease back
    fails too: the lease is still this watcher's, which it takes again, not an error blaming
    the writer that held it before."""
    watcher, task = await started(core, vault, watch_debounce_ms=100, watch_rescan_s=0)
    replay = Lease(core.store, "w", 5)
    await watcher.lease.release()
    await replay.acquire({"mode": "rest-write", "watches": False})
    rescan, release = watcher.rescan, watcher.lease.release
    failures = {"rescan": 1, "release": 1}

    async def away_once(name: str, real: Any, *args: Any, **kwargs: Any) -> Any:
        if failures[name]:
            failures[name] -= 1
            raise GraphUnavailableError("Neo4j is not reachable: (a test's outage)")
        return await real(*args, **kwargs)

    monkeypatch.setattr(watcher, "rescan", lambda *a, **k: away_once("rescan", rescan, *a, **k))
    monkeypatch.setattr(
        watcher.lease, "release", lambda *a, **k: away_once("release", release, *a, **k)
    )
    put(vault, "Later.md", "# Later\n\nWritten while the lease was away.\n")
    await asyncio.sleep(3)  # past a heartbeat: the lease found taken
    await replay.release()
    await followed_again(core, task, "Later.md")
    assert failures == {"rescan": 0, "release": 0}
    status = await lease_status(core.store, "w")
    assert status and status["holder"] == watcher.lease.holder
    watcher.stop()
    await asyncio.wait_for(task, 30)


async def test_a_note_that_cannot_be_read_is_logged_naming_it_once(
    core: Core, vault: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A note's own error names it already: the log read "w.md: w.md: looks binary …"."""
    caplog.set_level(logging.WARNING, logger="knotwork.watch")
    running = await synced_not_running(core, vault)
    (vault / "Bob.md").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
    now = time.monotonic()
    running.pending.setdefault("Bob.md", Pending(now, now)).due = now
    await running._process_due()
    [said] = [r.getMessage() for r in caplog.records if "binary" in r.getMessage()]
    assert said.startswith("Bob.md: ") and not said.startswith("Bob.md: Bob.md"), said
    assert running.status.errors == 1


async def test_the_terminal_says_what_each_pass_wrote(
    watcher: VaultWatcher, vault: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A user watching the terminal sees an edit, a move and a delete land, one line per pass,
    and a burst as one line with a count, not a line per note."""
    caplog.set_level(logging.INFO, logger="knotwork")

    def said() -> list[str]:
        return [r.getMessage() for r in caplog.records if r.name == "knotwork.watch.said"]

    before = watcher.status.events
    (vault / "Bob.md").write_text("# Bob\n\nBob knows [[Alice]] well.\n")
    await settle(watcher, since=before)
    before = watcher.status.events
    (vault / "Bob.md").rename(vault / "Robert.md")
    await settle(watcher, since=before)
    before = watcher.status.events
    (vault / "Robert.md").unlink()
    await settle(watcher, since=before)
    (vault / "Burst").mkdir()
    before = watcher.status.events
    for n in range(8):
        (vault / f"Burst/n{n}.md").write_text(f"# N{n}\n")
    await settle(watcher, since=before)
    lines = said()
    assert "written Bob.md" in lines, lines
    assert "moved Bob.md → Robert.md" in lines, lines
    assert "deleted Robert.md" in lines, lines
    burst = [line for line in lines if "Burst/" in line]
    assert burst and all(line.startswith("written ") for line in burst), burst
    assert sum(int(line.split()[1].rstrip(":")) if ":" in line else 1 for line in burst) == 8
    assert all(len(line) < 200 for line in burst), burst


async def _reembedded(core: Core, fake_ollama: FakeOllama) -> None:
    """The graph switched to all-minilm (384), as `knotwork reembed` run elsewhere does."""
    fake_ollama.models["all-minilm:latest"] = 384
    other = core.settings.model_copy(update={"embed_model": "all-minilm", "embed_dimension": 384})
    async with open_core(other) as switched:
        await schema.reembed(switched.store, other, switched.embedder.aget_text_embedding_batch)


@pytest.mark.parametrize("via", ["change", "model work"])
async def test_a_graph_reembedded_under_the_watcher_stops_it_saying_why(
    core: Core, vault: Path, fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch, via: str
) -> None:
    """It went on embedding with its own model: vectors the switched index ignores. A change,
    or the chunks a model left pending, meets the refusal: the watcher stops, not loops."""
    monkeypatch.setattr(core_module, "MANIFEST_RECHECK_S", 0.0)  # the bound: tests/unit
    running, task = await started(core, vault, watch_debounce_ms=100, watch_rescan_s=0)
    running.retry_s = 0.2
    try:
        await _reembedded(core, fake_ollama)
        if via == "change":
            put(vault, "Carol.md", "# Carol\n\nCarol joined after the switch.\n")
        else:
            await ad_hoc(core, "MATCH (c:Chunk) SET c.embedding_state = 'pending'", {}, write=True)
        with pytest.raises(ManifestMismatchError, match="Restart it"):
            await asyncio.wait_for(task, 30)
    finally:
        running.stop()
        await asyncio.wait_for(asyncio.gather(task, return_exceptions=True), 30)
    assert "Carol.md" not in await stored_notes(core, "w")
    assert (running.model_work.refused is not None) == (via == "model work")
    sizes = await ad_hoc(
        core, "MATCH (c:Chunk) RETURN DISTINCT size(c.embedding) AS d", {}, write=False
    )
    assert sizes == [{"d": 384}], "a vector of the old model was stored"
