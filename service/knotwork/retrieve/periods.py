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
final one) names no period.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta

from knotwork.text.language import Language
from knotwork.text.vocab import MONTHS

_MONTH_NAMES: dict[Language, str] = {
    "en": "january february march april may june july august september october november december",
    "it": "gennaio febbraio marzo aprile maggio giugno luglio agosto settembre ottobre novembre "
    "dicembre",
    "de": "januar jänner februar märz april mai juni juli august september oktober november "
    "dezember",
    "fr": "janvier février fevrier mars avril mai juin juillet août aout septembre octobre "
    "novembre décembre decembre",
    "es": "enero febrero marzo abril mayo junio julio agosto septiembre setiembre octubre "
    "noviembre diciembre",
    "pt": "janeiro fevereiro março abril maio junho julho agosto setembro outubro novembro "
    "dezembro",
}
# Each season's first month; each lasts three months.
_SEASONS: dict[Language, dict[str, int]] = {
    "en": {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12},
    "it": {"primavera": 3, "estate": 6, "autunno": 9, "inverno": 12},
    "de": {"frühling": 3, "frühjahr": 3, "sommer": 6, "herbst": 9, "winter": 12},
    "fr": {"printemps": 3, "été": 6, "automne": 9, "hiver": 12},
    "es": {"primavera": 3, "verano": 6, "otoño": 9, "invierno": 12},
    "pt": {"primavera": 3, "verão": 6, "outono": 9, "inverno": 12},
}
_LAST, _THIS, _NEXT = -1, 0, 1


def _forms(stems: str, endings: str, offset: int) -> dict[str, int]:
    return {stem + end: offset for stem in stems.split() for end in endings.split()}


# Modifiers written before the name, and after it, by language → -1 last, 0 this, +1 next.
_BEFORE: dict[Language, dict[str, int]] = {
    "en": {"last": _LAST, "past": _LAST, "previous": _LAST, "this": _THIS, "next": _NEXT,
           "coming": _NEXT},
    "it": {"scorso": _LAST, "scorsa": _LAST, "passato": _LAST, "passata": _LAST,
           "questo": _THIS, "questa": _THIS, "quest'": _THIS, "prossimo": _NEXT,
           "prossima": _NEXT},
    "de": {**_forms("letzt vergangen vorig", "e en er es", _LAST),
           **_forms("dies", "e en er es", _THIS), **_forms("nächst kommend", "e en er es", _NEXT)},
    "fr": {"ce": _THIS, "cet": _THIS, "cette": _THIS},
    "es": {"pasado": _LAST, "pasada": _LAST, "este": _THIS, "esta": _THIS, "próximo": _NEXT,
           "próxima": _NEXT},
    "pt": {"passado": _LAST, "passada": _LAST, "este": _THIS, "esta": _THIS, "neste": _THIS,
           "nesta": _THIS, "próximo": _NEXT, "próxima": _NEXT},
}  # fmt: skip
_AFTER: dict[Language, dict[str, int]] = {
    "en": {},
    "it": {"scorso": _LAST, "scorsa": _LAST, "passato": _LAST, "passata": _LAST,
           "prossimo": _NEXT, "prossima": _NEXT},
    "de": {},
    "fr": {"dernier": _LAST, "dernière": _LAST, "passé": _LAST, "passée": _LAST,
           "prochain": _NEXT, "prochaine": _NEXT},
    "es": {"pasado": _LAST, "pasada": _LAST, "próximo": _NEXT, "próxima": _NEXT,
           "que viene": _NEXT},
    "pt": {"passado": _LAST, "passada": _LAST, "próximo": _NEXT, "próxima": _NEXT,
           "que vem": _NEXT},
}  # fmt: skip
# A relative year after a month ("March last year", "März letzten Jahres"), with the words
# that may join them.
_YEARS: dict[Language, dict[str, int]] = {
    "en": {"last year": _LAST, "this year": _THIS, "next year": _NEXT},
    "it": {"anno scorso": _LAST, "scorso anno": _LAST, "anno passato": _LAST,
           "quest'anno": _THIS, "anno prossimo": _NEXT, "prossimo anno": _NEXT},
    "de": {**_forms("letzt vergangen vorig", "es en", _LAST), **_forms("dies", "es en", _THIS),
           **_forms("nächst kommend", "es en", _NEXT)},
    "fr": {"année dernière": _LAST, "an dernier": _LAST, "an passé": _LAST,
           "année passée": _LAST, "cette année": _THIS, "année prochaine": _NEXT,
           "an prochain": _NEXT},
    "es": {"año pasado": _LAST, "este año": _THIS, "año que viene": _NEXT,
           "próximo año": _NEXT},
    "pt": {"ano passado": _LAST, "este ano": _THIS, "deste ano": _THIS, "ano que vem": _NEXT,
           "próximo ano": _NEXT},
}  # fmt: skip
_YEAR_WORD: dict[Language, str] = {"de": r"\s+jahr(?:es|e)?"}  # "letzten Jahres": the stem above
_JOINERS: dict[Language, str] = {
    "en": r"(?:of\s+|in\s+)?",
    "it": r"(?:dell'|dello\s+|del\s+|di\s+quest'|di\s+questo\s+)?",
    "de": r"(?:des\s+|im\s+)?",
    "fr": r"(?:de\s+l'|de\s+cette\s+|l'|de\s+)?",
    "es": r"(?:del\s+|de\s+este\s+|de\s+)?",
    "pt": r"(?:do\s+|de\s+)?",
}


# Prepositions of time before a month or season with no modifier and no year; English "the"
# only before a season ("in the summer"; "in the March issue" names an issue).
_BARE: dict[Language, str] = {
    "en": r"in|during|in\s+the|during\s+the|over\s+the",
    "it": r"a|ad|in|d'|durante\s+l'|durante\s+il|nel\s+mese\s+di",
    "de": r"im",
    "fr": r"en|au|pendant\s+l'|pendant\s+le|au\s+mois\s+de|au\s+mois\s+d'",
    "es": r"en|en\s+el|durante|durante\s+el|en\s+el\s+mes\s+de",
    "pt": r"em|no|na|durante\s+o|durante\s+a|no\s+mês\s+de",
}
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
    named = {m: Period(MONTHS[m], 1) for m in _MONTH_NAMES[language].split()}
    return named | {s: Period(first, 3) for s, first in _SEASONS[language].items()}


_NOT_DATED = r"(?!\w)(?!\s+(?:of\s+|de\s+|del\s+)?\d)"  # "last March 2024": the year says it


def _patterns(language: Language) -> list[tuple[re.Pattern[str], str]]:
    """(pattern, how to read it): modifier before the name, after it, or a relative year."""
    names = _alternatives(_names(language))
    found = [
        (
            re.compile(
                rf"(?<!\w)(?P<mod>{_alternatives(_BEFORE[language])})(?:\s+|(?<='))"
                rf"(?P<name>{names}){_NOT_DATED}",
                re.IGNORECASE,
            ),
            "before",
        ),
        (
            re.compile(
                rf"(?<!\w)(?P<name>{_alternatives(_MONTH_NAMES[language].split())})\s+"
                rf"{_JOINERS[language]}(?P<mod>{_alternatives(_YEARS[language])})"
                rf"{_YEAR_WORD.get(language, '')}(?!\w)",
                re.IGNORECASE,
            ),
            "year",
        ),
    ]
    if _AFTER[language]:
        found.append(
            (
                re.compile(
                    rf"(?<!\w)(?P<name>{names})\s+(?P<mod>{_alternatives(_AFTER[language])})"
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
                rf"(?:(?<!\w)(?:l'|le\s+)(?P<season>{_alternatives(_SEASONS['fr'])})|"
                rf"(?<!\w)(?P<name>{_alternatives(_MONTH_NAMES['fr'].split())}))"
                rf"\s+(?P<mod>{_alternatives(_AFTER['fr'])})(?!\w)",
                re.IGNORECASE,
            ),
            "after",
        )
    found.append(
        (
            re.compile(
                rf"(?<!\w)(?P<mod>{_BARE[language]})(?:\s+|(?<='))(?P<name>{names}){_NO_YEAR}",
                re.IGNORECASE,
            ),
            "bare",
        )
    )
    return found


_PATTERNS = {language: _patterns(language) for language in _MONTH_NAMES}


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
                    year = today.year + _YEARS[language][mod]
                    found.append(period.occurrence(year))
                else:
                    offset = (_BEFORE if kind == "before" else _AFTER)[language][mod]
                    found.append(period.placed(offset, today))
                spans.append(range(*match.span()))
    # "in March last year", "en mars dernier": the phrase with its modifier says which one.
    found += [span for at, span in bare if not any(at in taken for taken in spans)]
    return found, spans
