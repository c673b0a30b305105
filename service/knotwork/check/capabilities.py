"""What the service can do with its dependencies as the health check found them: ingest (the
graph and the vault folder), search, answers and extraction, each ready or not, with the
reason and the fix that works. Each says only what fails; why is on its dependency's line of
the report, said once (a driver's error runs to hundreds of characters)."""

from __future__ import annotations

import importlib.util
from typing import Literal

from knotwork.check.reports import Capability, ManifestReport, Neo4jReport, OllamaReport
from knotwork.llm.providers import ChatServerReport
from knotwork.plural import counted
from knotwork.settings import Settings


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


def _without_ollama(manifest: ManifestReport) -> str:
    """The other fix when the embedding model's Ollama does not answer: no Ollama is needed to
    embed (README: Embeddings without Ollama). A graph whose manifest names the Ollama model
    is re-embedded with the new one, or every command refuses it."""
    said = (
        "or embed without Ollama: set KNOTWORK_EMBED_PROVIDER=use-multilingual, "
        "KNOTWORK_EMBED_MODEL=use-multilingual-v3 and KNOTWORK_EMBED_DIMENSION=512"
    )
    return said + (", then run `knotwork reembed`" if manifest.stored is not None else "")


def _graph(neo4j: Neo4jReport, manifest: ManifestReport) -> Capability:
    """Whether the graph can be used, with the fix that works. Why not is on the Neo4j (or
    the manifest) line of the report, said once: each capability says only what."""
    why = "(why: see the Neo4j check)"
    if not neo4j.ok and neo4j.credentials_refused:
        return Capability(
            ready=False,
            reason=f"Neo4j at {neo4j.uri} refused the login {why}",
            fix="set KNOTWORK_NEO4J_USER and KNOTWORK_NEO4J_PASSWORD to the server's (a local "
            "server keeps the password it was first started with)",
        )
    if not neo4j.ok and neo4j.missing_indexes:
        return Capability(
            ready=False,
            reason=f"{counted(len(neo4j.missing_indexes), 'index', 'indexes')} not ONLINE "
            "(which: see the Neo4j check)",
            fix="run `knotwork init`: it creates them and waits until they are ONLINE",
        )
    if not neo4j.ok and neo4j.unreachable:
        return Capability(
            ready=False,
            reason=f"Neo4j is not reachable at {neo4j.uri} {why}",
            fix="start Neo4j (`knotwork neo4j start`, or compose) and run `knotwork init`",
        )
    if not neo4j.ok:  # a server too old, or one failing its queries: the error says what to do
        return Capability(ready=False, reason=f"Neo4j at {neo4j.uri} cannot be used {why}")
    if not manifest.ok:
        return Capability(ready=False, reason=manifest.reason or manifest.error, fix=manifest.fix)
    return Capability(ready=True)


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
    finisher: str | None = None,
) -> dict[Literal["ingest", "search", "answers", "extraction"], Capability]:
    """What the service can do with the dependencies as they are; ``vault_folder`` is why
    ingest cannot read the vault folder (``check.folder``), None when it can; ``finisher``
    who does the chunks left pending once the model answers, as a write's warning names it
    (``Ingestor.finisher``: the watcher, the server; None: `knotwork retry`)."""
    graph = _graph(neo4j, manifest)
    if settings.embed_provider == "ollama":
        embedder = _model_problem(ollama, "embedding")
        if embedder is not None and ollama is not None and ollama.version is None:
            embedder.fix = f"{embedder.fix}; {_without_ollama(manifest)}"
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
    elif not graph.ready:  # the model's facts are written into the graph
        extraction = graph
    else:
        who = finisher or "`knotwork retry`"  # refused while a watcher holds the vault
        extraction = _degraded(
            chat, f"chunks wait for extraction; {who} extracts them once the model answers"
        )
    ingest = graph if not graph.ready or vault_folder is None else vault_folder
    return {"ingest": ingest, "search": search, "answers": answers, "extraction": extraction}
