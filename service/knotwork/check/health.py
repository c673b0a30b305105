"""One health check, shared by ``GET /health`` and ``knotwork doctor``: each dependency, then
what the service can do with them — ingest (the graph and the vault folder), search, answers,
extraction — each ready or not, with the reason and the fix. The chat model is probed where
the settings say it answers: Ollama, or the OpenAI-compatible server (``GET /models``). The
report's shape is ``check.reports``."""

from __future__ import annotations

import importlib.util
from typing import Literal

from knotwork.check.folder import vault_folder_problem
from knotwork.check.reports import (
    Capability,
    EmbeddingsReport,
    HealthReport,
    IndexReport,
    ManifestReport,
    ModelReport,
    Neo4jReport,
    OllamaReport,
    RelevanceReport,
)
from knotwork.core import Core
from knotwork.errors import GraphAuthError, KnotworkError
from knotwork.graph import schema, zero_vectors
from knotwork.graph.lease import lease_status
from knotwork.graph.store import EXPECTED_INDEXES
from knotwork.llm.ollama_probe import probe_ollama
from knotwork.llm.providers import ChatServerReport, chat_server_report
from knotwork.model_names import model_present
from knotwork.redact import redact
from knotwork.settings import Settings


async def _neo4j(core: Core) -> Neo4jReport:
    report = Neo4jReport(ok=False, uri=redact(core.settings.neo4j_uri))
    try:
        info = await schema.check_server(core.store)
        report.version, report.edition = info.version, info.edition
        report.apoc = await core.store.apoc_installed()
        states = await core.store.index_states()
    except KnotworkError as exc:
        report.error = redact(str(exc))
        report.credentials_refused = isinstance(exc, GraphAuthError)
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
    """The models Ollama must have pulled: the chat model unless another server answers it
    (answers need it, extraction too), the embedding model unless embeddings are computed in
    process."""
    wanted: list[tuple[Literal["llm", "embedding"], str]] = []
    if settings.llm_provider == "ollama":
        wanted.append(("llm", settings.llm_model))
    if settings.embed_provider == "ollama":
        wanted.append(("embedding", settings.embed_model))
    return wanted


def _chat_problem(server: ChatServerReport) -> Capability | None:
    """Why the OpenAI-compatible server cannot answer, with the fix; None when it can."""
    if server.ok:
        return None
    if not server.reachable:
        return Capability(
            ready=False,
            reason=f"the OpenAI-compatible server is not reachable at {server.base_url}: "
            f"{server.error}",
            fix="start the server (llama-server, vLLM, LM Studio) or set KNOTWORK_LLM_BASE_URL "
            "to its API root with /v1 (and KNOTWORK_LLM_API_KEY if it wants a key)",
        )
    return Capability(
        ready=False,
        reason=server.error,
        fix="load the model on the server, or set KNOTWORK_LLM_MODEL to one it lists"
        + (f" ({', '.join(server.served)})" if server.served else ""),
    )


def _model_problem(ollama: OllamaReport | None, role: str) -> Capability | None:
    """Why an Ollama model of ``role`` cannot be used, with the fix; None when it can."""
    if ollama is None:
        return None
    model = next((m for m in ollama.models if m.role == role), None)
    if ollama.version is None:
        return Capability(
            ready=False,
            # Why not is on the Ollama line of the report; each capability says only what.
            reason=f"Ollama is not reachable at {ollama.base_url}",
            fix="start Ollama (`ollama serve`) or set KNOTWORK_OLLAMA_BASE_URL",
        )
    if model is not None and not model.present:
        return Capability(
            ready=False, reason=f"model {model.name} is not pulled", fix=model.pull_command
        )
    return None


def _degraded(problem: Capability | None, consequence: str) -> Capability:
    if problem is None:
        return Capability(ready=True)
    return problem.model_copy(update={"reason": f"{problem.reason}; {consequence}"})


def capabilities(
    settings: Settings,
    neo4j: Neo4jReport,
    ollama: OllamaReport | None,
    manifest: ManifestReport,
    llm_server: ChatServerReport | None = None,
    vault_folder: Capability | None = None,
) -> dict[Literal["ingest", "search", "answers", "extraction"], Capability]:
    """What the service can do with the dependencies as they are; ``vault_folder`` is why
    ingest cannot read the vault folder (``check.folder``), None when it can."""
    if not neo4j.ok and neo4j.credentials_refused:
        graph = Capability(
            ready=False,
            reason=neo4j.error,
            fix="set KNOTWORK_NEO4J_USER and KNOTWORK_NEO4J_PASSWORD to the server's (a local "
            "server keeps the password it was first started with)",
        )
    elif not neo4j.ok:
        graph = Capability(
            ready=False,
            reason=neo4j.error,
            fix="start Neo4j (`knotwork neo4j start`, or compose) and run `knotwork init`",
        )
    elif not manifest.ok:
        graph = Capability(
            ready=False,
            reason=manifest.error,
            fix="`knotwork init` for a new graph, `knotwork reembed` for another embedding model",
        )
    else:
        graph = Capability(ready=True)
    if settings.embed_provider == "ollama":
        embedder = _model_problem(ollama, "embedding")
    elif settings.embed_provider == "use-multilingual":
        embedder = None  # a dependency of every install; check_embedder vetted its settings
    elif importlib.util.find_spec("sentence_transformers") is None:
        embedder = Capability(
            ready=False,
            reason="in-process embeddings need sentence-transformers, which is not installed",
            fix="pip install -e '.[local-embed]' (README: Embeddings without Ollama)",
        )
    else:
        embedder = None
    chat = _chat_problem(llm_server) if llm_server is not None else _model_problem(ollama, "llm")
    if not graph.ready:
        search = answers = graph
    else:
        search = _degraded(embedder, "only full-text search answers")
        answers = _degraded(
            chat, "/query and the MCP `ask` tool answer model_unavailable; mode `retrieve` works"
        )
    if not settings.extract:
        extraction = Capability(
            ready=False,
            needed=False,
            reason="off (KNOTWORK_EXTRACT=false): structural facts only",
            fix="set KNOTWORK_EXTRACT=true, then `knotwork retry`",
        )
    else:
        extraction = _degraded(chat, "chunks wait for extraction; `knotwork retry` finishes them")
    ingest = graph if not graph.ready or vault_folder is None else vault_folder
    return {"ingest": ingest, "search": search, "answers": answers, "extraction": extraction}


async def _ollama(core: Core) -> OllamaReport | None:
    settings = core.settings
    wanted = ollama_models(settings)
    if not wanted:
        return None
    report = OllamaReport(ok=False, base_url=redact(settings.ollama_base_url))
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


async def _relevance(core: Core) -> RelevanceReport:
    row = await core.store.calibration(core.settings.vault_name, core.settings.embed_model)
    if row is None:
        return RelevanceReport(calibrated=False, fix="`knotwork calibrate` once the vault is in")
    return RelevanceReport(
        calibrated=True, floor=row["floor"], probes=row["probes"], languages=row["languages"]
    )


async def _embeddings(core: Core, manifest: ManifestReport) -> EmbeddingsReport | None:
    """Zero vectors of a graph whose manifest predates the check (a scan of every vector; a
    graph opened by this version holds none)."""
    if not manifest.ok or not zero_vectors.predates_check(manifest.stored):
        return None
    found = await zero_vectors.count(core.store)
    if not found:
        return None
    return EmbeddingsReport(
        zero_chunks=found.chunks,
        zero_entities=found.entities,
        reason=zero_vectors.said(found),
        fix=zero_vectors.FIX,
    )


async def check_health(core: Core) -> HealthReport:
    neo4j = await _neo4j(core)
    ollama = await _ollama(core)
    llm_server = await chat_server_report(core.settings)
    manifest = (
        await _manifest(core)
        if neo4j.version
        else ManifestReport(
            ok=False,
            error="Neo4j refused the login" if neo4j.credentials_refused else "Neo4j not reachable",
        )
    )
    watcher = relevance = embeddings = None
    vault_folder = await vault_folder_problem(core, graph_read=neo4j.ok)
    if neo4j.version:
        try:
            watcher = await lease_status(core.store, core.settings.vault_name)
            relevance = await _relevance(core)
            embeddings = await _embeddings(core, manifest)
        except KnotworkError:
            pass
    caps = capabilities(core.settings, neo4j, ollama, manifest, llm_server, vault_folder)
    return HealthReport(
        ok=all(c.ready for c in caps.values() if c.needed),
        capabilities=caps,
        neo4j=neo4j,
        ollama=ollama,
        llm_server=llm_server,
        manifest=manifest,
        relevance=relevance,
        embeddings=embeddings,
        watcher=watcher,
    )
