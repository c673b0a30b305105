"""The watcher through a Neo4j outage (a TCP proxy cut in front of the real server): the
changes made while the graph is down wait and reach it once it is back, a rescan that fails
is tried again, and the watcher never stops."""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path

from knotwork.check.verify import verify_vault
from knotwork.core import Core, open_core
from knotwork.graph.lease import Lease, lease_status
from knotwork.ingest.ingestor import Ingestor
from knotwork.settings import Settings
from knotwork.vault.folders import follows
from knotwork.watch import apply as watching
from knotwork.watch.watcher import VaultWatcher
from tests.integration.conftest import ad_hoc, put, stored_notes
from tests.integration.server import TcpProxy


async def _until(condition, limit_s: float = 60) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + limit_s
    while not condition():
        assert time.monotonic() < deadline, "not within the time allowed"
        await asyncio.sleep(0.1)


def _through(settings: Settings, proxy: TcpProxy) -> Settings:
    """Settings reaching Neo4j through the proxy, quick to call an outage one."""
    update = {
        "neo4j_uri": f"bolt://127.0.0.1:{proxy.port}",
        "watch_debounce_ms": 100,
        "watch_rescan_s": 0,
        "lease_ttl_s": 30,
        "neo4j_unavailable_after_s": 0.5,
    }
    return settings.model_copy(update=update)


async def _started(
    core: Core, vault: Path, retry_s: float | None = None, ttl_s: float = 30
) -> tuple[VaultWatcher, asyncio.Task[None]]:
    """A watcher of vault "w" run until its start-up reconcile is done."""
    ingestor = Ingestor(core, root=vault, vault="w", extract_enabled=False)
    running = VaultWatcher(ingestor, Lease(core.store, "w", ttl_s))
    if retry_s is not None:
        running.retry_s = retry_s
    ready = asyncio.Event()
    task = asyncio.create_task(running.run(ready=ready))
    await asyncio.wait_for(ready.wait(), 60)
    return running, task


async def test_changes_and_a_rescan_during_an_outage_reach_the_graph_once_it_is_back(
    core: Core, settings: Settings, vault: Path, proxy: TcpProxy, monkeypatch, caplog
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(watching, "RETRY_GRAPH_S", 0.5)
    caplog.set_level(logging.INFO, logger="knotwork")
    put(vault, "Alice.md", "# Alice\n\nAlice works with [[Bob]].\n")
    put(vault, "Bob.md", "# Bob\n\nAn engineer.\n")
    async with open_core(_through(settings, proxy)) as proxied:
        running, task = await _started(proxied, vault)
        cut = False
        try:
            assert sorted(await stored_notes(core, "w")) == ["Alice.md", "Bob.md"]
            # Its lease says which folder it follows: REST writes are left to it only there.
            held = await lease_status(core.store, "w")
            resolved = await asyncio.to_thread(vault.resolve)
            assert held and held["folder"] == str(resolved) and follows(held, vault)
            assert not follows(held, vault.parent)
            proxy.cut()
            cut = True
            put(vault, "Carol.md", "# Carol\n\nCarol knows [[Alice]].\n")
            put(vault, "Bob.md", "# Bob\n\nAn engineer who knows [[Carol]].\n")
            (vault / "Alice.md").unlink()
            # Each change is tried, fails on the graph and waits: none is dropped.
            await _until(lambda: running.status.events >= 3)
            await asyncio.sleep(2.0)  # several tries, each failing on the graph
            # Between two tries every change waits (while one is tried, it is off the list).
            await _until(lambda: {"Carol.md", "Bob.md", "Alice.md"} <= set(running.pending))
            assert not task.done()
            assert sorted(await stored_notes(core, "w")) == ["Alice.md", "Bob.md"]
            running._rescan.set()  # an overflow's rescan, while the graph is down
            await _until(lambda: (running.status.warning or "").startswith("rescan failed"))
            assert not task.done()
            # Said once, not once a try (the changes and the rescan were tried many times).
            said = [r for r in caplog.records if "unavailable" in r.getMessage()]
            assert len(said) == 1 and said[0].levelno == logging.WARNING, said
            assert said[0].getMessage().startswith("Neo4j unavailable (")

            proxy.restore()
            cut = False
            await _until(lambda: not running.pending and running.status.warning is None)
            assert sorted(await stored_notes(core, "w")) == ["Bob.md", "Carol.md"]
            assert await verify_vault(running.ingestor) == []
            back = [r.getMessage() for r in caplog.records if "reachable again" in r.getMessage()]
            assert len(back) == 1 and back[0].startswith("Neo4j reachable again after"), back
        finally:
            if cut:
                proxy.restore()
            running.stop()
            await asyncio.wait_for(task, 30)


async def test_the_periodic_retry_alone_says_an_outage_began_and_ended(
    core: Core, settings: Settings, vault: Path, proxy: TcpProxy, caplog
) -> None:  # type: ignore[no-untyped-def]
    """With nothing changed in the folder, the retry of pending model work is the watcher's
    only use of the graph: it says the outage once and its end once."""
    caplog.set_level(logging.INFO, logger="knotwork")
    put(vault, "Alice.md", "# Alice\n\nAn engineer.\n")
    async with open_core(_through(settings, proxy)) as proxied:
        running, task = await _started(proxied, vault, retry_s=0.2)
        cut = False

        def said(words: str) -> list[logging.LogRecord]:
            return [r for r in caplog.records if words in r.getMessage()]

        try:
            proxy.cut()
            cut = True
            await _until(lambda: bool(said("unavailable")))
            await asyncio.sleep(1.5)  # several more tries, each failing
            assert len(said("unavailable")) == 1, said("unavailable")
            assert said("unavailable")[0].getMessage().startswith("Neo4j unavailable (")
            assert "the chunks a model left pending wait" in said("unavailable")[0].getMessage()
            assert not said("reachable again") and not task.done()
            proxy.restore()
            cut = False
            await _until(lambda: bool(said("reachable again")))
            await asyncio.sleep(0.6)  # more tries, each succeeding: the end said once
            back = said("reachable again")
            assert len(back) == 1 and back[0].getMessage().startswith("Neo4j reachable again")
            assert running.outage.since is None
        finally:
            if cut:
                proxy.restore()
            running.stop()
            await asyncio.wait_for(task, 30)


async def test_the_lease_heartbeat_and_the_writes_say_an_outage_once_between_them(
    core: Core, settings: Settings, vault: Path, proxy: TcpProxy, caplog
) -> None:  # type: ignore[no-untyped-def]
    """The heartbeat renewing the watcher's lease meets the outage too, every ttl/3 s: it says
    it through the watcher's own report, so the terminal shows one warning and one line when
    it ends, not one of each from both."""
    caplog.set_level(logging.INFO, logger="knotwork")
    put(vault, "Alice.md", "# Alice\n\nAn engineer.\n")
    async with open_core(_through(settings, proxy)) as proxied:
        running, task = await _started(proxied, vault, ttl_s=3)  # a renewal every second
        cut = False

        def said(words: str, level: int = logging.INFO) -> list[logging.LogRecord]:
            return [r for r in caplog.records if words in r.getMessage() and r.levelno >= level]

        try:
            proxy.cut()
            cut = True
            put(vault, "Bob.md", "# Bob\n\nKnows [[Alice]].\n")  # a change waits too
            await _until(lambda: bool(said("unavailable")))
            await asyncio.sleep(2.5)  # renewals and tries, each failing
            assert len(said("unavailable", logging.WARNING)) == 1, said("unavailable")
            assert not said("lease heartbeat", logging.WARNING), said("lease heartbeat")
            proxy.restore()
            cut = False
            await _until(lambda: not running.pending and bool(said("reachable again")))
            await asyncio.sleep(1.5)  # more renewals, each succeeding
            assert len(said("reachable again")) == 1, said("reachable again")
            assert not said("lease heartbeat"), said("lease heartbeat")
            assert sorted(await stored_notes(core, "w")) == ["Alice.md", "Bob.md"]
        finally:
            if cut:
                proxy.restore()
            running.stop()
            await asyncio.wait_for(task, 30)


async def test_a_folder_moved_then_its_notes_edited_while_neo4j_is_down_stays_moves(
    core: Core, settings: Settings, vault: Path, proxy: TcpProxy, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """The folder's move asks for a rescan, which would take the moves waiting and find moves
    by content alone: it waits until they are written. Edits read meanwhile keep each note's
    move: every note is renamed, none deleted and made anew."""
    monkeypatch.setattr(watching, "RETRY_GRAPH_S", 0.5)
    for i in range(12):
        put(vault, f"A/n{i:02d}.md", f"# N{i}\n\nNote {i} on the lake.\n")
    async with open_core(_through(settings, proxy)) as proxied:
        running, task = await _started(proxied, vault)
        cut = False
        try:
            proxy.cut()
            cut = True
            (vault / "A").rename(vault / "B")
            await _until(lambda: running.status.events >= 1)
            await asyncio.sleep(1.0)  # the moves and the rescan tried, failing
            for i in range(12):
                with (vault / f"B/n{i:02d}.md").open("a", encoding="utf-8") as note:
                    note.write("Edited after the move.\n")
                await asyncio.sleep(0.25)
            proxy.restore()
            cut = False
            await _until(
                lambda: (
                    running.idle
                    and running._rescan_retry_at is None
                    and running.status.warning is None
                )
            )
            assert await verify_vault(running.ingestor) == []
            rows = await ad_hoc(
                core,
                "MATCH (r:Revision {vault: 'w'}) WHERE r.path STARTS WITH 'B/' "
                "RETURN r.path AS path, r.kind AS kind, r.renamed_from AS source",
                {},
                write=False,
            )
            assert sorted((r["path"], r["kind"], r["source"]) for r in rows) == [
                (f"B/n{i:02d}.md", "rename", f"A/n{i:02d}.md") for i in range(12)
            ]
        finally:
            if cut:
                proxy.restore()
            running.stop()
            await asyncio.wait_for(task, 30)
