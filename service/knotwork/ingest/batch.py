"""What the writer takes and gives back: a batch of note writes and deletes applied in one
transaction (ingest/write.py), and what each note's write changed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from knotwork.graph.names import Names


@dataclass
class NoteWrite:
    """Everything the writer needs for one note, computed before the transaction."""

    path: str
    props: dict[str, Any]
    chunks: list[dict[str, Any]]
    link_facts: list[dict[str, Any]]
    entity_facts: list[dict[str, Any]]
    chunk_entities: list[dict[str, Any]]
    asserted: list[str]  # the key of every fact (models.fact_key)
    mention_facts: list[dict[str, Any]]  # rows for mentions_write, resolved in memory
    old_hash: str | None
    is_new: bool
    renamed_from: str | None = None
    warnings: list[str] = field(default_factory=list)  # found building it: mentions capped


@dataclass
class NoteDelete:
    path: str
    old_hash: str | None


@dataclass
class Batch:
    """Notes to write and delete in one transaction, and the reverse mention pass to run.

    ``reverse_keys``: names whose mentions in other notes must be rewritten (notes that
    appeared, went or were renamed); ``exclude``: notes the reverse pass leaves alone because
    they were (or will be, in the same sync) written against ``names`` already — in a sync's
    earlier batches, the notes its last deletes, whose mentions a rename's batch leaves
    (``write._remention``).
    """

    vault: str
    # The vault's names once the batch (or, in a sync, the whole sync) is applied: every link
    # written or moved goes to the note its key names there (a note written later in the
    # sync is a placeholder its batch fills), so nothing written is moved again.
    targets: Names
    writes: list[NoteWrite] = field(default_factory=list)
    deletes: list[NoteDelete] = field(default_factory=list)
    names: Names | None = None  # for mentions; None: mentions are off
    # Set when the batch changes the vault's note names: recorded for other processes' caches.
    names_token: str | None = None
    reverse_keys: list[str] = field(default_factory=list)
    # Of ``reverse_keys``, those that only the notes this batch deletes bore (a batch standing
    # alone knows them): the mentions made by them went with those notes (facts_delete), and
    # a mention of another note by one does not change by their going; so no other note's
    # mentions change by them unless its text holds one that a note still bears.
    deleted_keys: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    link_keys: list[str] = field(default_factory=list)  # re-resolve the links to these keys
    # A sync's first batch records its last batch's keys here, the last clears them (empty
    # lists): cut off between the two, the next sync pays them (sync_owe.cypher).
    owed: dict[str, list[str]] | None = None


@dataclass
class WriteResult:
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    mentions: int = 0  # MENTIONS facts the note asserts
