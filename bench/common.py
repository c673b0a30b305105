"""What every benchmark shares: a Neo4j, the loopback embedder, and recording results."""

from __future__ import annotations

import asyncio
import contextlib
import os
import platform
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from llama_index.core.base.embeddings.base import BaseEmbedding
from neo4j import AsyncManagedTransaction
from tests.fakes.ollama import FakeOllama, hash_embedding

from knotwork.core import Core
from knotwork.graph.queries import Query
from knotwork.graph.store import GraphStore
from knotwork.ingest import mentions, revisions, settle, write
from knotwork.local_neo4j.server import LocalNeo4j
from knotwork.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
BOLT, HTTP, PASSWORD = 27688, 27475, "knotwork-bench-password"


@contextmanager
def bench_settings() -> Iterator[Settings]:
    """Settings for a benchmark run, with extraction off and the hashing embedder.

    Neo4j: KNOTWORK_NEO4J_URI / KNOTWORK_NEO4J_PASSWORD when set, else a local server (instance
    ``bench``) started from the cached jars and stopped afterwards.
    """
    fake = FakeOllama().start()
    local = None
    overrides: dict[str, object] = {"ollama_base_url": fake.base_url, "extract": False}
    if not os.environ.get("KNOTWORK_NEO4J_URI"):
        local = LocalNeo4j(
            Settings(
                _env_file=None,
                neo4j_uri=f"bolt://127.0.0.1:{BOLT}",  # type: ignore[call-arg]
                neo4j_password=PASSWORD,
                neo4j_local_dir=ROOT / ".neo4j",
                neo4j_local_instance="bench",
                neo4j_local_http_port=HTTP,
            )
        )
        local.start()
        overrides |= {"neo4j_uri": f"bolt://127.0.0.1:{BOLT}", "neo4j_password": PASSWORD}
    try:
        yield Settings(**overrides)  # type: ignore[arg-type]
    finally:
        fake.stop()
        if local:
            local.stop()


def cpu_model() -> str:
    """The processor's name from /proc/cpuinfo, else what the platform module says."""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown CPU"


def record(title: str, command: str, setup: str, table: str) -> None:
    """Append one result section to bench/RESULTS.md."""
    machine = (
        f"{platform.machine()}, {os.cpu_count()} cores ({cpu_model()}), "
        f"Python {platform.python_version()}"
    )
    with (ROOT / "bench" / "RESULTS.md").open("a", encoding="utf-8") as out:
        out.write(
            f"\n## {title} ({time.strftime('%Y-%m-%d')})\n\nCommand: `{command}`  \n"
            f"Machine: {machine}; {setup}\n\n{table}\n"
        )


# Which stand-in embedder a benchmark's processes use (bench.compare and bench.profile_ingest set
# it for the processes they spawn): "http", the loopback Ollama fake through Ollama's client, or
# "inprocess", the same hashing function called in the process, without HTTP or JSON.
EMBEDDER_ENV = "KNOTWORK_BENCH_EMBEDDER"


def embedder_kind() -> str:
    kind = os.environ.get(EMBEDDER_ENV, "http")
    if kind not in ("http", "inprocess"):
        raise SystemExit(f"{EMBEDDER_ENV} must be http or inprocess, not {kind!r}")
    return kind


class HashingEmbedding(BaseEmbedding):  # type: ignore[misc]
    """The loopback fake's hashing embedder (tests/fakes/ollama.py), called in the process:
    the same vectors, none of the HTTP and JSON around them."""

    dimension: int = 768

    @classmethod
    def class_name(cls) -> str:
        return "HashingEmbedding"

    def _get_text_embedding(self, text: str) -> list[float]:
        return hash_embedding(text, self.dimension)

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return [hash_embedding(t, self.dimension) for t in texts]

    def _get_query_embedding(self, query: str) -> list[float]:
        return hash_embedding(query, self.dimension)

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return hash_embedding(query, self.dimension)

    async def _aget_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        # Off the event loop, as an HTTP client would leave it free for the writer.
        return await asyncio.to_thread(self._get_text_embeddings, texts)


def use_bench_embedder(core: Core) -> None:
    """Give Knotwork's core the in-process stand-in when ``EMBEDDER_ENV`` asks for it."""
    if embedder_kind() == "inprocess":
        embedder = HashingEmbedding(
            dimension=core.settings.embed_dimension,
            embed_batch_size=core.settings.embed_batch_size,
        )
        core.models._embedder._value = embedder


InTransaction = Callable[[AsyncManagedTransaction, Query[Any], dict[str, Any]], Awaitable[Any]]
Outside = Callable[[Query[Any], dict[str, Any], Awaitable[Any]], Awaitable[Any]]


def intercept_queries(in_tx: InTransaction, outside: Outside) -> None:
    """Route every named query of the ingest path through the bench's hooks, for the rest of
    the process: those run inside write transactions (the write path's and mentions'
    ``run_query``) through ``in_tx``, which runs the query itself (so it can read the result's
    summary); ``GraphStore.read`` and ``write`` through ``outside``, handed the query's
    coroutine to await."""

    async def run_in_tx(tx: AsyncManagedTransaction, query: Query[Any], /, **params: Any) -> Any:
        return await in_tx(tx, query, params)

    for module in (write, settle, revisions, mentions):  # every module of the write path
        module.run_query = run_in_tx  # type: ignore[attr-defined]
    for method in ("read", "write"):
        original = getattr(GraphStore, method)

        async def hooked(
            self: GraphStore, query: Query[Any], /, _o: Any = original, **p: Any
        ) -> Any:
            return await outside(query, p, _o(self, query, **p))

        setattr(GraphStore, method, hooked)
