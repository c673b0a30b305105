"""The vault folder as ``doctor`` and ``/health`` judge it for ingest: what a sync would refuse
(ingest/plan.py), said with its fix before a sync or a watcher runs into it."""

from __future__ import annotations

import asyncio

from knotwork.check.reports import Capability
from knotwork.core import Core
from knotwork.errors import KnotworkError
from knotwork.graph.queries.reads import VAULT_NOTES
from knotwork.vault.folders import EMPTY, GONE_FOR_GOOD, empty_while_held, folder_unseen

FIX = "check KNOTWORK_VAULT_PATH: the folder of your notes, readable by this user"


async def vault_folder_problem(core: Core, graph_read: bool) -> Capability | None:
    """Why a sync would refuse the configured vault folder, as ``ingest`` says it; None when it
    would read it. No folder configured turns ingest off rather than failing it: `knotwork
    ingest PATH` still works, and a server may only answer questions. An empty folder is
    refused only while the graph holds notes of the vault (an unmounted drive's mount point),
    asked when ``graph_read`` (Neo4j answered the health check)."""
    root = core.settings.vault_path
    if root is None:
        return Capability(
            ready=False,
            needed=False,
            reason="no vault folder: set KNOTWORK_VAULT_PATH or pass `knotwork ingest` a path",
            fix="set KNOTWORK_VAULT_PATH to the folder of your notes",
        )
    unseen = await asyncio.to_thread(folder_unseen, root)  # a hung mount must not block
    if unseen == EMPTY and graph_read:
        vault = core.settings.vault_name
        try:
            [row] = await core.store.read(VAULT_NOTES, vault=vault)
        except KnotworkError:  # Neo4j went away meanwhile: its own report says so
            return None
        if held := int(row["notes"]):
            return Capability(
                ready=False,
                reason=f"the vault folder {root} {empty_while_held(held, vault)}",
                fix=f"mount the drive or check KNOTWORK_VAULT_PATH. {GONE_FOR_GOOD}",
            )
    if unseen is None or unseen == EMPTY:
        return None
    return Capability(ready=False, reason=f"the vault folder {root} {unseen}", fix=FIX)
