"""The server, schema, manifest and lease queries, re-embedding, verification's dumps, and the
counts the CLI, evaluation and benchmarks read."""

from __future__ import annotations

from typing import Any, TypedDict

from neo4j.time import DateTime

from knotwork.graph.queries import NoRow, Query
from knotwork.graph.queries.writes import DeletedRow, UpdatedRow

# Server, schema and manifest (graph/store.py, graph/schema.py).


class ServerInfoRow(TypedDict):
    name: str
    version: str
    edition: str


class ApocRow(TypedDict):
    apoc: bool


class IndexStatesRow(TypedDict):
    name: str
    type: str
    state: str
    population: float
    dimension: int | None


class ManifestRow(TypedDict):
    manifest: dict[str, Any]  # the Manifest node's properties


class ManifestGetRow(TypedDict):
    manifest: dict[str, Any]
    reembed: dict[str, Any] | None  # the live re-embedding's lease: holder, host, pid


class ManifestReembeddedRow(TypedDict):
    ok: bool  # written: the re-embedding still held its lease over every vault
    manifest: dict[str, Any] | None
    reembed: dict[str, Any] | None  # the lease's live holder now (another re-embedding)


class ResetRow(TypedDict):
    reset: int


SERVER_INFO = Query("server_info", ServerInfoRow)
APOC_INSTALLED = Query("apoc_installed", ApocRow)
AWAIT_INDEXES = Query("await_indexes", NoRow)
INDEX_STATES = Query("index_states", IndexStatesRow)
MANIFEST_GET = Query("manifest_get", ManifestGetRow)
MANIFEST_REEMBEDDING = Query("manifest_reembedding", ManifestRow)
MANIFEST_PUT = Query("manifest_put", ManifestRow)
MANIFEST_REEMBEDDED = Query("manifest_reembedded", ManifestReembeddedRow)
VAULT_DROP_BATCH = Query("vault_drop_batch", DeletedRow)
ENTITIES_EMBEDDING_RESET = Query("entities_embedding_reset", ResetRow)

# Re-embedding every chunk (graph/schema.py through GraphStore's methods).


class ChunkCountRow(TypedDict):
    chunks: int


class ChunksPageRow(TypedDict):
    id: str
    embed_hash: str
    context: str
    text: str | None


class RefusedChunkRow(TypedDict):
    vault: str
    note_path: str | None


CHUNK_COUNT = Query("chunk_count", ChunkCountRow)
CHUNKS_PAGE = Query("chunks_page", ChunksPageRow)
CHUNK_EMBEDDING_SET = Query("chunk_embedding_set", UpdatedRow)
CHUNKS_EMBEDDING_REFUSED = Query("chunks_embedding_refused", RefusedChunkRow)

# Lao, Khmer and Myanmar runs paired in chunks written before chunks kept them (graph/pairs.py).


class UnpairedChunkRow(TypedDict):
    id: str
    text: str


CHUNKS_UNPAIRED = Query("chunks_unpaired", UnpairedChunkRow)
CHUNK_PAIRS_SET = Query("chunk_pairs_set", UpdatedRow)

# Zero vectors left by versions before embeddings were checked (graph/zero_vectors.py).


class ZeroVectorsRow(TypedDict):
    chunks: int
    entities: int


class ZeroVectorsResetRow(TypedDict):
    chunks: int
    entities: int
    notes: int


VECTORS_ZERO_COUNT = Query("vectors_zero_count", ZeroVectorsRow)
VECTORS_ZERO_RESET = Query("vectors_zero_reset", ZeroVectorsResetRow)

# The writer's lease (graph/lease.py).


class LeaseHolderRow(TypedDict):
    """Whether the call took (or renewed) the lease, and who holds it."""

    ok: bool
    holder: str | None
    host: str | None
    pid: int | None
    mode: str | None  # what the holder is: inotify/polling (a watcher), rest-write, cli-ingest…
    watches: bool | None  # whether the holder follows the files (null: recorded before it was)
    folder: str | None  # a watcher's folder and its identity (device:inode): REST writes are
    folder_id: str | None  # left to it only by a server of that folder
    heartbeat_at: DateTime | None
    expires_at: DateTime | None  # when the lease lapses unless renewed (the holder's own TTL)
    process_ns: str | None  # where the holder runs (graph/lease_gone.py); null: recorded before
    reembed: dict[str, Any] | None  # a live re-embedding's lease that refused it


class ReembedLeaseRow(TypedDict):
    ok: bool
    holders: list[dict[str, Any]]  # the live leases that refused it


class ReembedRenewRow(TypedDict):
    ok: bool
    holder: str | None  # whoever holds it now (the lapsed holder's own when no one took it)
    host: str | None
    pid: int | None
    mode: str | None
    heartbeat_at: str | None


class ReembedHoldersRow(TypedDict):
    holders: list[dict[str, Any]]  # the live leases that would refuse it


class LeaseGetRow(TypedDict):
    lease: dict[str, Any]  # its properties, temporal values as strings
    live: bool


class ReleasedRow(TypedDict):
    released: int


LEASE_ACQUIRE = Query("lease_acquire", LeaseHolderRow)
LEASE_RENEW = Query("lease_renew", LeaseHolderRow)
LEASE_GET = Query("lease_get", LeaseGetRow)
LEASE_RELEASE = Query("lease_release", ReleasedRow)
LEASE_REEMBED_ACQUIRE = Query("lease_reembed_acquire", ReembedLeaseRow)
LEASE_REEMBED_RELEASE = Query("lease_reembed_release", ReleasedRow)
LEASE_REEMBED_RENEW = Query("lease_reembed_renew", ReembedRenewRow)
LEASE_REEMBED_HOLDERS = Query("lease_reembed_holders", ReembedHoldersRow)

# Relevance calibration (retrieve/relevance.py).


class CalibrationGetRow(TypedDict):
    floor: float
    probe_mean: float | None
    probes: int
    languages: list[str]
    calibrated_at: DateTime


class CalibrationPutRow(TypedDict):
    vault: str


class CalibrationDropRow(TypedDict):
    dropped: int


CALIBRATION_GET = Query("calibration_get", CalibrationGetRow)
CALIBRATION_PUT = Query("calibration_put", CalibrationPutRow)
CALIBRATION_DROP = Query("calibration_drop", CalibrationDropRow)

# Verification (check/verify.py): a canonical line per node or fact.


class DumpLineRow(TypedDict):
    line: str


class DumpChunksRow(TypedDict):
    line: str
    parsed: str


class DumpNoteFieldsRow(TypedDict):
    path: str
    title: str
    stem: str
    lpath: str
    content_hash: str
    aliases: list[str] | None
    tags: list[str] | None
    dates: list[str] | None
    frontmatter_error: str | None
    mentioned_by: int


class DumpChunkFieldsRow(TypedDict):
    path: str
    ord: int
    heading_path: str
    line_start: int
    line_end: int
    hash: str
    embedding_state: str
    extraction_state: str
    next: list[int]
    entities: list[str]
    language: str | None
    labels: list[str]


class DumpFactsRow(TypedDict):
    line: str
    extractor: str


DUMP_NOTES = Query("dump_notes", DumpNoteFieldsRow)
DUMP_CHUNKS = Query("dump_chunks", DumpChunkFieldsRow)
DUMP_FACTS = Query("dump_facts", DumpFactsRow)
DUMP_NODES = Query("dump_nodes", DumpLineRow)


class ScratchVaultsRow(TypedDict):
    vault: str


SCRATCH_VAULTS = Query("scratch_vaults", ScratchVaultsRow)


class ScratchKeptNotesRow(TypedDict):
    path: str
    content_hash: str


SCRATCH_KEPT_NOTES = Query("scratch_kept_notes", ScratchKeptNotesRow)

# Counts and lists for the CLI, evaluation, tests and benchmarks.


class VaultStatsRow(TypedDict):
    notes: int
    chunks: int
    entities: int
    unresolved: int
    pending_embeddings: int
    pending_extractions: int
    extraction_errors: int
    facts: list[list[Any]]  # [extractor, count] pairs


class UnresolvedLinksRow(TypedDict):
    target: str
    sources: list[str]


class MentionsCountsRow(TypedDict):
    path: str
    mentions: int
    notes: int


class EvalSectionsRow(TypedDict):
    path: str
    title: str
    heading_path: str


class NoteMtimesRow(TypedDict):
    path: str
    mtime: float | None


VAULT_STATS = Query("vault_stats", VaultStatsRow)
UNRESOLVED_LINKS = Query("unresolved_links", UnresolvedLinksRow)
MENTIONS_COUNTS = Query("mentions_counts", MentionsCountsRow)
EVAL_SECTIONS = Query("eval_sections", EvalSectionsRow)
NOTE_MTIMES = Query("note_mtimes", NoteMtimesRow)
