"""The vault folder as ``doctor`` and ``/health`` judge it for ingest: what a sync would refuse
(ingest/plan.py), said with its fix before a sync or a watcher runs into it."""

from __future__ import annotations

import asyncio
from pathlib import Path

from knotwork.check.reports import Capability
from knotwork.core import Core
from knotwork.errors import KnotworkError
from knotwork.graph.queries.reads import VAULT_NOTES
from knotwork.graph.queries.writes import NOTE_HASHES
from knotwork.ingest.rows import FACTS_VERSION
from knotwork.text.language import setting_key
from knotwork.vault.files import read_group
from knotwork.vault.folders import (
    EMPTY,
    GONE_FOR_GOOD,
    AnotherFolder,
    empty_while_held,
    folder_unseen,
    vault_folders,
)

FIX = "check KNOTWORK_VAULT_PATH: the folder of your notes, readable by this user"
READ_GROUP = 64  # files read before the count of those the vault holds is looked at again


async def vault_folder_problem(core: Core, graph_read: bool) -> Capability | None:
    """Why a sync would refuse the configured vault folder, as ``ingest`` says it; None when it
    would read it. No folder configured turns ingest off rather than failing it: `knotwork
    ingest PATH` still works, and a server may only answer questions. An empty folder is
    refused only while the graph holds notes of the vault (an unmounted drive's mount point),
    and a folder other than the one the vault was synced from unless it holds the vault's
    notes, both asked when ``graph_read`` (Neo4j answered the health check)."""
    root = core.settings.vault_path
    if root is None:
        return Capability(
            ready=False,
            needed=False,
            reason="no vault folder: set KNOTWORK_VAULT_PATH or pass `knotwork ingest` a path",
            fix="set KNOTWORK_VAULT_PATH to the folder of your notes",
        )
    unseen = await asyncio.to_thread(folder_unseen, root)  # a hung mount must not block
    if unseen is not None and unseen != EMPTY:
        return Capability(ready=False, reason=f"the vault folder {root} {unseen}", fix=FIX)
    if not graph_read:
        return None
    try:
        if unseen == EMPTY:
            return await _empty_while_held(core, root)
        return await _another_folder(core, root)
    except KnotworkError:  # Neo4j went away meanwhile: its own report says so
        return None


async def _empty_while_held(core: Core, root: Path) -> Capability | None:
    vault = core.settings.vault_name
    [row] = await core.store.read(VAULT_NOTES, vault=vault)
    if held := int(row["notes"]):
        return Capability(
            ready=False,
            reason=f"the vault folder {root} {empty_while_held(held, vault)}",
            fix=f"mount the drive or check KNOTWORK_VAULT_PATH. {GONE_FOR_GOOD}",
        )
    return None


async def _another_folder(core: Core, root: Path) -> Capability | None:
    refused = await another_folder(core, core.settings.vault_name, root)
    if refused is None:
        return None
    return Capability(ready=False, reason=refused.reason, fix=refused.fix)


async def another_folder(core: Core, vault: str, root: Path) -> AnotherFolder | None:
    """The sync's refusal of a folder the vault's notes were not synced from, judged by the
    sync's own rule (``VaultFolders.another``) on the files at the notes' paths: doctor says
    it, and `watch` and `verify` stop on it before their first sync reads the whole folder."""
    settings = core.settings
    folders = await vault_folders(core.store, vault, root)
    if folders.recorded or folders.was["folder"] is None:
        return None  # the sync reads no note to decide either
    rows = await core.store.read(
        NOTE_HASHES,
        vault=vault,
        facts_version=FACTS_VERSION,
        language_setting=setting_key(settings.language, settings.default_language),
    )
    stored = {row["path"]: row["content_hash"] for row in rows}
    hashes = await asyncio.to_thread(_held, root, stored, settings.max_note_bytes)
    return folders.another(vault, stored, hashes)


def _held(root: Path, stored: dict[str, str | None], limit: int) -> dict[str, str]:
    """The content hashes of the files of ``root`` at the paths of the vault's notes, read
    until half of the notes are found as the graph holds them (the folder is the vault's
    then, whatever the rest): a folder of the vault, moved, stops half way; another folder
    misses most paths, each found missing at once."""
    notes = [p for p, h in stored.items() if h is not None]
    found: dict[str, str] = {}
    held = 0
    for start in range(0, len(notes), READ_GROUP):
        for path, read in read_group(root, notes[start : start + READ_GROUP], limit):
            if not isinstance(read, KnotworkError):
                found[path] = read[1]
                held += read[1] == stored[path]
        if 2 * held >= len(notes):
            break
    return found
