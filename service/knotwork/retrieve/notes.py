"""Reads about the notes in the graph that every entry point shares: one note's detail, its
history, a search by name, tag or folder, the vault's counts. The REST routes, the MCP tools and
the CLI all call these, so they answer alike."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any

from knotwork.core import Core
from knotwork.errors import FilterError, NoteNotFoundError, VaultPathError
from knotwork.graph.queries.admin import VAULT_STATS
from knotwork.graph.queries.reads import (
    NOTE_CANDIDATES,
    NOTE_DETAIL,
    NOTE_HISTORY,
    NOTES_SEARCH,
    NoteHistoryRow,
)
from knotwork.retrieve import cached
from knotwork.retrieve.lucene import phrase_query
from knotwork.retrieve.types import bare_tag, vault_folder
from knotwork.text.keys import entity_key, folded, link_key, name_key
from knotwork.vault.write import checked_relpath, unicode_forms


async def note_detail(core: Core, path: str) -> dict[str, Any]:
    """A note with its chunks and the facts it asserts, with provenance.

    Raises VaultPathError for a path that is absolute, leaves the vault or is longer than a
    file system allows (as a write, so its echo is cut), and NoteNotFoundError for one the
    graph does not hold, naming the notes it may mean (``not_found``). The path is looked up
    as sent, then in its other Unicode
    forms (a vault from macOS holds decomposed names, a client types composed ones), as PUT
    and DELETE find it; a note beats a placeholder of a link. The note's text is returned as
    data, never interpreted.
    """
    rel = checked_relpath(path)
    found = None
    for form in unicode_forms(rel):
        rows = await core.store.read(NOTE_DETAIL, vault=core.settings.vault_name, path=form)
        if rows and rows[0]["note"]["content_hash"] is not None:
            return dict(rows[0])
        found = found or (dict(rows[0]) if rows else None)
    if found is None:
        raise await not_found(core, rel)
    return found


# At most this many notes a not-found message suggests: enough for namesakes in two folders.
CANDIDATES = 3


async def not_found(core: Core, rel: str, message: str | None = None) -> NoteNotFoundError:
    """The error for a path the graph holds no note at (``message``, by default that no note
    is there), naming the notes of the same file name, title or alias (case-folded), if any: a
    caller who typed ``Alice`` or ``mine/alice.md`` for ``mine/Alice.md`` learns the path to
    send."""
    rows = await core.store.read(
        NOTE_CANDIDATES, **candidate_params(core.settings.vault_name, rel, CANDIDATES)
    )
    message = message or f"no note {rel!r} in the graph"
    if rows:
        named = " or ".join(repr(row["path"]) for row in rows)
        message += f"; did you mean {named}? (paths are exact, with .md)"
    elif went := await _went(core, rel):  # a path a note had before
        message += f"; {went} (the path's history says when)"
    return NoteNotFoundError(message)


async def _went(core: Core, rel: str) -> str | None:
    """Where the note last at ``rel`` went, or that it was deleted, by the path's history."""
    rows = await core.store.read(
        NOTE_HISTORY, vault=core.settings.vault_name, path=rel, before=None, limit=1
    )
    if rows and rows[0]["kind"] == "renamed" and rows[0]["renamed_to"]:
        return f"the note there was moved to {rows[0]['renamed_to']!r}"
    if rows and rows[0]["kind"] == "delete":
        return "the note there was deleted"
    return None


def candidate_params(vault: str, rel: str, limit: int) -> dict[str, Any]:
    """What note_candidates.cypher compares and seeks by: the path's last part without .md,
    case-folded, and the keys the indexes hold of a note's names."""
    name = rel.rsplit("/", 1)[-1]
    name = name[:-3] if name.lower().endswith(".md") else name
    lpath, key = link_key(rel), name_key(name)
    return {
        "vault": vault,
        "name": folded(name),
        "lpath": lpath,
        "limit": limit,
        "stem": lpath.rsplit("/", 1)[-1],
        "key": key,
        "alias": entity_key(name),
        "phrase": "" if key else phrase_query(name),  # a name without a key: by full text
    }


async def vault_stats(core: Core) -> dict[str, Any]:
    """Counts of notes, chunks, entities, unresolved links, pending work and facts."""
    rows = await core.store.read(VAULT_STATS, vault=core.settings.vault_name)
    counts: dict[str, Any] = {k: v for k, v in rows[0].items() if k != "facts"}
    facts = dict(sorted((extractor, n) for extractor, n in rows[0]["facts"]))
    stats = {"vault": core.settings.vault_name, **counts, "facts": facts, "extraction": "on"}
    if not core.settings.extract:
        # Chunks keep their pending state for the day extraction is turned on (`knotwork
        # retry` then does them), but while it is off nothing is waiting.
        stats.update(extraction="off", pending_extractions=0)
    return stats


async def note_history(core: Core, path: str, limit: int = 20) -> list[dict[str, Any]]:
    """A note's revisions, newest first (also after it was deleted or renamed away), followed
    through its renames: past a rename, the revisions it had at its older path (each row
    says its ``path``), back to its first there; not those of a note the older path held
    before.

    Raises VaultPathError for a bad path and NoteNotFoundError when the graph holds no revision
    of it in any Unicode form (the first form that has some is followed, as ``note_detail``),
    naming the notes it may mean as ``note_detail`` does."""
    rel = checked_relpath(path)
    for form in unicode_forms(rel):
        if rows := await _history(core, form, limit):
            return [{**row, "at": row["at"].iso_format()} for row in rows]
    raise await not_found(core, rel, f"no revision of {rel!r} in the graph")


async def _history(core: Core, rel: str, limit: int) -> list[NoteHistoryRow]:
    """The revisions of the note at exactly ``rel``, followed back through its renames."""
    rows: list[NoteHistoryRow] = []
    at: str | None = rel
    before, later = None, None  # the rename followed back, and the path it led to
    while at is not None and len(rows) < limit:
        found = await core.store.read(
            NOTE_HISTORY,
            vault=core.settings.vault_name,
            path=at,
            before=before,
            limit=limit - len(rows) + (later is not None),  # its closing record, skipped
        )
        at = None  # unless a rename leads on
        for row in found:
            if row["kind"] == "renamed" and later is not None and row["renamed_to"] == later:
                continue  # the older path closed by the rename followed: written with it
            if len(rows) >= limit:
                break
            if before is not None and row["kind"] in ("delete", "renamed"):
                break  # an earlier note deleted or renamed away at the older path: not this one
            rows.append(row)
            if row["kind"] == "rename" and row["renamed_from"]:
                at, before = row["renamed_from"], row["at"]  # what it was before the move
                later = row["path"]
                break
            if before is not None and row["kind"] == "upsert" and row["old_hash"] is None:
                break  # the note's first revision there: before it, another's
    return rows


async def search_notes(
    core: Core,
    text: str | None = None,
    *,
    tag: str | None = None,
    folder: str | None = None,
    limit: int = 50,
) -> list[dict[str, Any]]:
    """Notes whose file name, title or an alias contains ``text`` (case-insensitive, in
    either Unicode form), under ``folder``, tagged ``tag`` (or a tag nested in it); every given
    criterion must hold. VaultPathError for a folder outside the vault, FilterError for an
    empty tag (``#``), as the REST filters refuse them; ``.`` is the whole vault, as there."""
    try:
        under = vault_folder(folder)
    except ValueError as exc:
        raise VaultPathError(str(exc)) from exc
    try:
        bare = bare_tag(tag) if tag is not None else None
    except ValueError as exc:  # no path: a client branching on the kind must not take it so
        raise FilterError(str(exc)) from exc
    rows = await core.store.read(
        NOTES_SEARCH,
        vault=core.settings.vault_name,
        # Case-folded and composed, as notes keep their names and tags for this search
        # (ingest/rows.py note_props): "GRÖSSE" and "Grösse" find "Größe".
        text=folded(text) if text else None,
        tag=folded(bare) if bare is not None else None,
        folder=under,
        limit=limit,
    )
    return [dict(row) for row in rows]


async def no_notes_warning(
    core: Core, vault: str, view: Awaitable[cached.VaultView] | None = None
) -> str | None:
    """The warning for a read that found nothing in a vault the graph holds no note of at all:
    a vault not ingested yet, or KNOTWORK_VAULT_NAME mistyped, not notes that say nothing.
    None when the vault holds notes. ``view``: the vault's view a question already reads."""
    seen = view or cached.vault_view(core.store, vault, core.memo, core.vault_sizes)
    if (await seen).notes:
        return None
    return (
        f"the graph holds no notes of vault {vault!r}: ingest it first (`knotwork ingest`, or "
        "the watcher), or check KNOTWORK_VAULT_NAME"
    )
