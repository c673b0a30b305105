"""The API's writers of one vault: a whole-vault sync never runs beside a direct note write."""

from __future__ import annotations

import asyncio
from pathlib import Path

from knotwork.api.writers import RestWriters
from knotwork.core import Core, open_core
from knotwork.ingest.journal import Journal
from knotwork.settings import Settings
from tests.integration.server import TcpProxy


async def test_a_sync_starting_while_a_write_waits_for_the_lease_waits_for_that_write(
    core: Core, tmp_path: Path
) -> None:
    writers = RestWriters(core, Journal(tmp_path / "journal"))
    order: list[str] = []

    async def put() -> None:
        async with writers.write() as way:
            order.append(f"write {way.kind}")
            await asyncio.sleep(0.2)  # the note written and ingested
            order.append("write done")

    async def sync() -> None:
        async with writers.sync():
            order.append("sync")  # the sync's plan is read here

    # The write is held between "not syncing" and holding the lease, where a sync can start.
    await writers._turn.acquire()
    write = asyncio.create_task(put())
    await asyncio.sleep(0.05)
    started = asyncio.create_task(sync())
    await asyncio.sleep(0.05)
    writers._turn.release()
    await asyncio.gather(write, started)

    assert order == ["write direct", "write done", "sync"]
    # Writes made once the sync has begun are queued for it, and the lease is given back.
    async with writers.write() as way:
        assert way.kind == "direct"
    assert writers._direct == 0 and writers._no_direct.is_set()


async def test_a_write_that_finds_the_graph_offline_does_not_hold_up_a_sync(
    settings: Settings, tmp_path: Path, proxy: TcpProxy
) -> None:
    through = settings.model_copy(
        update={"neo4j_uri": f"bolt://127.0.0.1:{proxy.port}", "neo4j_unavailable_after_s": 0.5}
    )
    async with open_core(through) as proxied:
        writers = RestWriters(proxied, Journal(tmp_path / "journal"))
        proxy.cut()
        async with writers.write() as way:
            assert way.kind == "offline"
        assert writers._direct == 0 and writers._no_direct.is_set()
        proxy.restore()
