"""The vault folder a REST or MCP write goes to: none configured is a conflict (409), one that
cannot be seen is a vault unavailable for now (503, retryable), as the sync and the journal's
replay say it, and one the vault's notes were not synced from is a conflict (409)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from knotwork.core import Core
from knotwork.errors import (
    GraphUnavailableError,
    QueryTimeoutError,
    VaultFolderError,
    VaultUnavailableError,
    WriteConflictError,
)
from knotwork.graph.queries.reads import VAULT_NOTES
from knotwork.vault.disk_errors import failing_disk
from knotwork.vault.folders import (
    EMPTY,
    GONE_FOR_GOOD,
    empty_while_held,
    folder_unseen,
    other_folder,
)


async def vault_root(core: Core, *, held_ok: int | None = None) -> Path:
    """The configured vault folder. VaultUnavailableError when it is missing, not a folder or
    cannot be listed (a drive not mounted, a mount gone); with ``held_ok`` (a note write) also
    when it is empty while the graph holds more than ``held_ok`` notes of the vault: an
    unmounted drive's mount point, where a note written would hide under the drive once it is
    back. A PUT allows none (an empty folder of a vault the graph holds nothing of takes its
    first note); a DELETE one, its own note, whose file was the last and went by hand. A sync
    judges an empty folder itself (``held_ok`` None)."""
    root = core.settings.vault_path
    if root is None:
        raise WriteConflictError("no vault folder is configured (KNOTWORK_VAULT_PATH)")
    try:
        root.is_dir()
    except OSError as exc:  # a disk failing or a network or FUSE mount gone: said as such
        if failed := failing_disk(exc, str(root)):
            raise failed from exc
    unseen = folder_unseen(root)
    nothing = "; nothing was changed"
    if unseen == EMPTY:
        if held_ok is None:
            return root
        vault = core.settings.vault_name
        [row] = await core.store.read(VAULT_NOTES, vault=vault)
        if (held := int(row["notes"])) <= held_ok:
            return root
        unseen = empty_while_held(held, vault)
        nothing += f". {GONE_FOR_GOOD}"
    if unseen:
        raise VaultUnavailableError(f"the vault folder {root} {unseen}{nothing}")
    if held_ok is not None:
        await _refuse_another_vaults_folder(core, root)
    return root


async def _refuse_another_vaults_folder(core: Core, root: Path) -> None:
    """VaultFolderError when the vault's notes were synced from another folder: a note
    written here would not be the vault's file, yet the graph would serve its text (and cite
    its lines) under the vault note's path. The folder is the vault's when its path or its
    identity is the one the last sync recorded (a folder moved keeps its identity, one made
    again at the path keeps the path); none recorded yet, it is the vault's. A sync judges
    any other folder by the notes it holds, and records it when it is the vault's. Neo4j away,
    the write goes on (journaled, as it would be): the check needs the graph, the write not."""
    vault = core.settings.vault_name
    try:
        was = await other_folder(core.store, vault, root)
    except (GraphUnavailableError, QueryTimeoutError):
        return
    if was is None:
        return
    path = await asyncio.to_thread(lambda: str(root.resolve()))
    raise VaultFolderError(
        f"vault '{vault}' was synced from {was}, and this server's vault folder is "
        f"{path}: a note written here would not be in the vault's folder, so nothing was "
        f"changed. Set KNOTWORK_VAULT_PATH to {was}; or, if this folder now holds "
        f"vault '{vault}', sync it first (`knotwork ingest {path}`, or POST /sync)."
    )
