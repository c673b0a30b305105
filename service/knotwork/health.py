"""One health check, shared by ``GET /health`` and ``knotwork doctor``."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from knotwork import schema
from knotwork.core import Core
from knotwork.errors import KnotworkError
from knotwork.graph import EXPECTED_INDEXES
from knotwork.lease import lease_status
from knotwork.llm import model_present, probe_ollama
from knotwork.redact import redact
from knotwork.settings import Settings


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


class ModelReport(BaseModel):
    role: Literal["llm", "embedding"]
    name: str
    present: bool
    pull_command: str


class OllamaReport(BaseModel):
    ok: bool
    base_url: str
    # False when no configured model runs on Ollama (in-process embeddings, extraction off).
    needed: bool = True
    version: str | None = None
    models: list[ModelReport] = Field(default_factory=list)
    error: str | None = None


class ManifestReport(BaseModel):
    ok: bool
    stored: dict[str, Any] | None = None
    error: str | None = None


class HealthReport(BaseModel):
    ok: bool
    neo4j: Neo4jReport
    ollama: OllamaReport
    manifest: ManifestReport
    # The vault's lease and what its watcher last reported (heartbeat, last event, lag, queue,
    # inotify or polling, rescans, queue overflows and the last one's reason); None when no
    # watcher has run. Does not affect ``ok``.
    watcher: dict[str, Any] | None = None


async def _neo4j(core: Core) -> Neo4jReport:
    report = Neo4jReport(ok=False, uri=redact(core.settings.neo4j_uri))
    try:
        info = await schema.check_server(core.store)
        report.version, report.edition = info.version, info.edition
        report.apoc = await core.store.apoc_installed()
        states = await core.store.index_states()
    except KnotworkError as exc:
        report.error = redact(str(exc))
        return report
    report.indexes = [
        IndexReport(name=s.name, type=s.type, state=s.state, population=s.population)
        for s in states
    ]
    online = {s.name for s in states if s.state == "ONLINE"}
    report.missing_indexes = [n for n in EXPECTED_INDEXES if n not in online]
    if report.missing_indexes:
        report.error = (
            f"indexes not ONLINE: {', '.join(report.missing_indexes)}; `knotwork init` creates them"
        )
    report.ok = not report.missing_indexes
    return report


def ollama_models(settings: Settings) -> list[tuple[Literal["llm", "embedding"], str]]:
    """The models Ollama must have pulled: an in-process embedder leaves it only extraction."""
    if settings.embed_provider != "ollama":
        return [("llm", settings.llm_model)] if settings.extract else []
    return [("llm", settings.llm_model), ("embedding", settings.embed_model)]


async def _ollama(core: Core) -> OllamaReport:
    settings = core.settings
    report = OllamaReport(ok=False, base_url=redact(settings.ollama_base_url))
    wanted = ollama_models(settings)
    if not wanted:
        report.ok, report.needed = True, False
        return report
    try:
        status = await probe_ollama(settings.ollama_base_url)
    except KnotworkError as exc:
        report.error = redact(str(exc))
        return report
    report.version = status.version
    report.models = [
        ModelReport(
            role=role,
            name=name,
            present=model_present(name, set(status.models)),
            pull_command=f"ollama pull {name}",
        )
        for role, name in wanted
    ]
    missing = [m.name for m in report.models if not m.present]
    if missing:
        report.error = f"models not pulled: {', '.join(missing)}"
    report.ok = not missing
    return report


async def _manifest(core: Core) -> ManifestReport:
    try:
        stored = await schema.check_manifest(core.store, core.settings)
    except KnotworkError as exc:
        return ManifestReport(ok=False, error=redact(str(exc)))
    if stored is None:
        return ManifestReport(ok=False, error="no manifest yet; `knotwork init` writes it")
    return ManifestReport(ok=True, stored=stored)


async def check_health(core: Core) -> HealthReport:
    neo4j = await _neo4j(core)
    ollama = await _ollama(core)
    manifest = (
        await _manifest(core)
        if neo4j.version
        else ManifestReport(ok=False, error="Neo4j not reachable")
    )
    watcher = None
    if neo4j.version:
        try:
            watcher = await lease_status(core.store, core.settings.vault_name)
        except KnotworkError:
            watcher = None
    return HealthReport(
        ok=neo4j.ok and ollama.ok and manifest.ok,
        neo4j=neo4j,
        ollama=ollama,
        manifest=manifest,
        watcher=watcher,
    )
