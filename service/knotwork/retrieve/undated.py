"""The question as the embedder gets it: without the periods the temporal side reads.

"What did I decide about the roof in March 2025?" embedded whole leans toward any text dated
or written about March 2025, whatever it is about; the temporal retriever and the date filters
answer the "when" (``retrieve.temporal``), so the vector search is left the "what". Full text
drops the time words for the same reason (``temporal.time_words``).
"""

from __future__ import annotations

import re
from datetime import date

from knotwork.retrieve.temporal import YEAR_CUES, dated

# A preposition of time just before a period ("in March 2025", "nel marzo 2025"): it goes too.
_CUE_BEFORE = re.compile(
    r"(?<!\w)(?:"
    + "|".join(re.escape(c) for c in sorted(YEAR_CUES, key=len, reverse=True))
    + r")\s*$",
    re.IGNORECASE,
)
_SPACE_BEFORE_MARK = re.compile(r"\s+(?=[?!.,;:])")  # where a cut period was


def undated(question: str, today: date | None = None) -> str:
    """``question`` without the periods it names (``temporal.dated``) and their prepositions;
    the question whole when it names none, or when nothing but punctuation would be left (a
    blank text embeds to nothing the search can use)."""
    spans = sorted(dated(question, today or date.today())[1], key=lambda s: s.start)
    if not spans:
        return question
    kept: list[str] = []
    at = 0
    for span in spans:
        if span.start < at:  # inside a span already cut
            at = max(at, span.stop)
            continue
        before = question[at : span.start]
        if cue := _CUE_BEFORE.search(before):
            before = before[: cue.start()]
        kept.append(before)
        at = span.stop
    kept.append(question[at:])
    text = _SPACE_BEFORE_MARK.sub("", " ".join(" ".join(kept).split()))
    return text if any(char.isalnum() for char in text) else question
