"""Retrieval latency: p50/p95 of ``retrieve(..., mode="retrieve")`` at several vault sizes.

Usage (from the repository root, after scripts/bootstrap):
    .venv/bin/python -m bench.retrieval --chunks 10000 50000 [--questions 200] [--warmup 20]
        [--record]

One generated vault grows through the sizes, counted in chunks: it is built up to the first
size, synced and measured, then more notes are added up to the next size, synced again (only the
new notes are ingested) and measured again. The questions, made once from the first vault's
notes, are the same at every size: a third name a note's title, about half are plain words from a
note's text, the rest name a date (a day, or a month and year). Each is asked once, one after
another, after ``--warmup`` other questions; the time is the wall time of the call, in-process
(no HTTP). ``mode="retrieve"`` calls no chat model; the question's embedding comes from the
loopback Ollama stand-in (hashing embedder) as in bench/ingest.py, and that round trip counts in
the ``vector`` stage. Neo4j as in bench/ingest.py. ``--record`` appends the tables to
bench/RESULTS.md.

The notes look like a working vault: frontmatter (tags, a date, a status, sometimes an alias),
an H1 title and two to seven H2 sections of one to three paragraphs (so several chunks each; a
section longer than the chunk size is split), wikilinks drawn by preferential attachment (a few
hub notes collect many links, as in real vaults), some links to notes that do not exist, plain
mentions of other notes' titles, inline tags, and daily notes named by their date.
"""

from __future__ import annotations

import argparse
import asyncio
import calendar
import os
import random
import shutil
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from datetime import date, timedelta
from itertools import accumulate
from pathlib import Path
from typing import Any

from bench.common import bench_settings, record
from knotwork.core import Core, open_core
from knotwork.graph.queries.admin import VAULT_STATS
from knotwork.ingest.chunk import chunk_note
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.parse import parse_note
from knotwork.ingest.sync import Progress, sync_vault
from knotwork.retrieve import retrieve
from knotwork.settings import Settings

VAULT = "benchretrieval"
# Each stage's own wall time; since they overlap, they add up to more than the total.
STAGES = ("embed", "vector", "fulltext", "names", "temporal", "graph", "synonym", "rank")
MONTHS = list(calendar.month_name)[1:]
SYLLABLES = [
    *("ka", "lo", "mi", "ren", "tor", "va", "sel", "dor", "fi", "nak", "pel", "ru", "sa", "tem"),
    *("ul", "vin", "bra", "cor", "den", "gal", "hol", "is", "jor", "kel", "lan", "mor", "nor"),
    *("os", "pra", "quin", "ros", "sim", "tal", "ber", "wen", "yar", "zel"),
]
COMMON = [
    *("the", "a", "of", "and", "to", "in", "for", "with", "on", "is", "we", "it", "that", "this"),
    *("as", "by", "from", "be", "are", "was", "at", "our", "not", "will"),
]
SECTIONS = [
    *("Summary", "Decisions", "Open questions", "Timeline", "Risks", "Budget", "Next steps"),
    *("Background", "Notes", "Design", "Findings", "Action items", "References", "Status"),
    *("Lessons learned", "Requirements"),
]
KINDS = ["Project", "Meeting", "Topic", "Person", "Daily"]
KIND_WEIGHTS = [3, 3, 4, 2, 1]
FIRST_DAY, DAYS = date(2022, 1, 1), 4 * 365


@dataclass
class NoteInfo:
    title: str
    path: str
    day: date
    words: list[str]  # content words of its first section, for questions


@dataclass
class VaultBuilder:
    """Writes notes into ``folder`` until its chunk count reaches a target; can grow again."""

    folder: Path
    chunk_size: int
    seed: int = 11
    rng: random.Random = field(init=False)
    vocab: list[str] = field(init=False)
    words: frozenset[str] = field(init=False)
    cum_weights: list[float] = field(init=False)
    tags: list[str] = field(init=False)
    used_titles: set[str] = field(default_factory=set)
    used_days: set[date] = field(default_factory=set)
    notes: list[NoteInfo] = field(default_factory=list)
    attach: list[int] = field(default_factory=list)  # note index once per link in, plus once
    chunks: int = 0

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        words: set[str] = set()
        while len(words) < 4000:
            words.add("".join(self.rng.choices(SYLLABLES, k=self.rng.choice((2, 2, 3)))))
        self.vocab, self.words = sorted(words), frozenset(words)
        self.rng.shuffle(self.vocab)
        # Zipf-like: word i is drawn with weight 1 / (i + 10); common words are added apart.
        self.cum_weights = list(accumulate(1.0 / (i + 10) for i in range(len(self.vocab))))
        self.tags = self.vocab[:60:2]

    # -- text ---------------------------------------------------------------------------------

    def _words(self, n: int) -> list[str]:
        return self.rng.choices(self.vocab, cum_weights=self.cum_weights, k=n)

    def _name(self) -> str:
        """A made-up proper name that is never a word of the text (a note whose name is a
        common word would be 'mentioned' by thousands of chunks)."""
        while True:
            name = "".join(self.rng.choices(SYLLABLES, k=self.rng.choice((2, 3))))
            if name not in self.words:
                return name.capitalize()

    def _title(self, kind: str) -> str:
        while True:
            if kind == "Daily":
                # Once every day of the span has its note, the next span's days (a vault past
                # ~19k notes); until then the same days as ever, so smaller vaults are unchanged.
                span = DAYS * (1 + len(self.used_days) // DAYS)
                day = FIRST_DAY + timedelta(days=self.rng.randrange(span))
                if day in self.used_days:
                    continue
                self.used_days.add(day)
                title = day.isoformat()
            elif kind == "Person":
                title = f"{self._name()} {self._name()}"
            elif kind == "Meeting":
                title = f"{self._name()} {self.rng.choice(['sync', 'review', 'kickoff', 'retro'])}"
            elif kind == "Project":
                title = f"Project {self._name()}"
            else:
                title = f"{self._name()} {self.rng.choice(SECTIONS[:10]).lower()}"
            if title.casefold() not in self.used_titles:
                self.used_titles.add(title.casefold())
                return title

    def _target(self) -> str:
        """A note to link to: mostly by preferential attachment, sometimes uniform."""
        if self.rng.random() < 0.7:
            index = self.rng.choice(self.attach)
        else:
            index = self.rng.randrange(len(self.notes))
        self.attach.append(index)
        return self.notes[index].title

    def _sentence(self, links: bool) -> str:
        words = self._words(self.rng.randint(6, 16))
        for _ in range(self.rng.randint(2, 5)):
            words.insert(self.rng.randrange(len(words) + 1), self.rng.choice(COMMON))
        if links and self.notes and self.rng.random() < 0.35:
            at = self.rng.randrange(1, len(words) + 1)
            roll = self.rng.random()
            if roll < 0.6:
                words.insert(at, f"[[{self._target()}]]")
            elif roll < 0.85:
                words.insert(at, self.notes[self.rng.randrange(len(self.notes))].title)
            else:
                words.insert(at, f"[[{self._name()} {self.rng.choice(SECTIONS).lower()}]]")
        if self.rng.random() < 0.05:
            words.append(f"#{self.rng.choice(self.tags)}")
        return " ".join(words).capitalize() + "."

    def _paragraph(self) -> str:
        return " ".join(self._sentence(True) for _ in range(self.rng.randint(2, 5)))

    def _note(self) -> tuple[str, str, str, date, list[str]]:
        kind = self.rng.choices(KINDS, weights=KIND_WEIGHTS)[0]
        title = self._title(kind)
        day = (
            date.fromisoformat(title)
            if kind == "Daily"
            else FIRST_DAY + timedelta(days=self.rng.randrange(DAYS))
        )
        tags = sorted(set(self.rng.sample(self.tags, k=self.rng.randint(1, 3))))
        front = [f"tags: [{', '.join(tags)}]", f"status: {self.rng.choice(['active', 'done'])}"]
        if kind != "Daily":
            front.insert(1, f"date: {day.isoformat()}")
        if kind == "Project" and self.rng.random() < 0.5:
            front.append(f"aliases: [{title.split()[-1]}]")
        intro = self._paragraph()
        body = [f"# {title}", "", intro]
        for heading in self.rng.sample(SECTIONS, k=self.rng.randint(2, 7)):
            body += ["", f"## {heading}"]
            for _ in range(self.rng.choice((1, 1, 2, 3))):
                body += ["", self._paragraph()]
        folder = "daily" if kind == "Daily" else f"{kind.lower()}s/{self.rng.randrange(8)}"
        words = [w for w in intro.split() if w.isalpha() and w.lower() not in COMMON]
        text = "---\n" + "\n".join(front) + "\n---\n" + "\n".join(body) + "\n"
        return title, f"{folder}/{title}.md", text, day, words

    # -- growth -------------------------------------------------------------------------------

    def grow(self, target_chunks: int) -> int:
        """Add notes until the vault holds ``target_chunks`` chunks; the notes added."""
        added = 0
        while self.chunks < target_chunks:
            title, path, text, day, words = self._note()
            file = self.folder / path
            file.parent.mkdir(parents=True, exist_ok=True)
            file.write_text(text, encoding="utf-8")
            self.chunks += len(chunk_note(parse_note(path, text), VAULT, self.chunk_size))
            self.attach.append(len(self.notes))
            self.notes.append(NoteInfo(title, path, day, words))
            added += 1
        return added


def make_questions(builder: VaultBuilder, count: int, seed: int = 3) -> list[tuple[str, str]]:
    """(kind, question): a third naming a note, half plain words, the rest naming a date."""
    rng = random.Random(seed)
    out: list[tuple[str, str]] = []
    for i in range(count):
        note = rng.choice(builder.notes)
        words = rng.sample(note.words, k=min(len(note.words), rng.randint(2, 5)))
        if i % 6 in (0, 3):
            topic = " and ".join(words[:2]) or "it"
            out.append(("title", f"What does {note.title} say about {topic}?"))
        elif i % 6 == 5:
            if rng.random() < 0.5:
                out.append(("date", f"What happened on {note.day.isoformat()}?"))
            else:
                month = f"{MONTHS[note.day.month - 1]} {note.day.year}"
                out.append(("date", f"What was decided about {' '.join(words[:2])} in {month}?"))
        else:
            out.append(("words", " ".join(words) + "?"))
    return out


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[round(share * (len(ordered) - 1))]


async def ask(core: Core, questions: list[tuple[str, str]]) -> list[dict[str, Any]]:
    rows = []
    for kind, question in questions:
        start = time.perf_counter()
        evidence = await retrieve(core, VAULT, question, mode="retrieve")
        total = (time.perf_counter() - start) * 1000
        rows.append(
            {"kind": kind, "total": total, "hits": len(evidence.hits), **evidence.timings_ms}
        )
    return rows


async def measure(
    settings: Settings,
    sizes: list[int],
    count: int,
    warmup: int,
    keep: bool = False,
    reuse: bool = False,
) -> list[dict[str, Any]]:
    folder = Path(tempfile.mkdtemp(prefix="knotwork-bench-retrieval-"))
    results: list[dict[str, Any]] = []
    try:
        builder = VaultBuilder(folder, settings.chunk_size)
        async with open_core(settings) as core:
            await core.ensure_ready()
            if not reuse:
                await core.store.drop_vault(VAULT)
            questions: list[tuple[str, str]] = []
            for size in sorted(sizes):
                added = builder.grow(size)
                print(
                    f"[{size}] {added} notes added ({len(builder.notes)} in all, "
                    f"{builder.chunks} chunks by the chunker); syncing",
                    flush=True,
                )
                ingestor = Ingestor(core, root=folder, vault=VAULT, extract_enabled=False)
                start = time.perf_counter()
                report = await sync_vault(ingestor, progress=_progress(size))
                synced = time.perf_counter() - start
                assert not report.errors, report.errors[:3]
                stats = (await core.store.read(VAULT_STATS, vault=VAULT))[0]
                if not questions:
                    questions = make_questions(builder, count + warmup)
                load_before = os.getloadavg()[0]
                await ask(core, questions[count:])  # warm-up, not counted
                rows = await ask(core, questions[:count])
                results.append(
                    {
                        "size": size,
                        "notes": stats["notes"],
                        "chunks": stats["chunks"],
                        "facts": dict(stats["facts"]),  # pairs of extractor, count
                        "entities": stats["entities"],
                        "unresolved": stats["unresolved"],
                        "written": report.written,
                        "unchanged": report.unchanged,
                        "sync_s": synced,
                        "rows": rows,
                        "load": (load_before, os.getloadavg()[0]),
                    }
                )
                print(summary([results[-1]]), flush=True)
            if not keep:
                await core.store.drop_vault(VAULT)
        return results
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _progress(size: int) -> Progress:
    started = time.perf_counter()

    def report(done: int, total: int, path: str) -> None:
        if done % 500 == 0 or done == total:
            rate = done / (time.perf_counter() - started)
            print(f"[{size}] synced {done}/{total} notes ({rate:.1f} notes/s)", flush=True)

    return report


def summary(results: list[dict[str, Any]]) -> str:
    lines = [
        "| chunks in graph | notes | questions | p50 | p95 | mean | max |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    stages = [
        "| chunks in graph | " + " | ".join(f"{s} p50" for s in STAGES) + " |",
        "|---:|" + "---:|" * len(STAGES),
    ]
    kinds = [
        "| chunks in graph | naming a title, p50 | plain words, p50 | naming a date, p50 |",
        "|---:|---:|---:|---:|",
    ]
    for r in results:
        totals = [q["total"] for q in r["rows"]]
        lines.append(
            f"| {r['chunks']} | {r['notes']} | {len(totals)} | "
            f"{percentile(totals, 0.5):.0f} ms | {percentile(totals, 0.95):.0f} ms | "
            f"{statistics.mean(totals):.0f} ms | {max(totals):.0f} ms |"
        )
        stages.append(
            f"| {r['chunks']} | "
            + " | ".join(
                f"{percentile([q.get(s, 0.0) for q in r['rows']], 0.5):.1f} ms" for s in STAGES
            )
            + " |"
        )
        by_kind = [
            [q["total"] for q in r["rows"] if q["kind"] == kind]
            for kind in ("title", "words", "date")
        ]
        kinds.append(
            f"| {r['chunks']} | "
            + " | ".join(f"{percentile(v, 0.5):.0f} ms ({len(v)})" for v in by_kind)
            + " |"
        )
    sync = [
        f"- {r['chunks']} chunks: {r['written']} notes ingested, {r['unchanged']} unchanged, "
        f"in {r['sync_s']:.0f} s ({r['written'] / r['sync_s']:.1f} notes/s); "
        f"{r['entities']} entities, {r['unresolved']} unresolved link targets, facts "
        + ", ".join(f"{k} {v}" for k, v in sorted(r["facts"].items()))
        + f"; one-minute load average {r['load'][0]:.1f} before the questions, "
        f"{r['load'][1]:.1f} after"
        for r in results
    ]
    return "\n".join(
        [
            *lines,
            "",
            "Per stage (`Evidence.timings_ms`), median:",
            "",
            *stages,
            "",
            "By kind of question, median (questions):",
            "",
            *kinds,
            "",
            "The vault:",
            "",
            *sync,
        ]
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chunks", type=int, nargs="+", default=[10000, 50000])
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--record", action="store_true")
    parser.add_argument(
        "--keep", action="store_true", help="leave the vault in Neo4j afterwards (to profile)"
    )
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="start from the vault a --keep run left (one size only: its notes are unchanged)",
    )
    args = parser.parse_args()
    load = os.getloadavg()[0]
    with bench_settings() as settings:
        results = await measure(
            settings, args.chunks, args.questions, args.warmup, args.keep, args.reuse
        )
    text = summary(results)
    print(text)
    if args.record:
        record(
            "Retrieval latency",
            f".venv/bin/python -m bench.retrieval --chunks {' '.join(map(str, args.chunks))} "
            f"--questions {args.questions} --warmup {args.warmup} --record",
            'Neo4j 5.26 local, fake embedder, extraction off, `mode="retrieve"` (no model '
            f"call), top_k 8, graph depth {settings.graph_depth}, PageRank "
            f"{'on' if settings.ppr else 'off'}; one-minute load average {load:.1f} at the "
            f"start, {os.getloadavg()[0]:.1f} at the end.",
            text,
        )


if __name__ == "__main__":
    asyncio.run(main())
