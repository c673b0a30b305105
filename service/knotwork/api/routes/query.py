"""``POST /query`` (a cited answer, or Server-Sent Events) and ``POST /retrieve`` (evidence)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import APIRouter, Body, Header
from fastapi.openapi.models import Example
from fastapi.responses import StreamingResponse

from knotwork.api.cut_markers import MarkerCut
from knotwork.api.deps import Authorized, CoreDep
from knotwork.api.limits import LimiterDep
from knotwork.api.responses import WITH_BODY, Refusal, refusals
from knotwork.api.schemas import (
    QueryRequest,
    QueryResponse,
    RetrieveRequest,
    RetrieveResponse,
    evidence_event,
    query_response,
    retrieve_response,
)
from knotwork.api.send_timeout import ClosingStreamingResponse
from knotwork.llm.clients import import_off_loop

# knotwork.answer imports LlamaIndex: the first query imports it (in a thread, under the lock the
# model clients' background load holds), so the server answers /health before and meanwhile.
ANSWER = "knotwork.answer.respond"
if TYPE_CHECKING:
    from knotwork.answer.respond import AnswerEvent

router = APIRouter(tags=["query"], dependencies=[Authorized])

_REFUSED = {
    **refusals(*WITH_BODY),
    409: {
        "model": Refusal,
        "description": "the graph was re-embedded with another model while this server ran "
        "(`ManifestMismatchError`): restart it with the graph's settings",
    },
    504: {  # api.app maps QueryTimeoutError to it
        "model": Refusal,
        "description": "a read of the graph ran past `KNOTWORK_NEO4J_QUERY_TIMEOUT_S` "
        "(`QueryTimeoutError`)",
    },
}

_QUERY_EXAMPLES: dict[str, Example] = {
    "answer": Example(
        summary="A cited answer",
        value={"question": "Who does Alice work with?"},
    ),
    "filtered": Example(
        summary="Only notes under a folder, with a tag, in a date range",
        value={
            "question": "What did we decide about the launch?",
            "mode": "fast",
            "top_k": 5,
            "filters": {
                "folder": "projects/",
                "tags": ["launch"],
                "date_from": "2024-01-01",
                "date_to": "2024-12-31",
                "trust": "structural",
            },
        },
    ),
    "stream": Example(
        summary="Streamed as Server-Sent Events",
        value={"question": "Who does Alice work with?", "stream": True},
    ),
    "evidence": Example(
        summary="Ranked evidence only, no model call",
        value={"question": "Who does Alice work with?", "mode": "retrieve"},
    ),
}
_RETRIEVE_EXAMPLES: dict[str, Example] = {
    "plain": Example(summary="Ranked evidence", value={"question": "Who does Alice work with?"}),
    "filtered": Example(
        summary="Under a folder, structural facts only",
        value={
            "question": "Who does Alice work with?",
            "top_k": 3,
            "filters": {"folder": "People", "trust": "structural"},
        },
    ),
}
_SSE_DOC = (
    "With `stream: true` or `Accept: text/event-stream`: an `evidence` event (ranked hits, "
    'facts, paths), `token` events (`{"text": …}`, the answer as it comes, citations rendered '
    "and checked; with status `ok` together they make up `answer`), and a last `done` event "
    "carrying this same body, which has the last word: with another status (a refusal in the "
    "model's words, a model failing midway) the tokens sent are not the answer."
)


# One Server-Sent Event of the stream; ``data`` is a JSON document.
_SSE_EVENT = {
    "type": "object",
    "properties": {
        "event": {"type": "string", "enum": ["evidence", "token", "done"]},
        "data": {"type": "string", "description": "JSON"},
    },
    "required": ["event", "data"],
}


def _sse(event: str, data: Any) -> bytes:
    """One Server-Sent Event; JSON keeps the data on a single line."""
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()


class _Encoder:
    """Each event of the stream as sent; a token's text with its markers' headings cut as the
    done event's answer has them (``MarkerCut`` of the evidence event's hits), maybe none yet."""

    def __init__(self) -> None:
        self._cut = MarkerCut(())

    def __call__(self, item: AnswerEvent) -> bytes:
        from knotwork.answer.respond import DoneEvent, EvidenceEvent

        if isinstance(item, EvidenceEvent):
            self._cut = MarkerCut(item.evidence.hits)
            return _sse("evidence", evidence_event(item.evidence))
        if isinstance(item, DoneEvent):
            rest = self._cut.close()  # a marker held to the end
            done = _sse("done", query_response(item.answer).model_dump(mode="json"))
            return (_sse("token", {"text": rest}) if rest else b"") + done
        text = self._cut.feed(item.text)
        return _sse("token", {"text": text}) if text else b""


async def _events(
    first: AnswerEvent, rest: AsyncIterator[AnswerEvent], held: contextlib.AsyncExitStack
) -> AsyncIterator[bytes]:
    """The stream's events; the request's slot is given back when the answer ends or the
    client goes, so streamed answers count against the limit as whole ones do."""
    encode = _Encoder()
    try:
        yield encode(first)
        async for item in rest:
            if sent := encode(item):
                yield sent
    finally:
        await held.aclose()


@router.post(
    "/query",
    response_model=QueryResponse,
    summary="A cited answer from the notes (or ranked evidence, or Server-Sent Events)",
    description=(
        "Status `insufficient_context` (with the fixed sentence and the best partial "
        "evidence, and no model call) when the evidence is not relevant enough; "
        "`model_unavailable` (with the ranked evidence) when the chat model does not answer. "
        "Citations the model makes up are removed and listed in `dropped_citations`. " + _SSE_DOC
    ),
    operation_id="query",
    responses={
        **_REFUSED,
        200: {"content": {"text/event-stream": {"schema": _SSE_EVENT}}},
    },
)
async def query(
    body: Annotated[QueryRequest, Body(openapi_examples=_QUERY_EXAMPLES)],
    core: CoreDep,
    limiter: LimiterDep,
    accept: Annotated[str | None, Header()] = None,
) -> QueryResponse | StreamingResponse:
    filters = body.filters.to_filters()
    # The slot first: a question that finds the models still loading waits in the queue, not
    # on a thread of the pool the driver resolves addresses with.
    held = contextlib.AsyncExitStack()
    await held.enter_async_context(limiter.slot())
    try:
        await import_off_loop(ANSWER)
        from knotwork.answer.respond import answer, answer_stream

        if body.stream or "text/event-stream" in (accept or ""):
            events = answer_stream(
                core, body.question, mode=body.mode, top_k=body.top_k, filters=filters
            )
            # Retrieval runs here, so its errors (Neo4j down) get their status before the
            # stream; the slot is held on through the model's tokens (released by _events).
            first = await anext(events)
            return ClosingStreamingResponse(
                _events(first, events, held),
                media_type="text/event-stream",
                headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
            )
        result = await answer(
            core, body.question, mode=body.mode, top_k=body.top_k, filters=filters
        )
    except BaseException:
        await held.aclose()
        raise
    await held.aclose()
    return query_response(result)


@router.post(
    "/retrieve",
    response_model=RetrieveResponse,
    summary="Ranked evidence (chunks with note, heading and lines); no model call",
    operation_id="retrieve",
    responses=_REFUSED,
)
async def retrieve_evidence(
    body: Annotated[RetrieveRequest, Body(openapi_examples=_RETRIEVE_EXAMPLES)],
    core: CoreDep,
    limiter: LimiterDep,
) -> RetrieveResponse:
    filters = body.filters.to_filters()
    async with limiter.slot():  # before the import, as /query takes it
        await import_off_loop(ANSWER)
        from knotwork.answer.respond import gather, sufficient

        evidence = await gather(
            core, body.question, mode="retrieve", top_k=body.top_k, filters=filters
        )
    return retrieve_response(evidence, sufficient(core, evidence))
