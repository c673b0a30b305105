"""A take of a vault's lease and of the re-embedding's pass one parameter set, built in one
place (``Lease._params``); as they pass it with ``**``, the check that every call passes
exactly what its query declares (test_cypher) does not see them, so it is made here."""

from __future__ import annotations

from knotwork.graph.lease import Lease
from knotwork.graph.lease_gone import process_ns
from knotwork.graph.reembed_guard import GUARD
from knotwork.graph.reembed_lease import ReembedLease
from tests.unit.test_cypher import _declared


def test_a_vaults_take_passes_what_lease_acquire_declares() -> None:
    lease = Lease(None, "v", 30, "h")  # type: ignore[arg-type]
    params = {"vault": lease.vault, **lease._params({"mode": "m"})}
    assert set(params) == _declared("lease_acquire")
    assert params["guard"] == GUARD and params["holder"] == "h" and params["ttl_s"] == 30
    where = {"process_ns": process_ns()}  # every holder records where it runs
    status, none = params["status"], lease._params(None)["status"]
    # ... and when it made the status (a later one stated over an earlier one, not the reverse)
    assert none.pop("stated") > status.pop("stated")
    assert status == {"mode": "m", **where} and none == where


def test_the_reembeds_take_passes_what_lease_reembed_acquire_declares() -> None:
    lease = ReembedLease(None, 30, "h")  # type: ignore[arg-type]
    assert set(lease._params({"mode": "cli-reembed"})) == _declared("lease_reembed_acquire")
