"""Reads about the notes in the graph that every entry point shares: one note's detail, the
vault's counts. The REST routes and the MCP tools both call these, so they answer alike."""

from __future__ import annotations

from typing import Any

from knotwork.core import Core
from knotwork.errors import NoteNotFoundError
from knotwork.vault import clean_relpath


async def note_detail(core: Core, path: str) -> dict[str, Any]:
    """A note with its chunks and the facts it asserts, with provenance.

    Raises VaultPathError for a path that is absolute or leaves the vault, and NoteNotFoundError
    for one the graph does not hold. The note's text is returned as data, never interpreted.
    """
    rel = clean_relpath(path)
    rows = await core.store.read("note_detail", vault=core.settings.vault_name, path=rel)
    if not rows:
        raise NoteNotFoundError(f"no note {rel!r} in the graph")
    return rows[0]


async def vault_stats(core: Core) -> dict[str, Any]:
    """Counts of notes, chunks, entities, unresolved links, pending work and facts."""
    rows = await core.store.read("vault_stats", vault=core.settings.vault_name)
    stats = {"vault": core.settings.vault_name, **rows[0], "extraction": "on"}
    if not core.settings.extract:
        # Chunks keep their pending state for the day extraction is turned on (`knotwork
        # retry` then does them), but while it is off nothing is waiting.
        stats.update(extraction="off", pending_extractions=0)
    return stats
