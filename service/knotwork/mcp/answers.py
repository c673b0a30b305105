"""The tools that answer a question: ``ask`` (a cited answer), ``retrieve`` (the ranked
evidence) and ``explain`` (what each retriever and the graph contributed to each hit).

``ask`` answers as POST /query, with progress notifications while it works (``mcp.progress``);
the evidence an answer citing none of it comes with (``uncited``) is bounded, with its count."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field

from knotwork.api.cut_markers import MarkerCut
from knotwork.api.schemas import (
    FactOut,
    PathOut,
    QueryRequest,
    QueryResponse,
    RankedCitation,
    RetrieveRequest,
    RetrieveResponse,
    query_response,
    retrieve_response,
)
from knotwork.llm.clients import import_off_loop
from knotwork.mcp.bounded import UNCITED_EVIDENCE
from knotwork.mcp.common import (
    READ_ONLY,
    AskMode,
    DateFrom,
    DateTo,
    Folder,
    Question,
    Served,
    ServedContext,
    Tags,
    TopK,
    Trust,
    add_tool,
    core_of,
    filters,
    tool_errors,
    work_slot,
)
from knotwork.mcp.progress import Progress, reporting
from knotwork.plural import counted
from knotwork.redact import redact
from knotwork.retrieve.config import DEFAULT_TOP_K

if TYPE_CHECKING:
    from knotwork.answer.respond import Answer
    from knotwork.core import Core
    from knotwork.retrieve import Filters, Mode
    from knotwork.retrieve.types import Evidence


class AskResult(QueryResponse):
    """POST /query's body, and the evidence an answer that cites none of it was given."""

    uncited: bool = Field(
        description="true: the answer cites none of the retrieved notes (`citations` is empty); "
        "check it against `evidence`"
    )
    evidence: list[RankedCitation] = Field(
        description=f"when `uncited`: the first {UNCITED_EVIDENCE} ranked chunks the answer "
        "was given (`evidence_total` counts them all); otherwise empty"
    )
    evidence_total: int = Field(description="when `uncited`: how many chunks it was given")


def ask_result(result: Answer) -> AskResult:
    """The answer as POST /query gives it, the evidence of one that cites none of it (``uncited``)
    bounded to its first ``UNCITED_EVIDENCE`` chunks, with how many there were."""
    body = query_response(result).model_dump()
    given = body.pop("evidence")
    return AskResult(**body, evidence=given[:UNCITED_EVIDENCE], evidence_total=len(given))


async def _answered(
    core: Core, progress: Progress, question: str, mode: Mode, top_k: int, filters: Filters
) -> tuple[Answer, Evidence | None]:
    """The answer, read as a stream so that its progress is told: the evidence found, then
    each piece of the answer as the model writes it."""
    from knotwork.answer.respond import DoneEvent, EvidenceEvent, TokenEvent, answer_stream

    evidence, size, result = None, 0, None
    cut = MarkerCut(())  # the answer's text is counted as the result has it, headings cut
    async for event in answer_stream(core, question, mode=mode, top_k=top_k, filters=filters):
        if isinstance(event, EvidenceEvent):
            evidence = event.evidence
            cut = MarkerCut(evidence.hits)
            found = counted(len(evidence.hits), "chunk")
            progress.tell(f"answering from {found} of evidence")
        elif isinstance(event, TokenEvent) and (text := cut.feed(event.text)):
            size += len(text)
            progress.tell(f"answering: {size} characters written")
        elif isinstance(event, DoneEvent):  # the last event
            result = event.answer
    assert result is not None, "the answer's events end with the answer"
    return result, evidence


class ExplainedHit(BaseModel):
    """One ranked chunk and why it was found."""

    citation: str = Field(description="`path#heading:first-last line`, as an answer cites it")
    chunk_id: str = Field(description="the chunk's id, which its graph paths end at")
    path: str
    heading: str
    line_start: int
    line_end: int
    score: float = Field(description="the final rank score")
    retrievers: dict[str, float] = Field(description="each retriever that found it, its score")
    graph_paths: list[PathOut] = Field(
        description="the graph walks that reached this chunk (empty: found by text alone)"
    )
    facts: list[FactOut] = Field(description="the facts this chunk states, with provenance")


class Explanation(BaseModel):
    status: Literal["ok", "insufficient_context"]
    relevance: float = Field(description="how well the best evidence matches, 0 to 1")
    hits: list[ExplainedHit]
    timings: dict[str, float] = Field(description="milliseconds per retriever")
    warnings: list[str]


def explanation(evidence: Evidence, ok: bool) -> Explanation:
    """Each hit with the retrievers, graph paths and facts that belong to its chunk."""
    retrieved = retrieve_response(evidence, ok)
    hits = []
    for hit, cited in zip(evidence.hits, retrieved.citations, strict=True):
        heading = f"#{cited.heading}" if cited.heading else ""  # cut, as Hit.citation's form
        hits.append(
            ExplainedHit(
                citation=f"{hit.path}{heading}:{hit.line_start}-{hit.line_end}",
                chunk_id=hit.id,
                path=hit.path,
                heading=cited.heading,
                line_start=hit.line_start,
                line_end=hit.line_end,
                score=cited.score,
                retrievers=cited.retrievers,
                graph_paths=[retrieved.paths[i] for i in evidence.paths_of(hit)],
                facts=[retrieved.facts[i] for i in evidence.facts_of(hit)],
            )
        )
    return Explanation(
        status=retrieved.status,
        relevance=round(evidence.relevance, 4),
        hits=hits,
        timings=retrieved.timings,
        warnings=[redact(w) for w in evidence.warnings],
    )


def register(server: MCPServer[Served]) -> None:
    async def ask(
        question: Question,
        ctx: ServedContext,
        mode: AskMode = "normal",
        top_k: TopK = DEFAULT_TOP_K,
        folder: Folder = None,
        tags: Tags = None,
        date_from: DateFrom = None,
        date_to: DateTo = None,
        trust: Trust = "all",
    ) -> AskResult:
        """Answer a question from the notes, citing them; the result of POST /query, and more.

        `status` is `ok`, `insufficient_context` (the notes do not cover it; no model call) or
        `model_unavailable` (the ranked evidence without an answer). Each citation names a
        note's path, heading, lines and `chunk_id` (a chunk's `id` in `get_note`); citations
        the model made up are removed and listed in `dropped_citations`. An answer that cites
        none of the evidence comes with `uncited` true and the first 8 ranked chunks it was
        given in `evidence`, to check it by. With a progress token, its stages are reported
        (waiting, retrieving, answering), the last one again every 10 s while none is new.
        """
        core = core_of(ctx)
        with tool_errors():
            scope = filters(folder, tags, date_from, date_to, trust)
            body = QueryRequest.model_validate(
                {"question": question, "mode": mode, "top_k": top_k, "filters": scope}
            )
            async with reporting(ctx, "waiting for a turn") as progress, work_slot(ctx):
                progress.tell("retrieving evidence")
                # LlamaIndex, imported off the event loop (the clients may be loading it
                # meanwhile), in the work slot: a wait for it is a wait in the queue
                await import_off_loop("knotwork.answer.respond")
                result, _ = await _answered(
                    core, progress, body.question, body.mode, body.top_k, body.filters.to_filters()
                )
        return ask_result(result)

    async def _evidence(
        ctx: ServedContext, question: str, top_k: int, scope: dict[str, object]
    ) -> tuple[Evidence, bool]:
        core = core_of(ctx)
        with tool_errors():
            body = RetrieveRequest.model_validate(
                {"question": question, "top_k": top_k, "filters": scope}
            )
            async with work_slot(ctx):
                await import_off_loop("knotwork.answer.respond")
                from knotwork.answer.respond import gather, sufficient

                evidence = await gather(
                    core,
                    body.question,
                    mode="retrieve",
                    top_k=body.top_k,
                    filters=body.filters.to_filters(),
                )
        return evidence, sufficient(core, evidence)

    async def retrieve(
        question: Question,
        ctx: ServedContext,
        top_k: TopK = DEFAULT_TOP_K,
        folder: Folder = None,
        tags: Tags = None,
        date_from: DateFrom = None,
        date_to: DateTo = None,
        trust: Trust = "all",
    ) -> RetrieveResponse:
        """Ranked evidence for a question (chunks with note, heading, lines and the retrievers
        that found them, plus facts and graph paths), without any model call; the same result
        as POST /retrieve. `status` is `insufficient_context` when the evidence is weak."""
        scope = filters(folder, tags, date_from, date_to, trust)
        return retrieve_response(*await _evidence(ctx, question, top_k, scope))

    async def explain(
        question: Question,
        ctx: ServedContext,
        top_k: TopK = DEFAULT_TOP_K,
        folder: Folder = None,
        tags: Tags = None,
        date_from: DateFrom = None,
        date_to: DateTo = None,
        trust: Trust = "all",
    ) -> Explanation:
        """Why the evidence for a question was found, hit by hit, without any model call: each
        hit's citation (`path#heading:lines`), the retrievers that ranked it with their scores,
        the graph paths (note and entity hops) that reached it, and the facts its chunk states.
        Use it to see what the graph contributed beyond text search."""
        scope = filters(folder, tags, date_from, date_to, trust)
        return explanation(*await _evidence(ctx, question, top_k, scope))

    for fn in (ask, retrieve, explain):
        add_tool(server, fn, READ_ONLY, quotes_notes=True)
