"""Retrieval evaluation: ingest a vault (or a passage corpus written out as one), ask every
question under each retriever configuration, and report passage recall@k and latency; with
``answer_mode``, have the chat model answer too and report exact match and F1 (eval_answers).

It runs through the same sync and ``retrieve()`` as the service, in a vault of its own
(``eval-<name>``) so it never mixes with user notes; a rerun skips unchanged notes by hash.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from knotwork import retrieve as retrieval
from knotwork.core import Core
from knotwork.errors import EvalInputError, ModelUnavailableError
from knotwork.eval.answers import ANSWER_MODES, AnswerRun, answer_table, run_answers
from knotwork.eval.data import (
    Question,
    default_cache,
    heading_leaf,
    load_corpus,
    load_questions,
    section_key,
    write_corpus_vault,
)
from knotwork.eval.metrics import (
    ConfigResult,
    QuestionResult,
    distinct_keys,
    hit_section,
    recall_at,
    recall_table,
    title_key,
    type_table,
)
from knotwork.graph.lease import Lease, holding
from knotwork.graph.queries.admin import EVAL_SECTIONS, VAULT_STATS
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import Progress, SyncReport, sync_vault
from knotwork.plural import counted, plural
from knotwork.retrieve.config import ABLATIONS, MAX_TOP_K, PRESETS
from knotwork.retrieve.types import Hit, Mode

log = logging.getLogger(__name__)

# The configurations compared, by name (retrieve/config.py): the ablations are the full
# pipeline less one part.
CONFIGS = PRESETS
# Hits asked of retrieve(): FETCH times the largest k, so that k distinct notes (or sections) are
# there even when a note has several chunks among the best; recall then cuts at k.
FETCH = 2
_GENERIC = {"notes", "vault", "corpus", "data", "docs", "questions"}
_NAME_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")
SECTION_MATCH = (
    "a hit counts for a gold section when its note path equals the gold path and the last part "
    "of its heading path (`A > B` → `B`) equals the gold heading, both NFC-normalised, "
    "case-folded, spaces collapsed and trailing `#`/`:` dropped"
)
TITLE_MATCH = "a hit counts for a gold title when its note's title (the passage title) equals it"


@dataclass(frozen=True)
class EvalSpec:
    questions: Path
    vault_dir: Path | None = None
    corpus: Path | None = None
    name: str | None = None
    cache: Path = field(default_factory=default_cache)
    ks: tuple[int, ...] = (2, 5, 10)
    limit: int | None = None
    configs: tuple[str, ...] = ("dense", "fulltext", "hybrid", "full")
    reuse: bool = True
    answer_mode: Mode | None = None  # fast | normal: the chat model answers every question


@dataclass
class EvalReport:
    name: str
    vault: str
    questions: list[Question]
    sync: SyncReport
    configs: list[ConfigResult]
    ks: tuple[int, ...]
    gold_total: int = 0
    gold_missing: list[str] = field(default_factory=list)  # gold keys absent from the graph
    notes: list[str] = field(default_factory=list)
    answers: AnswerRun | None = None


def default_name(spec: EvalSpec) -> str:
    """A vault name from the data's folder: ``…/2wikimultihopqa/corpus.jsonl`` → 2wikimultihopqa."""
    source = spec.corpus or spec.vault_dir or spec.questions
    parts = [source.stem if source.suffix else source.name, *(p.name for p in source.parents)]
    name = next((p for p in parts if p and p.lower() not in _GENERIC), "data")
    return _NAME_UNSAFE.sub("-", name).strip("-.")[:40] or "data"


def check_spec(spec: EvalSpec) -> None:
    """Refuse what cannot run before anything is ingested."""
    if (spec.vault_dir is None) == (spec.corpus is None):
        raise EvalInputError("give exactly one of --vault FOLDER or --corpus FILE")
    if spec.vault_dir is not None and not spec.vault_dir.is_dir():
        raise EvalInputError(f"--vault {spec.vault_dir}: not a folder")
    for path in (spec.corpus, spec.questions):
        if path is not None and path.is_dir():  # "no such file" sent one looking for a typo
            raise EvalInputError(f"{path}: a folder, not a JSONL file")
        if path is not None and not path.is_file():
            raise EvalInputError(f"{path}: no such file")
    if not spec.ks:  # "--k ,": "each k must be 1-50" named no k that was not
        raise EvalInputError("--k names no cut-off; give one or more, e.g. 2,5,10")
    if any(k < 1 or k > MAX_TOP_K for k in spec.ks):
        raise EvalInputError(f"--k {spec.ks}: each k must be 1-{MAX_TOP_K}")
    if unknown := [c for c in spec.configs if c not in CONFIGS]:
        raise EvalInputError(f"unknown configs {unknown}; choose from {', '.join(CONFIGS)}")
    if spec.limit is not None and spec.limit < 1:
        raise EvalInputError("--limit must be at least 1")
    if spec.answer_mode is not None and spec.answer_mode not in ANSWER_MODES:
        raise EvalInputError(f"--answer {spec.answer_mode}: choose {' or '.join(ANSWER_MODES)}")


def expand_configs(names: Sequence[str]) -> tuple[str, ...]:
    """Config names with ``ablations`` standing for every ``no-*`` config, duplicates dropped."""
    out: list[str] = []
    for name in names:
        out.extend(ABLATIONS if name == "ablations" else (name,))
    return tuple(dict.fromkeys(out))


async def prepare_vault(
    core: Core, spec: EvalSpec, vault: str, progress: Progress | None
) -> tuple[SyncReport, dict[str, str] | None]:
    """Ingest the vault folder (writing the corpus out first); path → title for a corpus."""
    titles: dict[str, str] | None = None
    if spec.corpus is not None:
        folder = spec.cache / (spec.name or default_name(spec))
        titles = write_corpus_vault(load_corpus(spec.corpus), folder, fresh=not spec.reuse)
    else:
        assert spec.vault_dir is not None  # check_spec
        folder = spec.vault_dir
    lease = Lease(core.store, vault, core.settings.lease_ttl_s)
    async with holding(lease, {"mode": "eval-ingest", "watches": False}):  # one writer
        if not spec.reuse:
            dropped = await core.store.drop_vault(vault)
            log.info("dropped %s of vault %s", counted(dropped, "node"), vault)
        ingestor = Ingestor(core, root=folder, vault=vault, extract_enabled=False)
        report = await sync_vault(ingestor, progress)
        # A chunk whose embedding failed (an embedder that timed out under load) is missing
        # from the vector index, which would understate recall without a word: ask again, and
        # refuse to measure a vault that still has such chunks.
        await ingestor.retry_pending()
        [stats] = await core.store.read(VAULT_STATS, vault=vault)
        if pending := int(stats["pending_embeddings"]):
            raise ModelUnavailableError(
                f"{pending} of the vault's {counted(stats['chunks'], 'chunk')} "
                f"{plural(pending, 'has', 'have')} no embedding (the "
                "embedding model did not answer); recall would be understated. Run the "
                "evaluation again when the model answers: the ingested notes are kept."
            )
        return report, titles


async def missing_gold(
    core: Core, vault: str, questions: Sequence[Question]
) -> tuple[int, list[str]]:
    """How many distinct gold keys there are, and which of them no note or section holds."""
    rows = await core.store.read(EVAL_SECTIONS, vault=vault)
    present = {r["title"] for r in rows} | {
        section_key(r["path"], heading_leaf(r["heading_path"])) for r in rows
    }
    gold = sorted({g for q in questions for g in q.gold})
    return len(gold), [g for g in gold if g not in present]


async def run_config(
    core: Core,
    vault: str,
    name: str,
    questions: Sequence[Question],
    key: Callable[[Hit], str],
    ks: Sequence[int],
    progress: Progress | None = None,
) -> ConfigResult:
    """Every question through ``retrieve()`` under one config; one untimed warm-up call first."""
    config = CONFIGS[name]
    kwargs: dict[str, Any] = {"mode": "retrieve", "config": config}
    top_k = min(MAX_TOP_K, FETCH * max(ks))
    await retrieval.retrieve(core, vault, questions[0].question, top_k, **kwargs)
    results: list[QuestionResult] = []
    for done, q in enumerate(questions, 1):
        start = time.perf_counter()
        evidence = await retrieval.retrieve(core, vault, q.question, top_k, **kwargs)
        latency = (time.perf_counter() - start) * 1000
        ranked = distinct_keys(evidence.hits, key)
        scores = [recall_at(ranked, q.gold, k) for k in ks]
        recalls = (
            None if scores[0] is None else {k: s or 0.0 for k, s in zip(ks, scores, strict=True)}
        )
        results.append(QuestionResult(q.id, q.type, q.unmatched, recalls, latency, ranked))
        if progress:
            progress(done, len(questions), f"{name}: {q.id}")
        if done % 100 == 0:  # a trace for runs whose progress bar nobody sees (nohup, CI)
            log.info("%s: %d of %d questions asked", name, done, len(questions))
    return ConfigResult(name, config.label, results)


async def run_eval(
    core: Core,
    spec: EvalSpec,
    ingest_progress: Progress | None = None,
    question_progress: Progress | None = None,
) -> EvalReport:
    """Ingest, ask, score: the whole evaluation of one data set, on a graph whose schema is
    applied (``Core.ensure_ready``: the CLI's start does it, as every command's)."""
    check_spec(spec)
    questions = load_questions(spec.questions)[: spec.limit]
    if spec.answer_mode and not any(q.answers for q in questions):
        raise EvalInputError(f"{spec.questions}: --answer needs 'answers' or 'answer' fields")
    name = spec.name or default_name(spec)
    vault = f"eval-{name}"
    sync, titles = await prepare_vault(core, spec, vault, ingest_progress)
    kind = questions[0].kind
    key = title_key(titles) if kind == "titles" else hit_section
    total, missing = await missing_gold(core, vault, questions)
    report = EvalReport(name, vault, questions, sync, [], spec.ks, total, missing)
    report.notes.append(TITLE_MATCH if kind == "titles" else SECTION_MATCH)
    for config in spec.configs:
        result = await run_config(core, vault, config, questions, key, spec.ks, question_progress)
        report.configs.append(result)
    if spec.answer_mode:
        report.answers = await run_answers(
            core, vault, questions, spec.answer_mode, progress=question_progress
        )
    return report


def render(report: EvalReport, settings_line: str) -> str:
    """The report as Markdown: overall table, without unmatched-subject questions, by type."""
    qs, ks = report.questions, report.ks
    unit = "notes" if qs[0].kind == "titles" else "sections"
    top_k = min(MAX_TOP_K, FETCH * max(ks))
    no_gold = sum(1 for q in qs if not q.gold)
    out = [
        f"### Retrieval recall: {report.name}",
        "",
        f"Vault `{report.vault}`: {counted(report.sync.notes, 'note')} (written now "
        f"{report.sync.written}, unchanged {report.sync.unchanged}); "
        f"{counted(len(qs), 'question')}"
        + (f", {no_gold} without gold evidence (not scored)" if no_gold else "")
        + f"; {settings_line}. Recall in %, over the top-k distinct {unit} in rank order of "
        f"their best chunk among the {top_k} chunks asked of retrieve(); latency of one call.",
        "",
        recall_table(report.configs, ks),
    ]
    unmatched = sum(1 for q in qs if q.unmatched)
    if unmatched:
        out += [
            "",
            f"Without the {counted(unmatched, 'question')} whose gold has an unmatched subject:",
            "",
            recall_table(report.configs, ks, lambda r: not r.unmatched),
        ]
    if any(q.type for q in qs):
        out += ["", "By question type:", "", type_table(report.configs, ks)]
    found = report.gold_total - len(report.gold_missing)
    gold_line = f"Gold in the graph: {found} of {counted(report.gold_total, 'distinct gold key')}."
    if report.gold_missing:
        more = " …" if len(report.gold_missing) > 10 else ""
        gold_line += " Missing: " + ", ".join(f"`{g}`" for g in report.gold_missing[:10]) + more
    short = ", ".join(
        f"{c.name} {sum(1 for r in c.results if len(r.ranked) < max(ks))}" for c in report.configs
    )
    out += ["", f"Questions with fewer than {max(ks)} distinct {unit} in their hits: {short}."]
    if report.answers is not None:
        run = report.answers
        out += [
            "",
            f"Answers by `{run.model}` in mode `{run.mode}` (the full pipeline, as `POST /query`"
            f" answers), citation markers removed; EM, F1 and answer contained in %, normalised "
            "as SQuAD does (case, punctuation, articles)"
            + (
                f"; {counted(run.skipped, 'question')} without gold answers not asked"
                if run.skipped
                else ""
            )
            + ":",
            "",
            answer_table(run),
        ]
    out += ["", gold_line, "", f"Matching: {report.notes[0]}."]
    for note in report.notes[1:]:
        out += ["", note]
    return "\n".join(out) + "\n"
