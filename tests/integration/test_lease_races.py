"""One writer per vault under concurrency: writers that reach a lapsed lease at the same moment
(a crashed watcher restarted beside a `knotwork ingest`, the watcher's heartbeat and the API's
journal replay both coming back after a Neo4j outage longer than the TTL) get it one at a time,
never two at once."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from knotwork.core import Core
from knotwork.errors import LeaseHeldError, LeaseLostError, QueryTimeoutError
from knotwork.graph.lease import Lease, holding, lease_status
from knotwork.graph.reembed_guard import GUARD
from knotwork.graph.reembed_lease import ReembedLease

TRIALS = 5
WRITERS = 6


async def _lapsed(core: Core, vault: str) -> Lease:
    """A lease of ``vault`` held by a writer that stopped renewing it: lapsed, not given back."""
    old = Lease(core.store, vault, 0)
    await old.acquire({"mode": "test"})
    await asyncio.sleep(0.05)
    status = await lease_status(core.store, vault)
    assert status and not status["live"]
    return old


async def _taken(lease: Lease) -> bool:
    try:
        await lease.acquire({"mode": "test"})
    except LeaseHeldError:
        return False
    return True


async def _renewed(lease: Lease) -> bool:
    try:
        await lease.renew({"mode": "test"})
    except LeaseLostError:
        return False
    return True


async def test_writers_taking_a_lapsed_lease_at_once_get_it_one_at_a_time(core: Core) -> None:
    for trial in range(TRIALS):
        vault = f"race-{trial}"
        await _lapsed(core, vault)
        writers = [Lease(core.store, vault, 30) for _ in range(WRITERS)]
        won = await asyncio.gather(*(_taken(w) for w in writers))
        winners = [w.holder for w, ok in zip(writers, won, strict=True) if ok]
        status = await lease_status(core.store, vault)
        assert status is not None
        assert winners == [status["holder"]], f"trial {trial}: {len(winners)} writers told ok"


async def test_a_renewal_racing_a_takeover_of_its_lapsed_lease_is_told_which_won(
    core: Core,
) -> None:
    for trial in range(TRIALS):
        vault = f"renew-{trial}"
        old = await _lapsed(core, vault)
        old.ttl_s = 30  # renewed, it is live again: the takeover must then be refused
        new = Lease(core.store, vault, 30)
        renewed, taken = await asyncio.gather(_renewed(old), _taken(new))
        status = await lease_status(core.store, vault)
        assert status is not None
        assert renewed != taken, f"trial {trial}: renewed {renewed}, taken {taken}"
        assert status["holder"] == (old if renewed else new).holder


async def test_a_give_back_racing_a_takeover_leaves_the_new_holders_lease(core: Core) -> None:
    for trial in range(TRIALS):
        vault = f"release-{trial}"
        old = await _lapsed(core, vault)
        new = Lease(core.store, vault, 30)
        _, taken = await asyncio.gather(old.release(), _taken(new))
        status = await lease_status(core.store, vault)
        if taken:
            assert status and status["holder"] == new.holder, f"trial {trial}: lease deleted"


async def test_a_renewal_racing_a_give_back_of_the_same_holder_ends_cleanly(core: Core) -> None:
    """The API's writers share one holder id: one gives the lease back while another's
    heartbeat renews it. The renewal either extends it or says it is lost, nothing else."""
    for trial in range(TRIALS):
        vault = f"shared-{trial}"
        first = Lease(core.store, vault, 30)
        await first.acquire({"mode": "test"})
        second = Lease(core.store, vault, 30, holder=first.holder)
        await asyncio.gather(first.release(), _renewed(second))
        assert await lease_status(core.store, vault) is None, f"trial {trial}: not given back"


async def test_a_heartbeat_failing_otherwise_than_by_an_outage_goes_on(core: Core) -> None:
    """A renewal failing with another error than Neo4j away (a time limit, a transient error
    left after the retries) ended the heartbeat silently: the lease lapsed under a writer that
    went on writing. The failure is injected into the renewal; the lease is the real one."""
    lease = Lease(core.store, "beat", 3)  # a renewal every second
    renew, calls, third = lease.renew, [], asyncio.Event()

    async def failing_once(status: Mapping[str, Any] | None = None) -> None:
        calls.append(status)
        if len(calls) == 3:
            third.set()
        if len(calls) == 1:
            raise QueryTimeoutError("Neo4j stopped a query that ran past its time limit")
        await renew(status)

    lease.renew = failing_once  # type: ignore[method-assign]
    async with holding(lease, {"mode": "test"}):
        # A second apart on an idle machine, later on a loaded one: waited for, not timed.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(third.wait(), 60)
        status = await lease_status(core.store, "beat")
    assert len(calls) >= 3, f"the heartbeat stopped after {len(calls)} renewal(s)"
    assert status is not None and status["holder"] == lease.holder
    # Renewed after the failed renewal (a take sets both to one time): not left to lapse.
    renewed, taken = (datetime.fromisoformat(status[at]) for at in ("heartbeat_at", "acquired_at"))
    assert renewed > taken, status


REEMBED = {"mode": "cli-reembed", "watches": False}


async def _reembed_taken(lease: ReembedLease) -> bool:
    try:
        await lease.acquire(REEMBED)
    except LeaseHeldError:
        return False
    return True


async def test_a_renewal_of_a_lapsed_lease_racing_a_reembed_start_lets_one_on(
    core: Core,
) -> None:
    """A writer's renewal takes no guard lock, and renewing a lapsed lease makes it live
    again: the re-embedding, which locks every vault's lease before it reads them, either sees
    it renewed (refused) or is seen by the renewal (which stops), never neither."""
    for trial in range(TRIALS):
        old = await _lapsed(core, f"guarded-{trial}")
        old.ttl_s = 30
        reembed = ReembedLease(core.store, 30, f"reembedder-{trial}")
        renewed, taken = await asyncio.gather(_renewed(old), _reembed_taken(reembed))
        assert renewed != taken, f"trial {trial}: renewed {renewed}, reembed took {taken}"
        await (reembed if taken else old).release()  # the next trial starts with none live


async def test_a_renewal_waits_for_no_lock_of_the_guard_a_take_does(core: Core) -> None:
    """Every vault's watcher renews every few seconds: a renewal does not queue behind the
    guard's lock (held here by an open transaction, as a take of any vault's lease holds it),
    while a take, which may make its lease's node, waits for it."""
    renewing, taking = Lease(core.store, "beats", 30), Lease(core.store, "takes", 30)
    await renewing.acquire({"mode": "test"})  # which makes the guard's node
    async with core.driver.session(database=core.settings.neo4j_database) as session:
        tx = await session.begin_transaction()
        try:
            lock = "MATCH (g:Lease {vault: $guard}) SET g._lock = true REMOVE g._lock"
            await (await tx.run(lock, guard=GUARD)).consume()
            await asyncio.wait_for(renewing.renew({"mode": "test"}), 5)
            take = asyncio.create_task(taking.acquire({"mode": "test"}))
            await asyncio.sleep(1.0)
            assert not take.done(), "a take went past the guard's lock"
        finally:
            await tx.commit()
    await asyncio.wait_for(take, 10)
    status = await lease_status(core.store, "takes")
    assert status is not None and status["holder"] == taking.holder
