"""One health check, shared by ``GET /health`` and ``knotwork doctor``: each dependency, then
what the service can do with them — ingest (the graph and the vault folder), search, answers,
extraction — each ready or not, with the reason and the fix (``check.capabilities``). The chat
model is probed where the settings say it answers: Ollama, or the OpenAI-compatible server
(``GET /models``). The report's shape is ``check.reports``."""

from __future__ import annotations

from typing import Literal

from knotwork.check.capabilities import capabilities
from knotwork.check.folder import vault_folder_problem
from knotwork.check.reports import (
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
from knotwork.errors import (
    GraphAuthError,
    KnotworkError,
    ManifestMismatchError,
    ReembedInterruptedError,
)
from knotwork.graph import schema, zero_vectors
from knotwork.graph.lease import lease_status, watches
from knotwork.graph.store import EXPECTED_INDEXES
from knotwork.ingest.waiting import WATCHER
from knotwork.llm.ollama_probe import probe_ollama, pull_command
from knotwork.llm.providers import chat_server_report
from knotwork.model_names import embed_settings, model_present
from knotwork.redact import redact
from knotwork.settings import Settings

UNREACHABLE = "Neo4j is not reachable"  # how graph/failures.py begins a server not answering
# Not a failure: the gate reads raw cosines until then, and no one has to run a command.
UNCALIBRATED_FIX = (
    "the watcher or `knotwork ingest` calibrates it after a sync, once every chunk is "
    "embedded; or run `knotwork calibrate`"
)


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
        report.unreachable = str(exc).startswith(UNREACHABLE)  # not a server too old
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
            pull_command=pull_command(name),
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
    except ReembedInterruptedError as exc:  # running: wait for it; cut off: only a run again
        return ManifestReport(
            ok=False,
            error=redact(str(exc)),
            reason=f"a re-embedding to {exc.stored_model} ({exc.stored_dim} dimensions) "
            + ("is running" if exc.running else "was interrupted"),
            fix=f"wait for `knotwork reembed` ({exc.running}) to finish"
            if exc.running
            else "run `knotwork reembed` again (it redoes the re-embedding)",
        )
    except ManifestMismatchError as exc:  # `init` refuses it too: only these two mend it
        # The provider too when the graph's model is another's: the model alone is a dead end.
        graph_model = embed_settings(
            exc.stored_model or "", exc.stored_dim, exc.wanted_provider, exc.stored_provider
        )
        return ManifestReport(
            ok=False,
            error=redact(str(exc)),
            reason=f"the graph was embedded with {exc.stored_model} ({exc.stored_dim} "
            f"dimensions), not the settings' {exc.wanted_model} ({exc.wanted_dim})",
            fix=f"set {graph_model} (the graph's model), or re-embed the graph with "
            f"{exc.wanted_model}: `knotwork reembed`",
        )
    except KnotworkError as exc:
        return ManifestReport(ok=False, error=redact(str(exc)))
    if stored is None:
        return ManifestReport(
            ok=False, error="no manifest yet; `knotwork init` writes it", fix="run `knotwork init`"
        )
    return ManifestReport(ok=True, stored=stored)


async def _relevance(core: Core) -> RelevanceReport:
    row = await core.store.calibration(core.settings.vault_name, core.settings.embed_model)
    if row is None:
        return RelevanceReport(calibrated=False, fix=UNCALIBRATED_FIX)
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


async def check_health(core: Core, finisher: str | None = None) -> HealthReport:
    """The report; ``finisher``: who does the chunks a model left pending when no watcher
    holds the vault (the API server's background passes; None: `knotwork retry`)."""
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
    if watcher is not None and watcher["live"] and watches(watcher):
        finisher = WATCHER  # it does them itself, and refuses `knotwork retry`
    caps = capabilities(core.settings, neo4j, ollama, manifest, llm_server, vault_folder, finisher)
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
