"""bench/mentions.py's table: the total, the most-mentioned notes, and notes asked for."""

from __future__ import annotations

from bench.mentions import table


def test_the_table_counts_every_mention_and_reports_notes_asked_for() -> None:
    rows: list[dict[str, object]] = [
        {"path": "interdisciplinare/funzione.md", "mentions": 40, "notes": 23},
        {"path": "flip-flop.md", "mentions": 16, "notes": 9},
        {"path": "memoria.md", "mentions": 12, "notes": 12},
    ]
    out = table(rows, 2, ["funzione.md", "Tra.md"]).splitlines()
    assert out[0] == "MENTIONS: 68 facts to 3 notes"
    assert "| interdisciplinare/funzione.md | 40 | 23 |" in out
    assert "| flip-flop.md | 16 | 9 |" in out
    assert "| memoria.md | 12 | 12 |" not in out  # beyond the top 2, not asked for
    assert out[-1] == "| Tra.md | 0 | 0 |"  # asked for, never mentioned
    assert sum("funzione.md" in line for line in out) == 1  # in the top and asked: once
