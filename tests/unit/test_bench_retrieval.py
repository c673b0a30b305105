"""bench/retrieval.py's generated vault: it grows past the days its daily notes first span."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

from bench.retrieval import DAYS, FIRST_DAY, VaultBuilder


def test_daily_notes_go_on_into_the_next_span_once_every_day_has_one(tmp_path: Path) -> None:
    builder = VaultBuilder(tmp_path, 1200)
    early = builder._title("Daily")
    assert FIRST_DAY <= date.fromisoformat(early) < FIRST_DAY + timedelta(days=DAYS)

    builder.used_days = {FIRST_DAY + timedelta(days=i) for i in range(DAYS)}  # every day taken
    later = [date.fromisoformat(builder._title("Daily")) for _ in range(50)]
    assert len(set(later)) == 50
    assert all(
        FIRST_DAY + timedelta(days=DAYS) <= d < FIRST_DAY + timedelta(days=2 * DAYS) for d in later
    )


def test_the_same_seed_builds_the_same_vault(tmp_path: Path) -> None:
    one, two = VaultBuilder(tmp_path / "one", 1200), VaultBuilder(tmp_path / "two", 1200)
    assert one.grow(300) == two.grow(300)
    assert [n.path for n in one.notes] == [n.path for n in two.notes]
    for note in one.notes:
        assert (one.folder / note.path).read_text() == (two.folder / note.path).read_text()
