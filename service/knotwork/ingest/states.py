"""Each change against its note's stored state: an unchanged note found (nothing to write), a
changed, new or moved one drafted; and the names whose mentions elsewhere a batch changes.

The states come from one read per batch (``NOTES_STATE``, in ingest/ingestor.py); what is here
is pure and blocking, run off the event loop for the whole batch at once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from knotwork.graph.queries.writes import NoteNamedRow, NotesStateRow
from knotwork.ingest import draft as drafting
from knotwork.ingest.batch import NoteDelete
from knotwork.ingest.changes import NoteOutcome, Upsert
from knotwork.ingest.facts import changed_keys
from knotwork.ingest.rows import FACTS_VERSION
from knotwork.settings import Settings
from knotwork.text.language import note_language


def draft_change(
    change: Upsert,
    states: dict[str, NotesStateRow],
    vault: str,
    settings: Settings,
    language_setting: str,
) -> tuple[NoteOutcome, drafting.Draft | None]:
    """A note parsed (unless a sync did) and drafted, or found unchanged; blocking.
    ``language_setting``: the setting's key a note's stored state must match to be unchanged
    (notes are indexed again when the language setting changes)."""
    source = change.renamed_from if change.renamed_from in states else None
    note = change.note = change.note or drafting.parse(change.path, change.text)
    state = states.get(change.path)
    if (
        source is None
        and state is not None
        and state["content_hash"] == note.content_hash
        and state["facts_version"] == FACTS_VERSION
        and state["language_setting"] == language_setting
    ):
        return NoteOutcome(change.path, "unchanged"), None
    made = drafting.draft(
        vault,
        note,
        change.mtime,
        settings.chunk_size,
        state,
        states.get(source) if source else None,
        source,
        note_language(
            f"{note.title}\n{note.body}",
            settings.language,
            settings.default_language,
        ),
        language_setting,
    )
    outcome = NoteOutcome(change.path, "renamed" if source else "written", renamed_from=source)
    outcome.warnings += made.warnings
    return outcome, made


def delete_outcome(
    path: str,
    states: Mapping[str, NoteNamedRow],
    outcomes: list[NoteOutcome],
    deletes: list[NoteDelete],
) -> None:
    """A delete's outcome, and its note to delete when the graph holds it (not a placeholder)."""
    state = states.get(path)
    outcomes.append(NoteOutcome(path, "deleted" if state else "missing"))
    if state:
        deletes.append(NoteDelete(path, state["content_hash"]))


def _mkeys(state: NoteNamedRow | None) -> list[str]:
    """The mention keys a note's stored state holds (none for no state)."""
    return list(state["mkeys"] or []) if state else []


def changed_names(
    drafts: Iterable[drafting.Draft],
    deletes: list[NoteDelete],
    states: Mapping[str, NoteNamedRow],
) -> list[str]:
    """Names whose mentions elsewhere may change: those of notes that appear, go or move
    (old and new), and the names a note gains or loses (``changed_keys``)."""
    keys: set[str] = set()
    for d in drafts:
        old = _mkeys(states.get(d.renamed_from or d.path))
        replaced = _mkeys(states.get(d.path)) if d.renamed_from else []  # moved over it
        if d.is_new or d.renamed_from:
            keys |= set(old) | set(d.names) | set(replaced)
        else:
            keys |= changed_keys(old, d.names)
    for gone in deletes:
        keys |= set(_mkeys(states.get(gone.path)))
    return sorted(keys)
