"""The exceptions Knotwork raises. Entry points translate them; the core never raises HTTP errors.
REST answers each with the status ``api.app._STATUS`` gives its class (500 for one it does not
list; a 503 says Retry-After) and the body ``{"error": class name, "detail": message}``.

KnotworkError
├── ConfigError            a setting is missing or unsafe (exit code 2 in the CLI)
│   └── EvalInputError     a question file, corpus or folder the evaluation cannot use
├── GraphUnavailableError  Neo4j cannot be reached, refuses the credentials, or is too old
│   ├── GraphAuthError     Neo4j refused the user name or password
│   ├── GraphBusyError     every pooled connection is in use and none came free in time
│   └── GraphTransientError  a transient failure (deadlock, leader switch, database starting)
│                          outlasted the retries: wait and try again
├── GraphQueryError        Neo4j refused or failed a query otherwise (a client or database
│                          error): retrying the same query will not help
├── QueryTimeoutError      Neo4j stopped a query that ran past its time limit
├── SchemaError            constraints or indexes could not be created or did not come ONLINE
├── ManifestMismatchError  the graph was built with another embedding model or dimension, or
│                          re-embedded with one since this process last found it matching
│   └── ReembedInterruptedError  a re-embedding was interrupted (or runs now): run it again
├── ModelUnavailableError  a model server (Ollama, OpenAI-like) is unreachable or lacks a model,
│                          or the in-process embedder's worker process died and would not restart
│   └── VectorsRejectedError  the embedding model answered vectors that cannot be stored
├── LocalNeo4jError        the local (no Docker) Neo4j could not be resolved, started or stopped
├── VaultPathError         a note path is absolute, escapes the vault, or holds control characters
├── FilterError            a search filter that names nothing (an empty tag: ``#``)
├── VaultUnavailableError  the vault folder is missing, unreadable, or empty while the graph holds
│                          its notes: a sync that would delete them all stops (exit code 2)
├── VaultFolderError       the vault name's notes were synced from another folder: a sync of
│                          this one would delete them, so it stops (exit code 2);
│                          a REST or MCP write into it would not land in the vault
├── NoteError              a file cannot be ingested as a note (binary, too large, unreadable)
│   └── NoteTooLargeError  larger than KNOTWORK_MAX_NOTE_BYTES
├── NoteNotFoundError      a valid vault path that the graph holds no note at
├── EmptyVaultError        the vault holds no embedded chunks to calibrate against (exit code 3)
├── WriteConflictError     a write the vault's state refuses (a symlink, a case variant, a folder)
├── StorageFullError       the disk holding the vault or the journal has no space left
├── ServerBusyError        every retrieval slot is taken and the queue is full
├── LeaseHeldError         another live writer (a watcher) holds the vault's lease
│   └── LeaseLostError     a writer's lease was taken over while it wrote (it stops writing)
│       └── ReembedRunningError  a `knotwork reembed` holds every vault of the database
├── QueryNotFoundError     a named Cypher query does not exist in cypher/
└── RetrieverClosedError   a KnotworkRetriever (LlamaIndex) asked after, or while, it was closed
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from knotwork.model_names import embed_settings


class KnotworkError(Exception):
    """Root of every error Knotwork raises on purpose."""


class ConfigError(KnotworkError):
    """A setting is missing, malformed or unsafe."""


class EvalInputError(ConfigError):
    """A question file, corpus or folder given to the evaluation cannot be used as it is: the
    user's to fix, so the CLI exits 2 (a ConfigError), as for any bad argument."""


class GraphUnavailableError(KnotworkError):
    """Neo4j is unreachable, rejects the credentials, or is older than supported."""


class GraphAuthError(GraphUnavailableError):
    """Neo4j answered but refused the user name or password: starting it again will not help."""


class GraphBusyError(GraphUnavailableError):
    """Every connection of the driver's pool is in use and none came free in time."""


class GraphTransientError(GraphUnavailableError):
    """Neo4j kept answering a transient error (a deadlock, a leader switch, a database
    starting or stopping) past the runner's retries: the same work may succeed shortly, so
    callers wait and try again as for Neo4j away. ``code`` is Neo4j's status code."""

    def __init__(self, message: str, code: str = "") -> None:
        super().__init__(message)
        self.code = code


class GraphQueryError(KnotworkError):
    """Neo4j refused or failed a query for a reason other than being out of reach or busy (a
    client error such as a constraint violated, a database error): the same query would fail
    again, so the work it belongs to fails. ``code`` is Neo4j's status code."""

    def __init__(self, message: str, code: str = "") -> None:
        super().__init__(message)
        self.code = code


class QueryTimeoutError(KnotworkError):
    """Neo4j stopped a query that ran past its time limit: a question's read past
    ``KNOTWORK_NEO4J_QUERY_TIMEOUT_S`` (``graph.transactions.reads_within``), or any
    transaction past the server's own ``db.transaction.timeout``."""


class SchemaError(KnotworkError):
    """The schema could not be applied or its indexes did not come ONLINE in time, or the graph
    was written by a newer Knotwork (a newer schema version than this one knows)."""


class ManifestMismatchError(KnotworkError):
    """The graph's manifest names another embedding model or dimension than the settings.
    ``changed``: the manifest matched them before, in this process (a `knotwork reembed` ran
    while it served), so the advice is a restart with the graph's settings. ``stored_model``
    None: vector indexes left with no manifest naming their model (a graph emptied, its indexes
    kept), so the advice names no model it cannot know. ``wanted_provider``: the settings'
    KNOTWORK_EMBED_PROVIDER; the advice names the graph's model's when it is another: the
    manifest's ``stored_provider``, guessed from the model's name when it records none."""

    def __init__(
        self,
        stored_model: str | None,
        stored_dim: int,
        wanted_model: str,
        wanted_dim: int,
        *,
        changed: bool = False,
        wanted_provider: str = "ollama",
        stored_provider: str | None = None,
    ):
        self.stored_model, self.stored_dim = stored_model, stored_dim
        self.wanted_model, self.wanted_dim = wanted_model, wanted_dim
        self.wanted_provider, self.stored_provider = wanted_provider, stored_provider
        graph_settings = embed_settings(
            stored_model or "", stored_dim, wanted_provider, stored_provider
        )
        if changed:
            super().__init__(
                f"The graph was re-embedded with {stored_model!r} ({stored_dim} dimensions) "
                f"after this process started with {wanted_model!r} ({wanted_dim} dimensions): "
                "its writes and questions are refused, as the graph's vector index would "
                "ignore their vectors. Restart it (`knotwork serve`, `mcp`, `watch`) with the "
                f"settings the graph was re-embedded with: {graph_settings}."
            )
            return
        if stored_model is None:
            super().__init__(
                f"The graph's vector indexes are of {stored_dim} dimensions, with no manifest "
                f"naming their model, but the settings ask for {wanted_model!r} ({wanted_dim} "
                "dimensions). Either rebuild them for the settings' model: `knotwork reembed` "
                "(it re-embeds the chunks the graph holds, if any), or set "
                f"KNOTWORK_EMBED_DIMENSION={stored_dim} together with the KNOTWORK_EMBED_MODEL "
                f"of {stored_dim} dimensions that made them."
            )
            return
        super().__init__(
            f"The graph was embedded with {stored_model!r} ({stored_dim} dimensions) but the "
            f"settings ask for {wanted_model!r} ({wanted_dim} dimensions). Either set "
            f"{graph_settings}, "
            f"or re-embed every chunk with the new model: `knotwork reembed`."
        )


class ReembedInterruptedError(ManifestMismatchError):
    """The manifest is marked as re-embedding to ``model``: a `knotwork reembed` runs now
    (``running`` names it) or was cut off, its vectors and indexes part one model's, part the
    other's. Refused as a mismatch is, by every command and server, whatever its settings;
    only `knotwork reembed` run again (or let finish) mends it."""

    def __init__(
        self,
        model: str,
        dimension: int,
        wanted_model: str,
        wanted_dim: int,
        *,
        running: str | None = None,
    ) -> None:
        self.stored_model, self.stored_dim = model, dimension
        self.wanted_model, self.wanted_dim = wanted_model, wanted_dim
        self.running = running
        if running:
            KnotworkError.__init__(
                self,
                f"the graph is being re-embedded to {model!r} ({dimension} dimensions) by "
                f"`knotwork reembed` ({running}): writes and questions are refused until it "
                "is done; then start the writers and servers with that model's settings.",
            )
            return
        KnotworkError.__init__(
            self,
            f"a re-embedding to {model!r} ({dimension} dimensions) was interrupted: run "
            "`knotwork reembed` again (it redoes it, with the configured KNOTWORK_EMBED_MODEL); "
            "until it completes, the graph's vectors are part one model's, part another's, "
            "so writes and questions are refused.",
        )


class ModelUnavailableError(KnotworkError):
    """A model server (Ollama, an OpenAI-compatible one) is unreachable, or a configured model
    has not been pulled; or the in-process embedder's worker process died again after its one
    restart, or failed on a batch (the message quotes its exit status and stderr)."""


class VectorsRejectedError(ModelUnavailableError):
    """The embedding model answered, with vectors that cannot be stored (another count or
    size, NaN, infinity, zeros): nothing of the answer is stored; says why."""


class LocalNeo4jError(KnotworkError):
    """The local Neo4j server could not be resolved, configured, started or stopped."""


class VaultPathError(KnotworkError, ValueError):
    """A note path is absolute, contains '..', NUL or control characters, or leaves the vault."""


class FilterError(KnotworkError, ValueError):
    """A search filter that names nothing, such as a tag of ``#`` or spaces alone: a search by
    it would find nothing and seem to say no note matches (HTTP 422)."""


class VaultUnavailableError(KnotworkError):
    """The vault folder is missing, not a folder, unreadable, or empty while the graph holds
    notes of it (an unmounted drive, a typo in the path): a sync stops before it deletes
    anything."""


class VaultFolderError(KnotworkError):
    """A sync of a folder other than the one the vault's notes were synced from (another
    folder, or a subfolder, under the same vault name): it would delete every note the folder
    lacks, so it stops before it changes anything; or a REST or MCP write into such a folder,
    which would not land in the vault's. The message names both folders."""


class NoteError(KnotworkError):
    """A file cannot be ingested as a note: binary, larger than the limit, or unreadable."""


class NoteTooLargeError(NoteError):
    """A note larger than ``KNOTWORK_MAX_NOTE_BYTES``."""


class NoteNotFoundError(KnotworkError, LookupError):
    """The path is a valid vault path, but the graph holds no note there."""


class EmptyVaultError(KnotworkError, LookupError):
    """The vault holds no embedded chunks, so there is nothing to calibrate against."""


class WriteConflictError(KnotworkError):
    """A note write or delete that conflicts with what the vault holds, so nothing is done:
    the path goes through a symbolic link, differs only by letter case from an existing note,
    names a folder, or lies under a file. The message names the conflicting path (HTTP 409)."""


class StorageFullError(KnotworkError):
    """A note write found no space left (or the quota spent) on the file system of the vault
    or of the journal of pending writes: nothing was written (HTTP 507)."""


class ServerBusyError(KnotworkError):
    """More retrievals and answers at once than ``KNOTWORK_API_MAX_CONCURRENT`` running plus
    ``KNOTWORK_API_MAX_WAITING`` waiting: retry shortly."""


class LeaseHeldError(KnotworkError):
    """Another live process holds the vault's one-writer lease; the message says which.
    ``held_by``: that lease as the refusing query itself read it (vault, holder, host, pid,
    mode, watches, heartbeat_at), so a caller that needs the holder does not read it again
    (the holder may have gone by then); None when no single holder refused it."""

    def __init__(self, message: str, held_by: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.held_by: dict[str, Any] | None = None if held_by is None else dict(held_by)


class LeaseLostError(LeaseHeldError):
    """A writer found at a heartbeat that its lease lapsed and another holder took it (or it
    was given back): it stops writing at once rather than race the new holder. ``lapsed``
    says what happened without what to do about it (a watcher that waits says its own)."""

    def __init__(self, message: str, lapsed: str = "") -> None:
        super().__init__(message)
        self.lapsed = lapsed or message


class ReembedRunningError(LeaseLostError):
    """A live `knotwork reembed` holds every vault of the database (graph/reembed_guard.py): a
    writer is refused, or one whose lease it found lapsed stops. Not waited out: the graph
    names another model once it is done."""


class QueryNotFoundError(KnotworkError, KeyError):
    """A Cypher query was asked for by a name that has no file in cypher/."""


class RetrieverClosedError(KnotworkError):
    """A ``KnotworkRetriever`` was asked to retrieve after ``close()``, or was closed while a
    retrieval ran (which then ends with this rather than wait for a loop that is gone)."""
