"""The health report's shape, as ``GET /health`` returns it and ``knotwork doctor`` prints it:
each dependency's report (Neo4j, Ollama, the manifest, the relevance gate, zero vectors left
by an older version), the capabilities ready or not, and the whole. ``check.health`` fills it in.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from knotwork.llm.providers import ChatServerReport


class IndexReport(BaseModel):
    name: str
    type: str
    state: str
    population: float


class Neo4jReport(BaseModel):
    ok: bool
    uri: str
    version: str | None = None
    edition: str | None = None
    apoc: bool | None = None
    indexes: list[IndexReport] = Field(default_factory=list)
    missing_indexes: list[str] = Field(default_factory=list)
    error: str | None = None
    # Neo4j refused the credentials: the fix is the password, not a start. Left out of the
    # JSON (``error`` says it in words), so /health's shape does not change.
    credentials_refused: bool = Field(default=False, exclude=True)
    # The driver found no server to talk to (down, a wrong port or host): the fix is a start.
    unreachable: bool = Field(default=False, exclude=True)


class ModelReport(BaseModel):
    role: Literal["llm", "embedding"]
    name: str
    present: bool
    pull_command: str


class OllamaReport(BaseModel):
    ok: bool
    base_url: str
    version: str | None = None
    models: list[ModelReport] = Field(default_factory=list)
    error: str | None = None


class ManifestReport(BaseModel):
    ok: bool
    stored: dict[str, Any] | None = None
    error: str | None = None
    # What the capabilities say of a manifest that fails, short (``error`` says it whole),
    # and the fix that works for it; left out of the JSON, as ``error`` says them in words.
    reason: str | None = Field(default=None, exclude=True)
    fix: str | None = Field(default=None, exclude=True)


class Capability(BaseModel):
    """One thing the service does, ready or not; ``needed`` is False when the settings turn
    it off (extraction with ``KNOTWORK_EXTRACT=false``), and then it does not affect ``ok``."""

    ready: bool
    needed: bool = True
    reason: str | None = None
    fix: str | None = None


class RelevanceReport(BaseModel):
    """Whether the vault's relevance gate is calibrated for the embedding model (see
    retrieve/relevance.py); an uncalibrated gate works, on the raw cosine."""

    calibrated: bool
    floor: float | None = None
    probes: int | None = None
    languages: list[str] = Field(default_factory=list)
    fix: str | None = None


class EmbeddingsReport(BaseModel):
    """Zero vectors a graph written before embeddings were checked still holds (counted only
    while its manifest predates the check: graph/zero_vectors.py); their chunks are out of
    vector search's reach, the rest of search works."""

    zero_chunks: int
    zero_entities: int
    reason: str
    fix: str


class HealthReport(BaseModel):
    ok: bool  # every needed capability is ready
    capabilities: dict[Literal["ingest", "search", "answers", "extraction"], Capability]
    neo4j: Neo4jReport
    ollama: OllamaReport | None  # None when neither model is served by Ollama
    llm_server: ChatServerReport | None = None  # with KNOTWORK_LLM_PROVIDER=openai-like
    manifest: ManifestReport
    relevance: RelevanceReport | None = None  # None when Neo4j is not reachable
    embeddings: EmbeddingsReport | None = None  # None: no zero vector (or none counted)
    # The vault's lease and what its watcher last reported (heartbeat, last event, lag, queue,
    # inotify or polling, rescans, queue overflows and the last one's reason); None when no
    # watcher has run. Does not affect ``ok``.
    watcher: dict[str, Any] | None = None
