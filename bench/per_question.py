"""Per-question ranks under several retrieval configurations, and where two of them differ.

Usage (after ``knotwork eval`` has ingested the set; nothing is ingested or written here):

    .venv/bin/python -m bench.with_fake_embedder -- .venv/bin/python -m bench.per_question \\
        --name docs --questions …/questions.jsonl --configs hybrid,full --out /tmp/docs.json
    .venv/bin/python -m bench.per_question --diff /tmp/docs.json hybrid full [--k 5]
    .venv/bin/python -m bench.per_question --summary /tmp/docs.json

The first form asks every question under each config of ``knotwork eval`` (the same
``retrieve()`` call and the same recall keys) and writes, per question and config, the distinct
keys in rank order, each gold key's rank, and the retrievers behind the top hits. ``--corpus``
takes the titles from the evaluation's corpus folder (its ``.knotwork-eval.json`` marker) for a
title-keyed set. The second form lists the questions whose recall@k differs between two
configs, with the ranks of their gold keys and the retrievers behind each config's top hits:
what decides where the full pipeline wins or loses against another. The third prints recall@k
per config over the questions whose ``full`` hits hold a note the question names, and over the
rest (the questions that name nothing).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from knotwork.core import open_core
from knotwork.eval.data import MARKER, default_cache, load_questions
from knotwork.eval.metrics import distinct_keys, hit_section, recall_at, title_key
from knotwork.eval.retrieval import CONFIGS, FETCH, MAX_TOP_K
from knotwork.retrieve import retrieve
from knotwork.settings import get_settings

TOP = 10  # hits whose retrievers are recorded


async def ask(args: argparse.Namespace) -> dict[str, Any]:
    questions = load_questions(Path(args.questions))[: args.limit]
    titles = None
    if args.corpus:
        folder = default_cache() / args.name
        titles = json.loads((folder / MARKER).read_text(encoding="utf-8"))
    key = title_key(titles) if questions[0].kind == "titles" else hit_section
    configs = args.configs.split(",")
    top_k = min(MAX_TOP_K, FETCH * 10)
    out: dict[str, Any] = {"configs": configs, "questions": []}
    async with open_core(get_settings()) as core:
        rows = {
            q.id: {"id": q.id, "question": q.question, "gold": list(q.gold), "by": {}}
            for q in questions
        }
        for name in configs:
            config = CONFIGS[name]
            for q in questions:
                ev = await retrieve(
                    core, f"eval-{args.name}", q.question, top_k, mode="retrieve", config=config
                )
                ranked = distinct_keys(ev.hits, key)
                rows[q.id]["by"][name] = {
                    "recall": {k: recall_at(ranked, q.gold, k) for k in (2, 5, 10)},
                    "gold_ranks": [ranked.index(g) if g in ranked else None for g in q.gold],
                    "ranked": ranked[:TOP],
                    "hits": [
                        {"key": key(h), "retrievers": sorted(h.retrievers)} for h in ev.hits[:TOP]
                    ],
                }
        out["questions"] = list(rows.values())
    return out


def diff(path: str, a: str, b: str, k: int) -> None:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    wins = losses = 0
    for row in data["questions"]:
        ra, rb = row["by"][a]["recall"][str(k)], row["by"][b]["recall"][str(k)]
        if ra is None or ra == rb:
            continue
        wins, losses = wins + (rb > ra), losses + (rb < ra)
        print(f"\n[{row['id']}] {row['question']}")
        print(f"  gold: {row['gold']}")
        for name in (a, b):
            got = row["by"][name]
            print(f"  {name}: R@{k}={got['recall'][str(k)]:.2f} gold ranks {got['gold_ranks']}")
            for i, h in enumerate(got["hits"][:6]):
                mark = "*" if h["key"] in row["gold"] else " "
                print(f"    {i} {mark} {h['key'][:80]}  {'+'.join(h['retrievers'])}")
    print(f"\n{b} over {a} at R@{k}: better on {wins}, worse on {losses}")


def summary(path: str) -> None:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    rows = [r for r in data["questions"] if r["by"][data["configs"][0]]["recall"]["5"] is not None]
    named = {
        r["id"]: any("names" in h["retrievers"] for h in r["by"].get("full", {}).get("hits", []))
        for r in rows
    }
    for name in data["configs"]:
        parts = []
        for label, want in (("all", None), ("named", True), ("none named", False)):
            got = [r["by"][name]["recall"] for r in rows if want is None or named[r["id"]] == want]
            figures = " / ".join(
                f"{100 * sum(g[k] for g in got) / max(1, len(got)):.1f}" for k in ("2", "5", "10")
            )
            parts.append(f"{label} ({len(got)}) {figures}")
        print(f"{name:10s}  " + "   ".join(parts))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--diff", nargs=3, metavar=("JSON", "A", "B"))
    parser.add_argument("--summary", metavar="JSON")
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--name")
    parser.add_argument("--questions")
    parser.add_argument("--corpus", action="store_true", help="title-keyed corpus set")
    parser.add_argument("--configs", default="hybrid,full")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--out")
    args = parser.parse_args()
    if args.diff:
        diff(args.diff[0], args.diff[1], args.diff[2], args.k)
        return 0
    if args.summary:
        summary(args.summary)
        return 0
    if not (args.name and args.questions and args.out):
        parser.error("--name, --questions and --out are needed to ask")
    result = asyncio.run(ask(args))
    Path(args.out).write_text(json.dumps(result, ensure_ascii=False, indent=1), encoding="utf-8")
    sys.stderr.write(f"written to {args.out}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
