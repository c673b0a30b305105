"""Question → cited answer: retrieval, one chat call over fenced context, citations checked.

The model is asked only when the evidence is relevant enough; below the threshold, or in
``retrieve`` mode, no chat call is made at all. A model that is down or slow never turns into an
error: the ranked evidence is returned with status ``model_unavailable``. The answer is always
read as a stream, streamed to the client or not, so one that runs on is cut at the same bound.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Literal

from knotwork.answer.cite import check_citations, strip_citations
from knotwork.answer.links import AnswerStream, inert_links
from knotwork.answer.prompt import FactSource, Prompt, build_prompt
from knotwork.answer.refusal import INSUFFICIENT, says_insufficient
from knotwork.answer.waiting import Overdue, by, stop_cut, unanswered
from knotwork.core import Core
from knotwork.plural import counted
from knotwork.retrieve import Evidence, FactRow, Filters, Hit, HopPath, Mode, retrieve
from knotwork.retrieve.config import DEFAULT_TOP_K
from knotwork.text.quoted import clipped

log = logging.getLogger(__name__)

Status = Literal["ok", "insufficient_context", "model_unavailable"]
PARTIAL_CITATIONS = 3  # hits shown as the best partial evidence when the context falls short
MAX_ANSWER_CHARS = 20_000  # "briefly", the prompt says: beyond this a model is repeating itself


@dataclass(frozen=True)
class Cited:
    """A chunk the answer rests on, located by note, heading and lines; or a fact of no chunk
    (frontmatter), by its note and its own line (``chunk_id`` None)."""

    chunk_id: str | None
    path: str
    heading: str
    line_start: int
    line_end: int
    score: float
    snippet: str

    @classmethod
    def of(cls, hit: Hit) -> Cited:
        return cls(
            chunk_id=None if isinstance(hit, FactSource) else hit.id,
            path=hit.path,
            heading=hit.heading,
            line_start=hit.line_start,
            line_end=hit.line_end,
            score=hit.score,
            snippet=clipped(hit.text),
        )


@dataclass
class Answer:
    status: Status
    answer: str | None
    citations: list[Cited]
    dropped_citations: list[str] = field(default_factory=list)
    facts: list[FactRow] = field(default_factory=list)
    paths: list[HopPath] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    # An ``ok`` answer that cites none of the hits: the hits it was given, to check it by.
    evidence: list[Hit] = field(default_factory=list)


@dataclass(frozen=True)
class EvidenceEvent:
    """Sent first: what retrieval found, before any model call."""

    evidence: Evidence


@dataclass(frozen=True)
class TokenEvent:
    """A piece of the answer as the model writes it, its citations and links checked (invented
    ones removed, ``answer.cite``, ``answer.links``): the pieces add up to the final answer."""

    text: str


@dataclass(frozen=True)
class DoneEvent:
    """Sent last: the full answer with its citations checked."""

    answer: Answer


AnswerEvent = EvidenceEvent | TokenEvent | DoneEvent


async def gather(
    core: Core,
    question: str,
    *,
    mode: Mode,
    top_k: int,
    filters: Filters | None,
    vault: str | None = None,
) -> Evidence:
    """Ranked evidence for the question from ``vault`` (by default the configured one)."""
    return await retrieve(
        core,
        vault or core.settings.vault_name,
        question,
        top_k=top_k,
        mode=mode,
        filters=filters or Filters(),
    )


def sufficient(core: Core, evidence: Evidence) -> bool:
    """Whether the evidence is worth a model call: ``min_relevance`` is calibrated by
    bench/relevance.py against questions the vault does and does not answer (bench/RESULTS.md)."""
    return bool(evidence.hits) and evidence.relevance >= core.settings.min_relevance


def _base(evidence: Evidence, status: Status, text: str | None, hits: list[Hit]) -> Answer:
    return Answer(
        status=status,
        answer=text,
        citations=[Cited.of(h) for h in hits],
        facts=list(evidence.facts),
        paths=list(evidence.paths),
        timings_ms=dict(evidence.timings_ms),
        warnings=list(evidence.warnings),
    )


def without_model(core: Core, evidence: Evidence, mode: Mode) -> Answer | None:
    """The answer when no chat call is due: too little evidence, or ``retrieve`` mode. With the
    embedder down a question with evidence goes to the model whatever its relevance: word
    overlap alone would turn a paraphrase away (the model's own refusal is still recognised)."""
    judged = mode != "retrieve" and evidence.dense_down and bool(evidence.hits)
    if not judged and not sufficient(core, evidence):
        partial = evidence.hits[:PARTIAL_CITATIONS]
        return _base(evidence, "insufficient_context", INSUFFICIENT, partial)
    if mode == "retrieve":
        return _base(evidence, "ok", None, evidence.hits)
    return None


def _unavailable(core: Core, evidence: Evidence, exc: BaseException, started: float) -> Answer:
    log.warning("chat model did not answer: %s: %s", type(exc).__name__, exc)
    result = _base(evidence, "model_unavailable", None, evidence.hits)
    result.timings_ms["answer_ms"] = (time.perf_counter() - started) * 1000
    result.warnings.append(unanswered(core.settings, exc))
    return result


def finish(evidence: Evidence, raw: str, started: float, prompt: Prompt) -> Answer:
    """Check the model's citations against the hits and build the answer."""
    checked = check_citations(raw, evidence.hits, prompt.sources, prompt.given)
    unlinked = inert_links(checked.text, prompt.given)  # as ``AnswerStream`` sent it
    words = strip_citations(unlinked.text, checked.markers)
    # Nothing, or only citations and the marks around them ("[S1] [S2]."): no answer at all.
    if not any(char.isalnum() for char in words):
        result = _base(evidence, "model_unavailable", None, evidence.hits)
        said = inert_links(raw, prompt.given).text[:80]  # the reply, no address in it live
        result.warnings.append(
            f"the chat model's reply held no answer ({said!r}); here is the ranked "
            "evidence without an answer"
        )
    elif says_insufficient(words, cited=bool(checked.cited)):
        result = _base(
            evidence, "insufficient_context", INSUFFICIENT, evidence.hits[:PARTIAL_CITATIONS]
        )
    else:
        result = _base(evidence, "ok", unlinked.text, checked.cited)
        if not checked.cited:  # no citation to check it by: the ranked hits instead
            result.evidence = list(evidence.hits)
            result.warnings.append(
                "the answer cites none of the retrieved notes; check it against the evidence"
            )
    # Said once, by dropped_citations: a warning counting them too was a second report of each.
    result.dropped_citations = checked.dropped
    result.warnings.extend(unlinked.warnings)
    if prompt.left_out:
        result.warnings.append(
            f"{counted(prompt.left_out, 'hit')} did not fit the model's context window"
        )
    result.timings_ms["answer_ms"] = (time.perf_counter() - started) * 1000
    return result


async def _from_model(
    core: Core, evidence: Evidence, prompt: Prompt
) -> AsyncIterator[TokenEvent | DoneEvent]:
    """The model's answer as it comes, citations rendered, then the checked answer. A model down
    or silent ends in ``model_unavailable``; one past ``KNOTWORK_ANSWER_TIMEOUT_S`` or
    ``MAX_ANSWER_CHARS``, or that stops once it has written, is cut there with a warning."""
    started = time.perf_counter()
    limit = core.settings.answer_timeout_s
    # On the event loop's clock: the wait for a chunk is cut at it, not only checked once one
    # arrives (a slow first token, a reasoning model thinking, a server sending nothing).
    deadline = asyncio.get_running_loop().time() + limit
    size, cut = 0, None
    rendered = AnswerStream(evidence.hits, prompt.sources, prompt.given)
    try:
        llm = await core.load_llm()  # built off the event loop on first use
        try:
            opened = await by(deadline, llm.astream_chat(prompt.messages))
            async with contextlib.aclosing(opened) as stream:
                while (chunk := await by(deadline, anext(stream, None))) is not None:
                    if chunk.delta:
                        size += len(chunk.delta)
                        if text := rendered.feed(chunk.delta):
                            yield TokenEvent(text)
                    if size >= MAX_ANSWER_CHARS:
                        cut = f"the answer was cut at {MAX_ANSWER_CHARS} characters"
                        break
        except Overdue:
            cut = (
                f"the answer was cut after {time.perf_counter() - started:.1f} s "
                f"(KNOTWORK_ANSWER_TIMEOUT_S is {limit:g} s)"
            )
        except Exception as exc:  # stopped once it had written: the words sent are kept
            if (cut := stop_cut(size, exc, core.settings.ollama_timeout_s)) is None:
                raise
        if cut:
            log.warning("chat answer: %s", cut)
    except Exception as exc:  # the client raises many kinds (HTTP, timeout, refused): all "down"
        yield DoneEvent(_unavailable(core, evidence, exc, started))
        return
    if text := (rendered.cut() if cut else rendered.close()):
        yield TokenEvent(text)
    result = finish(evidence, rendered.text, started, prompt)
    if cut:
        result.warnings.append(cut)
    yield DoneEvent(result)


async def answer(
    core: Core,
    question: str,
    *,
    mode: Mode = "normal",
    top_k: int = DEFAULT_TOP_K,
    filters: Filters | None = None,
    vault: str | None = None,
) -> Answer:
    """A cited answer, or the reason there is none, with the evidence it rests on."""
    evidence = await gather(core, question, mode=mode, top_k=top_k, filters=filters, vault=vault)
    early = without_model(core, evidence, mode)
    if early is not None:
        return early
    prompt = build_prompt(question, evidence, core.settings.llm_context_window)
    async for event in _from_model(core, evidence, prompt):
        if isinstance(event, DoneEvent):
            return event.answer
    raise AssertionError("the model's events end with the answer")


async def answer_stream(
    core: Core,
    question: str,
    *,
    mode: Mode = "normal",
    top_k: int = DEFAULT_TOP_K,
    filters: Filters | None = None,
) -> AsyncIterator[AnswerEvent]:
    """The evidence, then the answer as it comes (a citation is sent once it is complete),
    then the checked answer."""
    evidence = await gather(core, question, mode=mode, top_k=top_k, filters=filters)
    yield EvidenceEvent(evidence)
    early = without_model(core, evidence, mode)
    if early is not None:
        yield DoneEvent(early)
        return
    prompt = build_prompt(question, evidence, core.settings.llm_context_window)
    async for event in _from_model(core, evidence, prompt):
        yield event
