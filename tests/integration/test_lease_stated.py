"""What the API's shared lease says of its holder: the users inside now (a note write, a sync,
a pass of the model's work), whichever of their renewals Neo4j commits last. A CLI writer waits
for a lease held by model passes alone and is refused by any other; a note write's last beat,
committed after the pass had stated its mode, left the lease saying "rest-write" until the
pass's next beat (a third of the TTL), and a CLI writer reading it then was refused."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from knotwork.core import Core
from knotwork.graph.lease import REST_EXTRACT_MODE, Lease, lease_status, stated
from knotwork.graph.queries.admin import LEASE_RENEW
from knotwork.graph.reembed_guard import GUARD
from knotwork.ingest.journal import Journal
from knotwork.serving.writers import VaultWriters

EXTRACTING = {"mode": REST_EXTRACT_MODE, "watches": False}
WRITING = {"mode": "rest-write", "watches": False}


async def _mode(core: Core) -> str | None:
    row = await lease_status(core.store, "default")
    return None if row is None else row["mode"]


async def test_a_renewal_made_before_the_lease_stated_a_newer_status_only_extends_it(
    core: Core,
) -> None:
    lease = Lease(core.store, "default", 30)
    late = stated(WRITING)  # a note write's beat, made before the pass took the lease ...
    await lease.acquire(EXTRACTING)
    before = await lease_status(core.store, "default")
    assert before is not None
    rows = await core.store.write(  # ... and committed after it
        LEASE_RENEW, vault="default", guard=GUARD, holder=lease.holder, ttl_s=60, status=late
    )
    assert rows and rows[0]["ok"]
    after = await lease_status(core.store, "default")
    assert after is not None and after["mode"] == REST_EXTRACT_MODE, after
    assert after["expires_at"] > before["expires_at"], (before, after)  # still renewed
    await lease.renew(WRITING)  # a status made now is stated
    assert await _mode(core) == "rest-write"


async def test_the_shared_lease_says_the_users_inside_as_they_come_and_go(
    core: Core, tmp_path: Path
) -> None:
    writers = VaultWriters(core, Journal(tmp_path / "journal"))
    async with writers.model_pass():
        assert await _mode(core) == REST_EXTRACT_MODE
        async with writers.write() as way:
            assert way.kind == "direct"
            assert await _mode(core) == "rest-write"
            async with writers.model_pass():  # a pass taking it meanwhile does not hide it
                assert await _mode(core) == "rest-write"
            await writers.confirm_model_pass()  # nor does a pass confirming it
            assert await _mode(core) == "rest-write"
        # The write gone, the pass alone: said at once, not at the pass's next beat.
        assert await _mode(core) == REST_EXTRACT_MODE
    assert await lease_status(core.store, "default") is None  # the last user gave it back


async def test_a_stalled_restatement_holds_neither_the_user_leaving_nor_the_next(
    core: Core, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    writers = VaultWriters(core, Journal(tmp_path / "journal"))
    stalled, go = asyncio.Event(), asyncio.Event()
    renew = Lease.renew

    async def stalling(self: Lease, status: Mapping[str, Any] | None = None) -> None:
        if stalled.is_set():  # Neo4j stalled from the write's end on
            await go.wait()
        await renew(self, status)

    monkeypatch.setattr(Lease, "renew", stalling)
    async with writers.model_pass():
        try:
            async with asyncio.timeout(5):  # the write leaves at once, and the next one gets in
                async with writers.write():
                    stalled.set()
                async with writers.write() as way:
                    assert way.kind == "direct"
        finally:
            go.set()  # Neo4j answers again
    await asyncio.sleep(0.1)  # the restatements end
    assert await lease_status(core.store, "default") is None
