"""The notes a sync found gone but keeps for the next sync to decide, when the folder changed
while it was read: a file or folder listed, then gone before it was read (a folder moved on:
a gone note may be one of those files, moved, and deleted now it would be made new where it
went, embedded all again), or the vault path (a symbolic link, or under one) re-pointed to
another folder (what the folder read lacks says nothing of the one the path now leads to)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from knotwork.ingest.changes import SyncReport
from knotwork.plural import counted, plural
from knotwork.vault.folders import led_elsewhere


async def to_delete(
    report: SyncReport, deleted: list[str], vanished: set[str], path: Path | None, root: Path
) -> list[str]:
    """``deleted`` (the notes gone from the folder ``root``), or none when the folder changed
    while read: ``vanished`` (listed, gone before read) not empty, or ``path`` (the vault path
    ``root`` was resolved from) leading elsewhere now. Those kept are counted in the report
    (``kept_gone``: a watcher rescans once its events pause) and said why."""
    if not deleted:
        return deleted
    if path is not None and await asyncio.to_thread(led_elsewhere, path, root):
        why = f"the vault path {path} leads elsewhere now, not to {root}, which was read"
    elif vanished:
        why = (
            f"{counted(len(vanished), 'file or folder', 'files or folders')} vanished while the "
            "folder was read (moved or deleted meanwhile)"
        )
    else:
        return deleted
    report.kept_gone = len(deleted)
    report.warnings.append(
        f"{why}; the {counted(report.kept_gone, 'note')} found gone "
        f"{plural(report.kept_gone, 'is', 'are')} kept until the next sync"
    )
    return []
