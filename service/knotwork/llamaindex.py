"""Knotwork inside LlamaIndex apps: a ``BaseRetriever`` over the graph.

``KnotworkRetriever`` returns the same ranked evidence as ``POST /retrieve`` as LlamaIndex
``NodeWithScore``s, each carrying its citation (path, heading, lines), the retrievers that found
it, the facts its chunk states and the graph path that reached it, so it plugs into
``RetrieverQueryEngine`` and any other LlamaIndex component that takes a retriever::

    from llama_index.core.query_engine import RetrieverQueryEngine
    from knotwork.llamaindex import KnotworkRetriever

    with KnotworkRetriever(top_k=5) as retriever:  # settings from the environment / .env
        engine = RetrieverQueryEngine.from_args(retriever, llm=my_llm)
        response = engine.query("Who does Alice work with?")

Given no ``core``, the retriever opens its own on a private event loop in a thread (the Neo4j
async driver belongs to the loop it was opened on), so it answers synchronous and asynchronous
calls from any thread or loop; ``close()`` (or leaving the ``with`` block) shuts it. Given the
``core`` of a running app, it runs on that app's loop, and only its async methods may be used.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import threading
import weakref
from collections.abc import Coroutine
from typing import Any, TypeVar, get_args

from llama_index.core.callbacks import CallbackManager
from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
from pydantic import ValidationError

from knotwork.answer.respond import gather, sufficient
from knotwork.api.schemas import RetrieveRequest
from knotwork.core import Core, open_core
from knotwork.errors import ConfigError, RetrieverClosedError
from knotwork.retrieve import Evidence, FactRow, Filters, Mode
from knotwork.retrieve.config import DEFAULT_TOP_K, MAX_TOP_K
from knotwork.settings import Settings, get_settings

T = TypeVar("T")

log = logging.getLogger(__name__)

# Shown to a caller, kept out of what the LLM and the embedder read of a node.
_BULKY = ["retrievers", "facts", "paths", "chunk_id", "score", "relevance"]


def _fact(f: FactRow) -> dict[str, Any]:
    return {
        "subject": f.subject,
        "predicate": f.predicate,
        "object": f.object,
        "source": f.source,
        "extractor": f.extractor,
        "line": f.line,
    }


def _nothing() -> None:
    """A retriever on an app's core closes nothing of it."""


def nodes_of(evidence: Evidence) -> list[NodeWithScore]:
    """One node per hit, best first, with the citation and the graph's reasons as metadata."""
    nodes = []
    for hit in evidence.hits:
        node = TextNode(
            id_=hit.id,
            text=hit.text,
            metadata={
                "path": hit.path,
                "title": hit.title,
                "heading": hit.heading,
                "line_start": hit.line_start,
                "line_end": hit.line_end,
                "citation": hit.citation,
                "chunk_id": hit.id,
                "score": hit.score,
                "relevance": evidence.relevance,
                "retrievers": dict(hit.retrievers),
                "facts": [_fact(evidence.facts[i]) for i in evidence.facts_of(hit)],
                "paths": [
                    {"nodes": list(p.nodes), "relations": list(p.relations)}
                    for p in (evidence.paths[i] for i in evidence.paths_of(hit))
                ],
            },
            excluded_llm_metadata_keys=list(_BULKY),
            excluded_embed_metadata_keys=list(_BULKY),
        )
        nodes.append(NodeWithScore(node=node, score=hit.score))
    return nodes


class _LoopThread:
    """A private event loop in a daemon thread, holding a Core opened on that loop. Closed,
    it first ends the retrievals still running on it: each caller gets RetrieverClosedError
    (a web server shutting down during requests), none waits for a loop that is gone."""

    def __init__(self, settings: Settings) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.closed = False
        self._running: set[concurrent.futures.Future[Any]] = set()
        self._stack = contextlib.AsyncExitStack()
        try:
            self.core: Core = self.run(self._stack.enter_async_context(open_core(settings)))
            # Another model's graph is refused here, as the CLI, the API and MCP refuse it:
            # a question's vector compared with the graph's would rank by noise.
            self.run(self.core.check_manifest())
        except BaseException:
            self.close()
            raise

    def submit(self, work: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        if self.closed:
            work.close()
            raise RetrieverClosedError("this KnotworkRetriever is closed; build another")
        future = asyncio.run_coroutine_threadsafe(work, self.loop)
        self._running.add(future)
        future.add_done_callback(self._running.discard)
        return future

    def run(self, work: Coroutine[Any, Any, T]) -> T:
        future = self.submit(work)
        try:
            return future.result()
        except concurrent.futures.CancelledError as exc:
            raise _closed_meanwhile() from exc

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        running = list(self._running)
        for future in running:  # cancels its task on the loop; its caller is told at once
            future.cancel()
        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(self._stack.aclose(), self.loop).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)
        if not self.thread.is_alive():
            self.loop.close()


def _closed_meanwhile() -> RetrieverClosedError:
    return RetrieverClosedError("the KnotworkRetriever was closed while this retrieval ran")


class KnotworkRetriever(BaseRetriever):
    """Ranked evidence from a Knotwork graph as LlamaIndex nodes (sync and async)."""

    def __init__(
        self,
        core: Core | None = None,
        *,
        settings: Settings | None = None,
        top_k: int = DEFAULT_TOP_K,
        mode: Mode = "retrieve",
        filters: Filters | None = None,
        vault: str | None = None,
        relevance_gate: bool = True,
        callback_manager: CallbackManager | None = None,
    ) -> None:
        super().__init__(callback_manager=callback_manager)
        if isinstance(top_k, bool) or not isinstance(top_k, int) or not 1 <= top_k <= MAX_TOP_K:
            raise ValueError(f"top_k is an integer from 1 to {MAX_TOP_K}, not {top_k!r}")
        if mode not in get_args(Mode):
            raise ValueError(f"mode is one of {', '.join(get_args(Mode))}, not {mode!r}")
        if filters is not None and not isinstance(filters, Filters):
            raise TypeError(f"filters is a knotwork.retrieve.Filters, not {filters!r}")
        self.top_k, self.mode, self.filters, self.vault = top_k, mode, filters, vault
        self.relevance_gate = relevance_gate
        self._own = _LoopThread(settings or get_settings()) if core is None else None
        self._core = core if core is not None else self._own.core  # type: ignore[union-attr]
        # Its thread, loop and Neo4j driver outlive a retriever dropped unclosed otherwise.
        self._finalizer = weakref.finalize(self, self._own.close if self._own else _nothing)

    def _search(self, query: QueryBundle) -> Coroutine[Any, Any, Evidence]:
        return gather(
            self._core,
            query.query_str,
            mode=self.mode,
            top_k=self.top_k,
            filters=self.filters,
            vault=self.vault,
        )

    async def _told(self, query: QueryBundle) -> list[NodeWithScore]:
        """The nodes of the evidence, after saying (as log warnings) what the other entry
        points say: a retriever skipped, a vault with no notes, evidence not relevant enough
        to answer from — which gives no nodes unless ``relevance_gate`` is off, as
        ``POST /query`` calls no model on it."""
        # The question as REST takes it: a blank one, or one past 2,000 characters, refused
        # with a ValueError of one line, not pydantic's report on a request model.
        try:
            RetrieveRequest.model_validate({"question": query.query_str, "top_k": self.top_k})
        except ValidationError as exc:
            said = exc.errors()[0]["msg"].removeprefix("Value error, ")
            raise ValueError(f"the question is refused: {said}") from None
        evidence = await self._search(query)
        for warning in evidence.warnings:  # a vault with no notes among them (the pipeline's)
            log.warning("%s", warning)
        if self.relevance_gate and evidence.hits and not sufficient(self._core, evidence):
            log.warning(
                "insufficient_context: the best evidence for %r matches it at %.2f, below "
                "KNOTWORK_MIN_RELEVANCE %.2f; no nodes (relevance_gate=False returns them)",
                query.query_str[:200],
                evidence.relevance,
                self._core.settings.min_relevance,
            )
            return []
        return nodes_of(evidence)

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        if self._own is None:
            raise ConfigError(
                "a KnotworkRetriever built on an app's core answers only aretrieve(); "
                "build it without a core to call retrieve()"
            )
        return self._own.run(self._told(query_bundle))

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        if self._own is None:
            return await self._told(query_bundle)
        future = self._own.submit(self._told(query_bundle))
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            if future.cancelled() and self._own.closed:  # ours, not the caller's
                raise _closed_meanwhile() from None
            raise

    def close(self) -> None:
        """Close the core this retriever opened (none when it was given one): retrievals
        still running end with RetrieverClosedError, later ones are refused with it. A
        retriever dropped unclosed is closed when it is garbage-collected."""
        self._finalizer()

    def __enter__(self) -> KnotworkRetriever:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
