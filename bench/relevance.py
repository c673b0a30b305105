"""Calibrate KNOTWORK_MIN_RELEVANCE: relevance of questions a vault answers vs. ones it cannot.

Usage (after `knotwork eval` has ingested the vaults, with the same settings in the env):
    .venv/bin/python -m bench.relevance --vault eval-docsqa-claude-docs \
        --answerable ../shared/eval/docsqa-claude-docs/questions.jsonl \
        --unanswerable ../shared/eval/2wikimultihopqa/questions.jsonl --limit 200 [--record]
    .venv/bin/python -m bench.relevance --vault eval-vault-it-sapienza --by-gold \
        --answerable bench/data/it-sapienza/questions.jsonl \
        --unanswerable bench/data/it-sapienza/questions.jsonl

Each question is retrieved in mode ``retrieve`` (no model call); the threshold that best
separates the two sets (balanced accuracy, the lower threshold on ties, since refusing an
answerable question costs more than one model call) is reported with the distributions.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
from pathlib import Path

from bench.common import record
from knotwork.core import open_core
from knotwork.retrieve import retrieve
from knotwork.settings import Settings


def questions(path: Path, limit: int, with_gold: bool | None = None) -> list[str]:
    """The first ``limit`` questions; with ``with_gold`` only those that have (True) or lack
    (False) gold evidence, so one file holding both kinds can be split."""
    with path.open(encoding="utf-8") as lines:
        rows = [json.loads(line) for line in lines if line.strip()]
    if with_gold is not None:
        rows = [r for r in rows if bool(r.get("gold_notes") or r.get("gold_titles")) == with_gold]
    return [str(row["question"]) for row in rows[:limit]]


async def relevances(settings: Settings, vault: str, asked: list[str]) -> list[float]:
    async with open_core(settings) as core:
        await core.ensure_ready()
        out = []
        for question in asked:
            evidence = await retrieve(core, vault, question, top_k=8, mode="retrieve")
            out.append(evidence.relevance)
        return out


def best_threshold(good: list[float], bad: list[float]) -> tuple[float, float, float, float]:
    """(threshold, balanced accuracy, share of answerable kept, share of unanswerable refused)."""
    best = (0.0, 0.0, 0.0, 0.0)
    for step in range(101):
        t = step / 100
        kept = sum(r >= t for r in good) / len(good)
        refused = sum(r < t for r in bad) / len(bad)
        score = (kept + refused) / 2
        if score > best[1] + 1e-12:
            best = (t, score, kept, refused)
    return best


def quantiles(values: list[float]) -> str:
    q = statistics.quantiles(values, n=20)
    median = statistics.median(values)
    return (
        f"p5 {q[0]:.2f} · p25 {q[4]:.2f} · median {median:.2f} · p75 {q[14]:.2f} · p95 {q[18]:.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", required=True, help="vault name in the graph (eval-<name>)")
    parser.add_argument("--answerable", type=Path, required=True)
    parser.add_argument("--unanswerable", type=Path, required=True)
    parser.add_argument("--limit", type=int, default=200)
    parser.add_argument("--record", action="store_true")
    parser.add_argument(
        "--by-gold",
        action="store_true",
        help="answerable = questions with gold, unanswerable = questions without (one file "
        "with off-topic questions, such as bench/data/*/questions.jsonl, for both)",
    )
    args = parser.parse_args()
    settings = Settings()
    split = True if args.by_gold else None
    good_q = questions(args.answerable, args.limit, split)
    bad_q = questions(args.unanswerable, args.limit, None if split is None else not split)
    good = asyncio.run(relevances(settings, args.vault, good_q))
    bad = asyncio.run(relevances(settings, args.vault, bad_q))
    t, accuracy, kept, refused = best_threshold(good, bad)
    table = "\n".join(
        [
            "| questions | n | relevance |",
            "|---|---:|---|",
            f"| answerable ({args.answerable.parent.name}) | {len(good)} | {quantiles(good)} |",
            f"| not answerable ({args.unanswerable.parent.name}) | {len(bad)} | {quantiles(bad)} |",
            "",
            f"Best threshold **{t:.2f}**: balanced accuracy {accuracy:.1%} — answerable kept "
            f"{kept:.1%}, unanswerable refused {refused:.1%}. Lowest answerable "
            f"{min(good):.2f}, highest unanswerable {max(bad):.2f}.",
            "",
            f"At the configured KNOTWORK_MIN_RELEVANCE {settings.min_relevance:.2f}: answerable "
            f"kept {sum(r >= settings.min_relevance for r in good) / len(good):.1%}, "
            f"unanswerable refused {sum(r < settings.min_relevance for r in bad) / len(bad):.1%}.",
        ]
    )
    sys.stdout.write(table + "\n")
    if args.record:
        record(
            f"Relevance threshold on {args.vault}",
            " ".join(["python -m bench.relevance", *sys.argv[1:]]),
            f"embeddings {settings.embed_provider}/{settings.embed_model}; mode retrieve, top_k 8",
            table,
        )


if __name__ == "__main__":
    main()
