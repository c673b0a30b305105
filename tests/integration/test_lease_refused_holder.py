"""A refused take carries the holder as the take itself read it (under the lease node's lock),
so a CLI writer deciding whether to wait for the API's extraction reads the lease no second
time: a second read could find the holder gone, or another in its place."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from knotwork.cli.lease_taken import take
from knotwork.core import Core
from knotwork.errors import LeaseHeldError
from knotwork.graph.lease import Lease, lease_status
from knotwork.graph.store import GraphStore

STATUS = {"mode": "cli-ingest", "watches": False}


class LeftAfterRefusal(Lease):
    """A writer whose every refusal is followed at once by the holder giving the lease back
    (a `knotwork ingest` that just finished), before anything else reads it."""

    def __init__(self, store: GraphStore, vault: str, holder: Lease) -> None:
        super().__init__(store, vault, 30)
        self.gone = holder

    async def acquire(self, status: Mapping[str, Any] | None = None) -> None:
        try:
            await super().acquire(status)
        except LeaseHeldError:
            await self.gone.release()
            raise


async def test_a_refused_take_carries_the_holders_lease(core: Core) -> None:
    held = Lease(core.store, "v", 30)
    await held.acquire({"mode": "inotify", "watches": True})
    with pytest.raises(LeaseHeldError) as refused:
        await Lease(core.store, "v", 30).acquire(STATUS)
    row = refused.value.held_by
    assert row is not None
    said = {k: row[k] for k in ("vault", "holder", "host", "pid", "mode", "watches")}
    assert said == {
        "vault": "v",
        "holder": held.holder,
        "host": held.host,
        "pid": held.pid,
        "mode": "inotify",
        "watches": True,
    }
    beat = row["heartbeat_at"].to_native()
    assert timedelta(0) <= datetime.now(UTC) - beat < timedelta(seconds=30), beat
    assert held.holder in str(refused.value) and "the watcher" in str(refused.value)


async def test_a_cli_writer_is_refused_by_the_holder_the_take_saw_though_it_left(
    core: Core, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before, the CLI read the lease again after a refusal: finding it given back meanwhile,
    it took the lease, though its take had been refused by a writer that is not the API's
    extraction (refused at once, as ever). No read of the lease happens now."""
    holder = Lease(core.store, "v", 30)
    await holder.acquire(STATUS)
    reads: list[str] = []
    read = core.store.read

    async def counted(query: Any, /, **params: Any) -> Any:
        reads.append(query.name)
        return await read(query, **params)

    monkeypatch.setattr(core.store, "read", counted)
    with pytest.raises(LeaseHeldError) as refused:
        await take(LeftAfterRefusal(core.store, "v", holder), STATUS, wait_s=5)
    monkeypatch.undo()
    assert reads == []
    assert refused.value.held_by is not None
    assert refused.value.held_by["holder"] == holder.holder
    assert f"being written by {holder.holder} (host {holder.host}, pid {holder.pid}, mode " in (
        str(refused.value)
    )
    assert await lease_status(core.store, "v") is None, "the holder gave it back meanwhile"
