"""The temporal retriever's answer from memory: a vault's dated notes, read once per
generation (``retrieve.cached``), give the notes dated nearest a question's range
(``retrieve.temporal``) as ``search_temporal.cypher`` would, without scanning every note."""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from datetime import date

from knotwork.graph.queries.reads import VaultDatesRow
from knotwork.retrieve.temporal import DateRange

FAR = 100000  # days: the distance search_temporal.cypher starts from


def _calendar_date(text: str) -> date | None:
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None


@dataclass(frozen=True)
class DatedNotes:
    """A vault's dated notes (vault_dates.cypher), to answer the temporal retriever in memory:
    every (date, note) pair sorted by date, so a range is two bisections."""

    paths: tuple[str, ...]
    chunks: tuple[str, ...]  # each note's first chunk; '' for none
    days: tuple[str, ...]  # ISO dates, sorted
    notes: tuple[int, ...]  # the note (index into paths) of each of ``days``
    # Each of ``days`` parsed, once (the object is kept for the vault's generation); None for
    # one that is not a calendar date.
    parsed: tuple[date | None, ...]

    @classmethod
    def from_row(cls, row: VaultDatesRow) -> DatedNotes:
        pairs = sorted((d, i) for i, ds in enumerate(row["dates"]) for d in ds)
        return cls(
            paths=tuple(row["paths"]),
            chunks=tuple(row["chunks"]),
            days=tuple(d for d, _ in pairs),
            notes=tuple(i for _, i in pairs),
            parsed=tuple(_calendar_date(d) for d, _ in pairs),
        )

    def nearest(self, span: DateRange, k: int) -> list[tuple[str, float]]:
        """As search_temporal.cypher: the first chunk of the ``k`` notes dated in ``span``
        whose date there is nearest its middle (then by path), scored 1 / (1 + days)."""
        lo = bisect.bisect_left(self.days, span.start.isoformat())
        hi = bisect.bisect_right(self.days, span.end.isoformat())
        middle = span.middle
        best: dict[int, int] = {}
        for day, note in zip(self.parsed[lo:hi], self.notes[lo:hi], strict=True):
            held = best.setdefault(note, FAR)
            if day is not None:  # else not a calendar date: never near
                best[note] = min(held, abs((day - middle).days))
        top = sorted(best.items(), key=lambda b: (b[1], self.paths[b[0]]))[:k]
        return [(self.chunks[i], 1.0 / (1 + away)) for i, away in top if self.chunks[i]]
