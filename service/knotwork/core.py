"""The core: one object that owns the Neo4j driver and the model clients.

The API, CLI, watcher and MCP server each open one Core and pass it down; nothing else creates a
driver or a model client. The model clients are built on first use
(knotwork.llm.clients.ModelClients): LlamaIndex takes seconds to import, and most commands never
call a model.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from neo4j import AsyncDriver, AsyncGraphDatabase, NotificationDisabledCategory

from knotwork.graph import schema
from knotwork.graph.liveness import Watchdog
from knotwork.graph.memo import Memo
from knotwork.graph.names import NameIndex
from knotwork.graph.store import GraphStore
from knotwork.llm.clients import ModelClients
from knotwork.settings import Settings
from knotwork.vault.locks import NoteLocks

if TYPE_CHECKING:
    from llama_index.core.base.embeddings.base import BaseEmbedding
    from llama_index.core.llms import LLM

    from knotwork.llm.embed_trouble import EmbedTrouble

# How old this process's reading of the graph's manifest may be when a write embeds or a
# question is asked: a `knotwork reembed` elsewhere is seen within this long, for one small
# read per period however busy the process is (and it waits this long after its mark).
MANIFEST_RECHECK_S = schema.MANIFEST_RECHECK_S


@dataclass
class Core:
    settings: Settings
    driver: AsyncDriver
    store: GraphStore
    models: ModelClients  # the chat model and the embedder, each built on first use
    # vault → (monotonic time, note count): retrieval's document count, which costs a scan of
    # the vault's notes and need not be exact to the note (see retrieve/named.vault_notes).
    vault_sizes: dict[str, tuple[float, int]] = field(default_factory=dict)
    # (read at, (floor, probes' mean) or None) per vault and embedding model: see
    # retrieve/relevance.py.
    relevance_floors: dict[str, tuple[float, tuple[float, float | None] | None]] = field(
        default_factory=dict
    )
    # Walks and note counts under each vault's generation (retrieve/cached.py).
    memo: Memo = field(default_factory=Memo)
    # vault → (stamp token, its note names): mention matching without reading every note's
    # names for each edit; valid while the graph's NameStamp holds the same token.
    names: dict[str, tuple[str, NameIndex]] = field(default_factory=dict)
    # One lock per note (case-folded path): every writer in this process holds it from its
    # first check of a note to its last graph write, so writes to one note never interleave.
    note_locks: NoteLocks = field(default_factory=NoteLocks)
    # Held by a single edit from reading the cached names to writing its batch: its mentions
    # and links resolve against names no other write of this process changes meanwhile (a
    # link resolved to a note deleted in between would bring the note back as a placeholder).
    names_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    # vault → the embedding model's trouble with it (llm/embed_trouble.py): every writer of
    # the vault in this process meets the same one, said once, not once a writer.
    embed_trouble: dict[str, EmbedTrouble] = field(default_factory=dict)
    # vault → the monotonic time before which its chat model is not asked again (its back-off,
    # ingest/modelcalls.py): kept here for the same reason, a /sync waits out the last one's.
    chat_down_until: dict[str, float] = field(default_factory=dict)
    # Whether the server was made to plan the write queries ahead (ingest/rehearse.py).
    writes_rehearsed: bool = False
    # The graph's manifest as last read (monotonic time, manifest), whether it ever matched
    # the settings in this process, and the lock that makes concurrent checks share one read:
    # see check_manifest.
    manifest_read: tuple[float, dict[str, Any] | None] | None = None
    manifest_matched: bool = False
    manifest_lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    @property
    def llm(self) -> LLM:
        """The configured provider's chat model (knotwork.llm.providers)."""
        return self.models.llm

    @property
    def embedder(self) -> BaseEmbedding:
        """Ollama's client or the in-process sentence-transformers one."""
        return self.models.embedder

    async def load_llm(self) -> LLM:
        """The chat model, built off the event loop when it is not built yet."""
        return await self.models.load_llm()

    async def load_embedder(self) -> BaseEmbedding:
        """The embedder, built off the event loop when it is not built yet."""
        return await self.models.load_embedder()

    async def ensure_ready(self) -> dict[str, Any]:
        """Apply the schema and check the manifest; returns the manifest."""
        manifest = await schema.ensure_ready(self.store, self.settings)
        self.manifest_read, self.manifest_matched = (time.monotonic(), manifest), True
        return manifest

    async def check_manifest(self) -> dict[str, Any] | None:
        """The graph's manifest (None before the first `init`), read again at most every
        ``MANIFEST_RECHECK_S``, concurrent callers sharing one read; ManifestMismatchError
        when it names another embedding model or dimension than the settings.

        Called before a write embeds and before a question: a `knotwork reembed` run while
        this process serves switches the graph under it, and its old model's vectors would be
        stored where the vector index ignores them, or compared with the graph's by noise. A
        mismatch after a match says to restart with the graph's settings."""
        async with self.manifest_lock:
            read = self.manifest_read
            if read is None or time.monotonic() - read[0] >= MANIFEST_RECHECK_S:
                read = self.manifest_read = (time.monotonic(), await self.store.get_manifest())
        manifest = read[1]
        refused = schema.mismatch(manifest, self.settings, changed=self.manifest_matched)
        if refused is not None:
            raise refused
        self.manifest_matched = self.manifest_matched or manifest is not None
        return manifest


@asynccontextmanager
async def open_core(settings: Settings) -> AsyncIterator[Core]:
    """Open the driver and clients (no connection is made, and no model client built, until
    first use); close on exit. ConfigError for an in-process embedder that is not installed."""
    models = ModelClients(settings)
    auth = (settings.neo4j_user, settings.password())
    driver = AsyncGraphDatabase.driver(
        settings.neo4j_uri,
        auth=auth,
        # The TCP connect only; the Bolt handshake and login are bounded by the acquisition
        # time, which is also a busy pool's wait (GraphBusyError) and so stays long: a server
        # that does not answer is told apart by the store's watchdog (graph/liveness.py).
        connection_timeout=settings.neo4j_unavailable_after_s,
        connection_acquisition_timeout=30.0,
        # Queries name labels that an empty graph does not have yet; that is expected.
        # and schema statements are idempotent ("already exists" is the normal answer).
        notifications_disabled_categories=[
            NotificationDisabledCategory.UNRECOGNIZED,
            NotificationDisabledCategory.SCHEMA,
        ],
    )
    watchdog = Watchdog(
        settings.neo4j_uri, auth, unavailable_after_s=settings.neo4j_unavailable_after_s
    )
    try:
        yield Core(
            settings=settings,
            driver=driver,
            store=GraphStore(
                driver,
                settings.neo4j_database,
                unavailable_after_s=settings.neo4j_unavailable_after_s,
                uri=settings.neo4j_uri,
                watchdog=watchdog,
            ),
            models=models,
        )
    finally:
        try:
            await watchdog.close()
            await driver.close()
        finally:
            await asyncio.to_thread(models.close)
