"""The pure parts of bench/per_question.py: where two configs differ, and the named split."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bench.per_question import diff, summary


def _row(qid: str, named: bool, full: float, hybrid: float) -> dict[str, object]:
    def by(recall: float, retrievers: list[str]) -> dict[str, object]:
        return {
            "recall": {"2": recall, "5": recall, "10": recall},
            "gold_ranks": [0 if recall else None],
            "ranked": ["a.md#"],
            "hits": [{"key": "a.md#", "retrievers": retrievers}],
        }

    found = ["fulltext", "names"] if named else ["fulltext"]
    return {
        "id": qid,
        "question": f"question {qid}?",
        "gold": ["a.md#"],
        "by": {"hybrid": by(hybrid, ["fulltext"]), "full": by(full, found)},
    }


def _write(tmp_path: Path) -> str:
    rows = [_row("q1", True, 1.0, 0.0), _row("q2", False, 0.0, 1.0), _row("q3", False, 1.0, 1.0)]
    path = tmp_path / "ranks.json"
    path.write_text(json.dumps({"configs": ["hybrid", "full"], "questions": rows}))
    return str(path)


def test_diff_lists_only_the_questions_whose_recall_differs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    diff(_write(tmp_path), "hybrid", "full", 5)
    out = capsys.readouterr().out
    assert "[q1]" in out and "[q2]" in out and "[q3]" not in out
    assert out.strip().endswith("full over hybrid at R@5: better on 1, worse on 1")


def test_summary_splits_questions_by_whether_full_found_a_named_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    summary(_write(tmp_path))
    lines = capsys.readouterr().out.splitlines()
    full = next(line for line in lines if line.startswith("full"))
    assert "all (3) 66.7 / 66.7 / 66.7" in full
    assert "named (1) 100.0 / 100.0 / 100.0" in full
    assert "none named (2) 50.0 / 50.0 / 50.0" in full
