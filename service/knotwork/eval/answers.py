"""Answer evaluation: every question with gold answers through ``answer()`` — the same
retrieval, prompt and citation check as ``POST /query`` — scored by exact match, F1 and
whether the answer holds a gold answer, with the citation markers taken out first.

A model that does not answer stops the run with the reason: scores of zero from a model that
was never asked would read as a model that answers badly.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from knotwork.answer.cite import strip_citations
from knotwork.answer.cite_match import markers
from knotwork.answer.respond import answer
from knotwork.core import Core
from knotwork.errors import ModelUnavailableError
from knotwork.eval.data import Question
from knotwork.eval.metrics import answer_f1, contains_answer, exact_match, percentile
from knotwork.ingest.sync import Progress
from knotwork.retrieve.config import DEFAULT_TOP_K
from knotwork.retrieve.types import Mode

log = logging.getLogger(__name__)
ANSWER_MODES: tuple[Mode, ...] = ("fast", "normal")
ANSWER_TOP_K = DEFAULT_TOP_K  # hits in the prompt, as POST /query gives by default


@dataclass(frozen=True)
class AnswerResult:
    id: str
    type: str
    status: str  # ok | insufficient_context
    prediction: str  # the answer without citation markers; empty when the notes fell short
    em: float
    f1: float
    contains: float
    cited: int  # citations that survived the check
    latency_ms: float


@dataclass(frozen=True)
class AnswerRun:
    mode: Mode
    model: str
    results: list[AnswerResult]
    skipped: int  # questions without gold answers


async def run_answers(
    core: Core,
    vault: str,
    questions: Sequence[Question],
    mode: Mode,
    top_k: int = ANSWER_TOP_K,
    progress: Progress | None = None,
) -> AnswerRun:
    """Ask the chat model every question that has gold answers; score what it says."""
    asked = [q for q in questions if q.answers]
    results: list[AnswerResult] = []
    for done, q in enumerate(asked, 1):
        start = time.perf_counter()
        reply = await answer(core, q.question, mode=mode, top_k=top_k, vault=vault)
        latency = (time.perf_counter() - start) * 1000
        if reply.status == "model_unavailable":
            raise ModelUnavailableError(
                f"question {q.id}: the chat model {core.settings.llm_model!r} did not answer; "
                f"{' '.join(reply.warnings)}"
            )
        labels = markers(reply.citations)  # as the answer marks them, lines and all
        said = strip_citations(reply.answer or "", labels) if reply.status == "ok" else ""
        results.append(
            AnswerResult(
                id=q.id,
                type=q.type,
                status=reply.status,
                prediction=said,
                em=exact_match(said, q.answers),
                f1=answer_f1(said, q.answers),
                contains=contains_answer(said, q.answers),
                cited=len(reply.citations) if reply.status == "ok" else 0,
                latency_ms=latency,
            )
        )
        if progress:
            progress(done, len(asked), f"answers: {q.id}")
        if done % 50 == 0:
            log.info("answers: %d of %d questions asked", done, len(asked))
    return AnswerRun(mode, core.settings.llm_model, results, len(questions) - len(asked))


def answer_table(run: AnswerRun) -> str:
    """EM, F1 and answer-contained (%) overall and by question type, with statuses and latency."""
    head = (
        "| questions | n | EM | F1 | contains answer | insufficient | cited per answer | p50 ms |"
    )
    lines = [head, "|---|---:|---:|---:|---:|---:|---:|---:|"]
    types = sorted({r.type for r in run.results if r.type})
    for label, rows in [("all", run.results), *((t, _of(run.results, t)) for t in types)]:
        if not rows:
            continue
        n = len(rows)
        status = Counter(r.status for r in rows)
        answered = [r for r in rows if r.status == "ok"]
        cells = [
            label,
            str(n),
            f"{100 * sum(r.em for r in rows) / n:.1f}",
            f"{100 * sum(r.f1 for r in rows) / n:.1f}",
            f"{100 * sum(r.contains for r in rows) / n:.1f}",
            str(status["insufficient_context"]),
            f"{sum(r.cited for r in answered) / len(answered):.1f}" if answered else "-",
            f"{percentile([r.latency_ms for r in rows], 50):.0f}",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _of(results: list[AnswerResult], kind: str) -> list[AnswerResult]:
    return [r for r in results if r.type == kind]
