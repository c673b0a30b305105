"""Dates written in text: ISO dates and month-name dates in the six languages; pure."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator

from knotwork.text.vocab import MONTHS

_ISO = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")
_ORDINAL = r"(?:st|nd|rd|th|er|re|º|ª|°)?"
_DAY_FIRST = re.compile(
    rf"(?<!\w)(\d{{1,2}}){_ORDINAL}\.?\s+(?:de\s+)?([^\W\d_]+)\.?,?\s+(?:(?:de|del)\s+)?"
    r"(\d{4})(?!\d)",
    re.IGNORECASE,
)
_MONTH_FIRST = re.compile(rf"(?<!\w)([^\W\d_]+)\.?\s+(\d{{1,2}}){_ORDINAL},?\s+(\d{{4}})(?!\d)")


def iso_date(year: str, month: int | str, day: str) -> str | None:
    try:
        return dt.date(int(year), int(month), int(day)).isoformat()
    except (ValueError, OverflowError):
        return None


def text_dates(text: str) -> Iterator[str | None]:
    """ISO dates and month-name dates (six languages) written in ``text``."""
    for m in _ISO.finditer(text):
        yield iso_date(*m.groups())
    for m in _DAY_FIRST.finditer(text):
        month = MONTHS.get(m.group(2).lower())
        yield iso_date(m.group(3), month, m.group(1)) if month else None
    for m in _MONTH_FIRST.finditer(text):
        month = MONTHS.get(m.group(1).lower())
        yield iso_date(m.group(3), month, m.group(2)) if month else None


def whole_date(text: str) -> str | None:
    """The date ``text`` is and nothing else (ISO or month-name, as ``text_dates`` reads
    them), or None: "4 May 1990" is one, "Meeting of 4 May 1990" is not."""
    text = text.strip()
    if m := _ISO.fullmatch(text):
        return iso_date(*m.groups())
    if m := _DAY_FIRST.fullmatch(text):
        month = MONTHS.get(m.group(2).lower())
        return iso_date(m.group(3), month, m.group(1)) if month else None
    if m := _MONTH_FIRST.fullmatch(text):
        month = MONTHS.get(m.group(1).lower())
        return iso_date(m.group(3), month, m.group(2)) if month else None
    return None


def impossible_date(text: str) -> bool:
    """Whether ``text`` is written as a date that no calendar has: ``2024-13-45``,
    ``2025-02-30`` (a time after it too: ``2025-02-30T10:00``), ``31 April 2024``."""
    text = text.strip()
    if (m := _ISO.match(text)) and re.fullmatch(r"(?:[T ]\d.*)?", text[m.end() :]):
        return iso_date(*m.groups()) is None
    for pattern, month_at in ((_DAY_FIRST, 2), (_MONTH_FIRST, 1)):
        if (m := pattern.fullmatch(text)) and m.group(month_at).lower() in MONTHS:
            return whole_date(text) is None
    return False
