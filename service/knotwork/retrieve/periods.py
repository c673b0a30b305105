"""Months and seasons placed relative to today, six languages: "last March", "marzo scorso",
"letzten Sommer", "l'été dernier", "el próximo invierno", "neste verão", and a month of a
relative year ("March last year", "marzo dell'anno scorso", "mars de l'année dernière"), and a
month or season after a preposition of time with no year ("in March", "a marzo", "im Sommer",
"en mars", "no verão"): its latest occurrence begun by today.

A month or season is a recurring period; "last" is its latest occurrence that ended before
today (asked in November, "last summer" is this year's; asked in March, "last March" is a year
ago), "next" its first that starts after today, "this" the one that holds today or else the
one that starts in today's year. Seasons are the northern hemisphere's meteorological ones
(spring March to May, summer June to August, autumn September to November, winter December
to February). ``relative_span`` gives the day, week, month or year a relative phrase of
``retrieve.temporal`` names ("yesterday", "last week").

Only a modifier and a name of the same language pair up ("next estate" is English property,
not an Italian summer), abbreviations are not names here, English "may" counts only as "May"
("why this may fail" asks about no time), and an English name within a proper name ("the last
Summer Olympics", "March Madness") or after "the last" ("the last summer of the war": the
final one) names no period. The words of each language are ``retrieve.period_words``.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta

from knotwork.retrieve.period_words import (
    AFTER,
    BARE,
    BEFORE,
    JOINERS,
    MONTH_NAMES,
    SEASONS,
    YEAR_WORD,
    YEARS,
)
from knotwork.text.language import Language
from knotwork.text.vocab import MONTHS

_NO_YEAR = r"(?!\w)(?!,?\s+(?:of\s+|de\s+|del\s+|di\s+)?\d)"  # "in March 2024": a month of a year


def relative_span(unit: str, offset: int, today: date) -> tuple[date, date]:
    """The day, the week (Monday to Sunday), the month or the year ``offset`` units from
    today's: ("week", -1) is last week."""
    if unit == "day":
        day = today + timedelta(days=offset)
        return day, day
    if unit == "week":
        monday = today - timedelta(days=today.weekday()) + timedelta(weeks=offset)
        return monday, monday + timedelta(days=6)
    if unit == "month":
        index = today.year * 12 + today.month - 1 + offset
        first = date(index // 12, index % 12 + 1, 1)
        return first, first.replace(day=calendar.monthrange(first.year, first.month)[1])
    return date(today.year + offset, 1, 1), date(today.year + offset, 12, 31)


@dataclass(frozen=True)
class Period:
    """A recurring stretch of the year: its first month and how many months it lasts."""

    first: int
    months: int

    def occurrence(self, year: int) -> tuple[date, date]:
        index = year * 12 + self.first - 1 + self.months - 1
        end_year, end_month = index // 12, index % 12 + 1
        last = calendar.monthrange(end_year, end_month)[1]
        return date(year, self.first, 1), date(end_year, end_month, last)

    def placed(self, offset: int, today: date) -> tuple[date, date]:
        """The occurrence that ``offset`` (-1 last, 0 this, +1 next) names, seen from today."""
        seen = [self.occurrence(y) for y in range(today.year - 2, today.year + 2)]
        if offset < 0:
            return [o for o in seen if o[1] < today][-1]
        if offset > 0:
            return next(o for o in seen if o[0] > today)
        held = [o for o in seen if o[0] <= today]
        if held[-1][1] >= today:
            return held[-1]
        return self.occurrence(today.year)

    def begun(self, today: date) -> tuple[date, date]:
        """The latest occurrence begun by today: "in March" asked in December is this year's,
        asked in February last year's; "in December" asked on 5 December, this one."""
        return [o for o in (self.occurrence(y) for y in range(today.year - 2, today.year + 1))
                if o[0] <= today][-1]  # fmt: skip


def _alternatives(words: Iterable[str]) -> str:
    """A regex alternation of ``words``, longest first; a space in one matches any spacing."""
    names = sorted(words, key=len, reverse=True)
    return "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in names)


def _names(language: Language) -> dict[str, Period]:
    named = {m: Period(MONTHS[m], 1) for m in MONTH_NAMES[language].split()}
    return named | {s: Period(first, 3) for s, first in SEASONS[language].items()}


_NOT_DATED = r"(?!\w)(?!\s+(?:of\s+|de\s+|del\s+)?\d)"  # "last March 2024": the year says it


def _patterns(language: Language) -> list[tuple[re.Pattern[str], str]]:
    """(pattern, how to read it): modifier before the name, after it, or a relative year."""
    names = _alternatives(_names(language))
    found = [
        (
            re.compile(
                rf"(?<!\w)(?P<mod>{_alternatives(BEFORE[language])})(?:\s+|(?<='))"
                rf"(?P<name>{names}){_NOT_DATED}",
                re.IGNORECASE,
            ),
            "before",
        ),
        (
            re.compile(
                rf"(?<!\w)(?P<name>{_alternatives(MONTH_NAMES[language].split())})\s+"
                rf"{JOINERS[language]}(?P<mod>{_alternatives(YEARS[language])})"
                rf"{YEAR_WORD.get(language, '')}(?!\w)",
                re.IGNORECASE,
            ),
            "year",
        ),
    ]
    if AFTER[language]:
        found.append(
            (
                re.compile(
                    rf"(?<!\w)(?P<name>{names})\s+(?P<mod>{_alternatives(AFTER[language])})"
                    r"(?!\w)",
                    re.IGNORECASE,
                ),
                "after",
            )
        )
    if language == "fr":  # a season named before its modifier takes its article: "l'été
        # dernier"; "a été dernier" is "came last"
        found[-1] = (
            re.compile(
                rf"(?:(?<!\w)(?:l'|le\s+)(?P<season>{_alternatives(SEASONS['fr'])})|"
                rf"(?<!\w)(?P<name>{_alternatives(MONTH_NAMES['fr'].split())}))"
                rf"\s+(?P<mod>{_alternatives(AFTER['fr'])})(?!\w)",
                re.IGNORECASE,
            ),
            "after",
        )
    found.append(
        (
            re.compile(
                rf"(?<!\w)(?P<mod>{BARE[language]})(?:\s+|(?<='))(?P<name>{names}){_NO_YEAR}",
                re.IGNORECASE,
            ),
            "bare",
        )
    )
    return found


_PATTERNS = {language: _patterns(language) for language in MONTH_NAMES}


# After an English period's name, a capitalised word (but "I") makes it part of a name: "the
# Summer Olympics", "March Madness"; "the last summer of the war" is the final one, not the
# previous one.
_NAMED_AFTER = re.compile(r"\s+(?!I\b)[A-Z]")
_THE_BEFORE = re.compile(r"(?<!\w)the\s+$", re.IGNORECASE)


def _english_period(text: str, match: re.Match[str], name: str) -> bool:
    """Whether an English match names a period: "May" only capitalised ("why this may
    fail"), not within a proper name, and "last" or "next" without "the"."""
    if name.lower() == "may" and name != "May":
        return False
    if _NAMED_AFTER.match(text, match.end("name")):
        return False
    mod = match.group("mod").lower()
    return not (mod in ("last", "next") and _THE_BEFORE.search(text, 0, match.start()))


def _key(words: str) -> str:
    return " ".join(words.lower().split())


def relative_periods(question: str, today: date) -> tuple[list[tuple[date, date]], list[range]]:
    """The months and seasons ``question`` places relative to ``today``, and the character
    spans of the phrases that say it with a modifier ("last March": a relative year inside one
    must not also count whole, and their words ask when, not what). A month or season after a
    preposition alone ("in March") is placed too, but its span is not given: a note that
    writes "March" may well answer it."""
    text = question.replace("\u2019", "'")
    found: list[tuple[date, date]] = []
    spans: list[range] = []
    bare: list[tuple[int, tuple[date, date]]] = []  # where the name is, what it names
    for language, patterns in _PATTERNS.items():
        names = _names(language)
        for pattern, kind in patterns:
            for match in pattern.finditer(text):
                name = match.group("season") if "season" in pattern.groupindex else None
                name = name or match.group("name")
                if language == "en" and not _english_period(text, match, name):
                    continue
                period = names[_key(name)]
                mod = _key(match.group("mod"))
                if kind == "bare":
                    if language != "en" or not mod.endswith("the") or period.months > 1:
                        bare.append((match.start("name"), period.begun(today)))
                    continue
                if kind == "year":
                    year = today.year + YEARS[language][mod]
                    found.append(period.occurrence(year))
                else:
                    offset = (BEFORE if kind == "before" else AFTER)[language][mod]
                    found.append(period.placed(offset, today))
                spans.append(range(*match.span()))
    # "in March last year", "en mars dernier": the phrase with its modifier says which one.
    found += [span for at, span in bare if not any(at in taken for taken in spans)]
    return found, spans
