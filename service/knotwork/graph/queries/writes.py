"""The ingest write path's queries (ingest/write.py and settle.py, model calls, similarity)
and what it reads to plan a write: notes' stored state, hashes, names and (to pair a note
moved and edited) texts. Mentions' are graph/queries/mentions.py's."""

from __future__ import annotations

from typing import Any, TypedDict

from knotwork.graph.queries import Query
from knotwork.models import StoredFact

# Counts several writes return.


class WrittenRow(TypedDict):
    written: int


class DeletedRow(TypedDict):
    deleted: int


class UpdatedRow(TypedDict):
    updated: int


class LinkedRow(TypedDict):
    linked: int


class TouchedRow(TypedDict):
    """Element ids of the entities and placeholders a write changed the relationships of:
    orphan candidates."""

    touched: list[str]


class TouchedPlaceholdersRow(TouchedRow):
    """Also the Unresolved placeholders whose links changed: to name again."""

    placeholders: list[str]


class Spelled(TypedDict):
    """How a link an Unresolved placeholder gained spells it: as written, a relative one by
    the path it names (unresolved_names.cypher)."""

    id: str
    spelling: str


class RelinkedRow(TouchedPlaceholdersRow):
    """A write of links: also the spellings of the links placeholders gained."""

    spelled: list[Spelled]


# What a write is planned from.


class NoteNamedRow(TypedDict):
    """What a batch reads of a note it changes: its hash and mention keys."""

    path: str
    content_hash: str | None  # None: a placeholder
    mkeys: list[str] | None


class NotesStateRow(NoteNamedRow):
    facts_version: int | None
    language_setting: str | None
    chunks: list[dict[str, Any]]  # id, hash, embed_hash, extraction…, has_embedding


class NotesGoneStateRow(TypedDict):
    tokens: list[str]  # as NamesStampRow's
    notes: list[NoteNamedRow]


class NoteHashesRow(TypedDict):
    path: str
    content_hash: str | None
    current: bool


class VaultNamesRow(TypedDict):
    path: str
    lpath: str | None
    mkeys: list[str] | None


class NamesStampRow(TypedDict):
    tokens: list[str]


class SyncOwedRow(TypedDict):
    reverse: list[str]
    links: list[str]


class OwedRow(TypedDict):
    owed: int


class NoteCaseVariantsRow(TypedDict):
    path: str


class NoteContentRow(TypedDict):
    path: str
    content_hash: str


class NotesTextsRow(TypedDict):
    path: str
    texts: list[str]  # its chunks' texts, in chunk order


class VaultFolderRow(TypedDict):
    folder: str | None
    folder_id: str | None


NOTES_STATE = Query("notes_state", NotesStateRow)
NOTES_GONE_STATE = Query("notes_gone_state", NotesGoneStateRow)
NOTE_HASHES = Query("note_hashes", NoteHashesRow)
NOTES_WITH_CONTENT = Query("notes_with_content", NoteContentRow)
NOTES_TEXTS = Query("notes_texts", NotesTextsRow)
VAULT_NAMES = Query("vault_names", VaultNamesRow)
NAMES_STAMP = Query("names_stamp", NamesStampRow)
NOTE_CASE_VARIANTS = Query("note_case_variants", NoteCaseVariantsRow)
SYNC_OWED = Query("sync_owed", SyncOwedRow)
VAULT_FOLDER = Query("vault_folder", VaultFolderRow)
VAULT_FOLDER_SET = Query("vault_folder_set", VaultFolderRow)

# A batch's transaction (ingest/write.py).


class NotesFactsRow(TypedDict):
    path: str
    facts: list[StoredFact]


class LostMention(TypedDict):
    path: str  # the note that asserted it
    fact: StoredFact


class FactsDeletedRow(TouchedPlaceholdersRow):
    keys: list[str]  # other notes' link keys to the notes (asked for with ``incoming``)
    facts: list[NotesFactsRow]  # what each note asserted, as deleted
    lost: list[LostMention]  # other notes' mentions of the notes, deleted (with ``incoming``)


class ChainedRow(TypedDict):
    chained: int


class PrunedRow(TypedDict):
    pruned: int


class NamedRow(TypedDict):
    named: int


class PlaceholdersCountRow(TypedDict):
    placeholders: int


class PlaceholdersDeletedRow(TypedDict):
    deleted: int
    paths: list[str]
    keys: list[str]
    placeholders: list[str]
    spelled: list[Spelled]
    lost: list[LostMention]  # other notes' mentions of the placeholders, deleted


NOTES_FACTS = Query("notes_facts", NotesFactsRow)
NOTES_UPSERT = Query("notes_upsert", WrittenRow)
NOTES_DELETE = Query("notes_delete", DeletedRow)
CHUNKS_WRITE = Query("chunks_write", WrittenRow)
CHUNKS_PRUNE = Query("chunks_prune", PrunedRow)
CHUNKS_CHAIN = Query("chunks_chain", ChainedRow)
FACTS_DELETE = Query("facts_delete", FactsDeletedRow)
FACTS_WRITE_LINKS = Query("facts_write_links", RelinkedRow)
FACTS_WRITE_ENTITIES = Query("facts_write_entities", WrittenRow)
CHUNK_ENTITIES_WRITE = Query("chunk_entities_write", LinkedRow)
LINKS_RERESOLVE = Query("links_reresolve", RelinkedRow)
ORPHANS_DELETE = Query("orphans_delete", DeletedRow)
UNRESOLVED_NAMES = Query("unresolved_names", NamedRow)
REVISIONS_APPEND = Query("revisions_append", WrittenRow)
SYNC_OWE = Query("sync_owe", OwedRow)
NOTES_PLACEHOLDERS_COUNT = Query("notes_placeholders_count", PlaceholdersCountRow)
NOTES_PLACEHOLDERS_DELETE = Query("notes_placeholders_delete", PlaceholdersDeletedRow)

# Model calls: embeddings, extractions, similar entities.


class ChunksPendingRow(TypedDict):
    id: str
    hash: str
    embed_hash: str
    note_path: str
    heading_path: str
    context: str | None
    text: str
    line_start: int
    embedding_state: str
    extraction_state: str


class ChunksOwedRow(TypedDict):
    """One step the pending chunks owe (chunks_owed.cypher)."""

    step: str  # 'embedding' or 'extraction'
    chunks: int
    both: int  # of those, the chunks also pending the other step (counted in each)
    notes: int
    shown: list[str]


class ExtractionWrittenRow(TypedDict):
    note_path: str
    line_start: int


class ExtractionTriedRow(TypedDict):
    tries: int
    state: str


class ChunkPendingRow(TypedDict):
    pending: bool


class EntitiesPendingRow(TypedDict):
    key: str
    name: str | None


class ValuesPageRow(TypedDict):
    done: bool
    entities: list[EntitiesPendingRow]


class SimilarLinkedRow(TypedDict):
    """The edges linked (element ids), and the entities whose page of neighbours other vaults
    filled: to ask again, deeper."""

    edges: list[str]
    deeper: list[str]


CHUNKS_PENDING = Query("chunks_pending", ChunksPendingRow)
CHUNKS_OWED = Query("chunks_owed", ChunksOwedRow)
CHUNK_EXTRACTION_WRITE = Query("chunk_extraction_write", ExtractionWrittenRow)
CHUNK_EXTRACTION_TRIED = Query("chunk_extraction_tried", ExtractionTriedRow)
CHUNK_PENDING = Query("chunk_pending", ChunkPendingRow)
CHUNKS_ERRORS_PENDING = Query("chunks_errors_pending", UpdatedRow)
CHUNK_FACTS_DELETE = Query("chunk_facts_delete", TouchedRow)
ENTITIES_PENDING = Query("entities_pending", EntitiesPendingRow)
ENTITY_EMBEDDING_SET = Query("entity_embedding_set", UpdatedRow)
ENTITIES_REFUSED_STAMP = Query("entities_refused_stamp", UpdatedRow)
CHUNKS_REFUSED_STAMP = Query("chunks_refused_stamp", UpdatedRow)
ENTITY_SIMILAR_LINK = Query("entity_similar_link", SimilarLinkedRow)
ENTITIES_VALUES_PAGE = Query("entities_values_page", ValuesPageRow)
ENTITIES_VALUES_UNLINK = Query("entities_values_unlink", UpdatedRow)

# Note vectors: each note's mean chunk vector, following its chunks (ingest/write.py after a
# batch's writes, GraphStore.set_chunk_embeddings after a retry or a re-embedding, and once
# for a graph written before notes had vectors: graph/schema.py).


class NoteEmbeddingRow(TypedDict):
    updated: int
    cleared: int


NOTE_EMBEDDING_SET = Query("note_embedding_set", NoteEmbeddingRow)
NOTE_EMBEDDING_FOLLOW = Query("note_embedding_follow", UpdatedRow)
NOTE_EMBEDDING_BACKFILL = Query("note_embedding_backfill", UpdatedRow)
