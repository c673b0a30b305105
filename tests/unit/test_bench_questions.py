"""The question sets under bench/data: each loads through the evaluation's loader, and every gold
section exists in its note as the chunker writes it, so no question is unanswerable by
construction. The Italian vault is not in the repository; its test is skipped without it."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from knotwork.eval.data import load_questions
from knotwork.eval.metrics import hit_section
from knotwork.ingest.chunk import chunk_note
from knotwork.ingest.parse import parse_note
from knotwork.models import Chunk
from knotwork.retrieve.types import Hit
from knotwork.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "bench" / "data"
IT_VAULT = "eval/vault-it-sapienza"
IT_CANDIDATES = (ROOT.parent / "shared" / IT_VAULT, Path("/work/shared") / IT_VAULT)

# Counts per kind as bench/data/README.md states them.
SETS: dict[str, tuple[Path | None, dict[str, int]]] = {
    "it-sapienza": (
        next((p for p in IT_CANDIDATES if p.is_dir()), None),
        {"title": 31, "paraphrase": 39, "multi_note": 12, "off_topic": 22},
    ),
    "de-notes": (
        DATA / "de-notes" / "notes",
        {"title": 8, "paraphrase": 9, "multi_note": 3, "off_topic": 6},
    ),
    "fr-notes": (
        DATA / "fr-notes" / "notes",
        {"title": 8, "paraphrase": 9, "multi_note": 3, "off_topic": 6},
    ),
}


def chunks_of(vault: Path, rel: str) -> list[Chunk]:
    """The note's chunks at the default size; heading path "" is the text before a heading."""
    note = parse_note(rel, (vault / rel).read_text(encoding="utf-8"))
    return chunk_note(note, "v", Settings.model_fields["chunk_size"].default)


def as_hit(path: str, chunk: Chunk) -> Hit:
    return Hit(chunk.id, path, path[:-3], chunk.heading_path, 1, 2, chunk.text, 0.0)


def rows(name: str) -> list[dict[str, Any]]:
    text = (DATA / name / "questions.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


@pytest.mark.parametrize("name", sorted(SETS))
def test_question_file_loads_with_unique_ids_and_the_stated_kinds(name: str) -> None:
    _, expected = SETS[name]
    questions = load_questions(DATA / name / "questions.jsonl")
    ids = [q.id for q in questions]
    assert len(ids) == len(set(ids)), "question ids must be unique"
    assert dict(Counter(q.type for q in questions)) == expected
    for q in questions:
        assert q.kind == "sections"
        assert bool(q.gold) == (q.type != "off_topic"), q.id
        assert q.type == "off_topic" or q.answers, f"{q.id}: an answerable question needs an answer"
    multi = [q for q in questions if q.type == "multi_note"]
    assert all(len({g.split("#", 1)[0] for g in q.gold}) >= 2 for q in multi)


@pytest.mark.parametrize("name", sorted(SETS))
def test_every_gold_section_exists_as_the_chunker_writes_it(name: str) -> None:
    """Each gold {path, heading} names a note and one of its chunk heading paths, and the key the
    loader makes of it is the key a retrieved chunk of that section is scored by."""
    vault, _ = SETS[name]
    if vault is None:
        looked = ", ".join(map(str, IT_CANDIDATES))
        pytest.skip(f"the Italian vault is not beside the checkout (looked in {looked})")
    questions = load_questions(DATA / name / "questions.jsonl")
    missing: list[str] = []
    for row, question in zip(rows(name), questions, strict=True):
        for gold in row["gold_notes"]:
            path, heading = gold["path"], gold["heading"]
            if not (vault / path).is_file():
                missing.append(f"{row['id']}: no note {path}")
                continue
            chunks = [c for c in chunks_of(vault, path) if c.heading_path == heading]
            if not chunks:
                missing.append(f"{row['id']}: {path} has no section {heading!r}")
            elif hit_section(as_hit(path, chunks[0])) not in question.gold:
                missing.append(f"{row['id']}: {path} {heading!r} is not scored as gold")
    assert not missing, "\n".join(missing)


def test_relevance_splits_one_file_into_answerable_and_off_topic() -> None:
    """bench.relevance --by-gold: questions with gold are answerable, those without are not."""
    from bench.relevance import questions

    path = DATA / "de-notes" / "questions.jsonl"
    answerable, off_topic = questions(path, 200, True), questions(path, 200, False)
    assert (len(answerable), len(off_topic)) == (20, 6)
    assert "Was ist die Hauptstadt von Frankreich?" in off_topic
    assert questions(path, 200) == [str(r["question"]) for r in rows("de-notes")]
