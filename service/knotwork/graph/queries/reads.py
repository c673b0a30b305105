"""Retrieval's queries (retrieve/) and the note reads every entry point shares."""

from __future__ import annotations

from typing import Any, TypedDict

from neo4j.time import DateTime

from knotwork.graph.queries import Query

# Seed retrievers (retrieve/search.py, retrieve/named.py).


class ScoredId(TypedDict):
    id: str  # a chunk id
    score: float


class HitsRow(TypedDict):
    """One row of an index search shared by every vault: the most candidates an index gave
    (any vault) and this vault's hits, best first."""

    returned: int
    hits: list[ScoredId]


class IndexPageRow(TypedDict):
    """One full-text index's page: the candidates it gave (any vault) and this vault's hits
    with their BM25 scores, best first."""

    index: str
    returned: int
    hits: list[ScoredId]


class NoteScoredId(TypedDict):
    id: str  # a chunk id
    score: float  # the chunk's own
    note: float | None  # its note's (None: the note is not among the nearest notes)


class VectorNotesRow(TypedDict):
    """Dense retrieval by chunk and note: the chunk candidates the index gave (any vault), the
    lowest score of this vault's nearest notes, and this vault's chunks with their note's."""

    returned: int
    floor: float | None
    hits: list[NoteScoredId]


class FilterCountRow(TypedDict):
    chunks: int


class VaultNotesRow(TypedDict):
    notes: int


class NotesNamedRow(TypedDict):
    key: str
    path: str
    note: str  # element id
    chunk_ids: list[str]
    lead: str | None  # the note's first chunk; None: none, or a bare heading line
    mentioned_by: int


class FilterChunksRow(TypedDict):
    ids: list[str]
    notes: list[str]  # element ids, in the order of ids


class CitedChunk(TypedDict):
    id: str
    path: str
    title: str
    aliases: list[str]
    heading_path: str
    line_start: int
    line_end: int
    text: str


class CitedFact(TypedDict):
    subject: str
    predicate: str
    object: str
    source: str
    extractor: str
    confidence: float | None
    line: int | None
    chunk_id: str | None


class ChunksCitedRow(TypedDict):
    chunks: list[CitedChunk]
    facts: list[CitedFact]


SEARCH_VECTOR = Query("search_vector", HitsRow)
SEARCH_VECTOR_NOTES = Query("search_vector_notes", VectorNotesRow)
SEARCH_FULLTEXT = Query("search_fulltext", IndexPageRow)
FILTER_COUNT = Query("filter_count", FilterCountRow)
SEARCH_TEMPORAL = Query("search_temporal", ScoredId)
VAULT_NOTES = Query("vault_notes", VaultNotesRow)
NOTES_NAMED = Query("notes_named", NotesNamedRow)
FILTER_CHUNKS = Query("filter_chunks", FilterChunksRow)
CHUNKS_CITED = Query("chunks_cited", ChunksCitedRow)

# Graph walks (retrieve/walk.py, retrieve/graphrank.py).


# "from" is a Python keyword: these two are spelt the functional way.
EntitySimilarRow = TypedDict(
    "EntitySimilarRow", {"from": str, "to": str, "to_name": str, "cosine": float | None}
)


class NamedNode(TypedDict):
    id: str  # element id
    name: str  # note:<path> | entity:<key>


WalkStep = TypedDict(
    "WalkStep",
    {
        "hop": int,
        "from": str,  # element ids
        "to": str,
        "to_name": str,  # note:<path> | entity:<key>
        "type": str,
        "outgoing": bool,  # from → to
        "confidence": float | None,
        "chunk_id": str | None,
        "heading": str | None,  # the section of the note reached a followed link names
    },
)


class ReachedChunk(TypedDict):
    path: str
    note: str  # element id
    id: str  # chunk id
    ord: int
    score: float
    held: list[int]  # indexes of the question's words the chunk holds
    anchored: bool  # under the heading the link that reached its note names


class WalkScoresRow(TypedDict):
    notes: list[ReachedChunk]
    asserting: list[ScoredId]


class WalkHopsRow(TypedDict):
    seeds: list[NamedNode]
    steps: list[WalkStep]
    scores: WalkScoresRow | None


class EntityMkeysRow(TypedDict):
    mkey: str


class EntitiesMatchingRow(TypedDict):
    id: str
    name: str
    score: float


ENTITY_SIMILAR = Query("entity_similar", EntitySimilarRow)
WALK_HOPS = Query("walk_hops", WalkHopsRow)
WALK_SCORES = Query("walk_scores", WalkScoresRow)
ENTITIES_MATCHING = Query("entities_matching", EntitiesMatchingRow)
ENTITY_MKEYS = Query("entity_mkeys", EntityMkeysRow)

# What retrieval keeps per vault generation (retrieve/cached.py, retrieve/relevance.py).


class VaultGenerationRow(TypedDict):
    generation: str | None


class VaultProfileRow(TypedDict):
    notes: int
    languages: list[str]
    unknown: int


class VaultDatesRow(TypedDict):
    paths: list[str]
    dates: list[list[str]]
    chunks: list[str]


class VaultLanguagesRow(TypedDict):
    language: str
    chunks: int


VAULT_GENERATION = Query("vault_generation", VaultGenerationRow)
VAULT_PROFILE = Query("vault_profile", VaultProfileRow)
VAULT_DATES = Query("vault_dates", VaultDatesRow)
VAULT_LANGUAGES = Query("vault_languages", VaultLanguagesRow)

# Reads about notes (retrieve/notes.py): returned as they are by the API and MCP.


class NoteDetailRow(TypedDict):
    note: dict[str, Any]
    chunks: list[dict[str, Any]]
    facts: list[dict[str, Any]]


class NoteCandidatesRow(TypedDict):
    path: str


class NoteHistoryRow(TypedDict):
    path: str
    at: DateTime
    kind: str
    old_hash: str | None
    new_hash: str | None
    added: list[str]
    removed: list[str]
    renamed_from: str | None
    renamed_to: str | None  # a rename away from the path closes it (kind 'renamed')


class NotesSearchRow(TypedDict):
    path: str
    title: str
    aliases: list[str]
    tags: list[str]
    chunks: int


NOTE_DETAIL = Query("note_detail", NoteDetailRow)
NOTE_CANDIDATES = Query("note_candidates", NoteCandidatesRow)
NOTE_HISTORY = Query("note_history", NoteHistoryRow)
NOTES_SEARCH = Query("notes_search", NotesSearchRow)
