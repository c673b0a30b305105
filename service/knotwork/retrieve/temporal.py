"""Dates and temporal expressions in a question (six languages) → the date range it asks about.

The temporal retriever runs only when the question asks about time: an ISO or month-name date, a
month with its year, a relative phrase ("last week", "la settimana scorsa", "letzte Woche", "la
semaine dernière", "la semana pasada", "a semana passada"), a month or season placed relative
to today ("last March", "l'estate scorsa", "letzten Sommer": ``retrieve.periods``), or a year
the question places in time — after a preposition of time ("in 2019", "nel 2019", "seit 2019",
"entre 2018 et 2020") or in a question that asks when ("quando", "wann", "quand", "cuándo").
A year that qualifies a name ("the 2019 paper", "Dark River (2017 film)") is not a time
question: on multi-hop sets such years only pulled in passages dated that year.
"""

from __future__ import annotations

import calendar
import functools
import re
from dataclasses import dataclass
from datetime import date

from knotwork.retrieve.periods import relative_periods, relative_span
from knotwork.text.dates import text_dates
from knotwork.text.keys import words
from knotwork.text.language import Language, function_languages
from knotwork.text.vocab import MONTHS


@dataclass(frozen=True)
class DateRange:
    start: date
    end: date

    @property
    def middle(self) -> date:
        return self.start + (self.end - self.start) / 2


# Relative phrases by language, lower case → (unit, offset): day -1 is yesterday, week -1 last
# week …
RELATIVE_BY_LANGUAGE: dict[Language, dict[str, tuple[str, int]]] = {
    "en": {
        "today": ("day", 0), "yesterday": ("day", -1), "tomorrow": ("day", 1),
        "this week": ("week", 0), "last week": ("week", -1), "next week": ("week", 1),
        "this month": ("month", 0), "last month": ("month", -1), "next month": ("month", 1),
        "this year": ("year", 0), "last year": ("year", -1), "next year": ("year", 1),
    },
    "it": {
        "oggi": ("day", 0), "ieri": ("day", -1), "domani": ("day", 1),
        "questa settimana": ("week", 0), "settimana scorsa": ("week", -1),
        "settimana prossima": ("week", 1), "questo mese": ("month", 0),
        "mese scorso": ("month", -1), "mese prossimo": ("month", 1), "quest'anno": ("year", 0),
        "anno scorso": ("year", -1), "anno prossimo": ("year", 1),
        "scorsa settimana": ("week", -1), "prossima settimana": ("week", 1),
        "scorso mese": ("month", -1), "prossimo mese": ("month", 1), "scorso anno": ("year", -1),
        "prossimo anno": ("year", 1),
    },
    "de": {
        "heute": ("day", 0), "gestern": ("day", -1), "morgen": ("day", 1),
        "diese woche": ("week", 0), "letzte woche": ("week", -1), "nächste woche": ("week", 1),
        "diesen monat": ("month", 0), "letzten monat": ("month", -1),
        "nächsten monat": ("month", 1), "dieses jahr": ("year", 0), "letztes jahr": ("year", -1),
        "nächstes jahr": ("year", 1),
        "vergangene woche": ("week", -1), "vorige woche": ("week", -1),
        "vergangenen monat": ("month", -1), "vorigen monat": ("month", -1),
        "vergangenes jahr": ("year", -1), "voriges jahr": ("year", -1),
    },
    "fr": {
        "aujourd'hui": ("day", 0), "hier": ("day", -1), "demain": ("day", 1),
        "cette semaine": ("week", 0), "semaine dernière": ("week", -1),
        "semaine prochaine": ("week", 1), "ce mois-ci": ("month", 0),
        "mois dernier": ("month", -1), "mois prochain": ("month", 1), "cette année": ("year", 0),
        "année dernière": ("year", -1), "année prochaine": ("year", 1),
        "an dernier": ("year", -1), "an passé": ("year", -1), "an prochain": ("year", 1),
    },
    "es": {
        "hoy": ("day", 0), "ayer": ("day", -1), "mañana": ("day", 1),
        "esta semana": ("week", 0), "semana pasada": ("week", -1),
        "semana que viene": ("week", 1), "este mes": ("month", 0), "mes pasado": ("month", -1),
        "mes que viene": ("month", 1), "este año": ("year", 0), "año pasado": ("year", -1),
        "año que viene": ("year", 1),
        "próxima semana": ("week", 1), "próximo mes": ("month", 1), "próximo año": ("year", 1),
    },
    "pt": {
        "hoje": ("day", 0), "ontem": ("day", -1), "amanhã": ("day", 1),
        "semana passada": ("week", -1), "próxima semana": ("week", 1),
        "mês passado": ("month", -1), "este mês": ("month", 0), "próximo mês": ("month", 1),
        "ano passado": ("year", -1), "este ano": ("year", 0), "próximo ano": ("year", 1),
        "semana que vem": ("week", 1), "mês que vem": ("month", 1), "ano que vem": ("year", 1),
    },
}  # fmt: skip
RELATIVE: dict[str, tuple[str, int]] = {
    phrase: value for phrases in RELATIVE_BY_LANGUAGE.values() for phrase, value in phrases.items()
}
# A word that is a date in one language and another word elsewhere counts only in a question
# with no function word of another language, or one of its own: German "hier" is "here".
_AMBIGUOUS: dict[str, Language] = {"hier": "fr"}
# "Morgen" and "mañana" are also the morning: "heute Morgen", "am Morgen", "por la mañana".
_MORNING_BEFORE = re.compile(r"(?<!\w)(?:heute|gestern|am|jeden|guten|la|esta|cada|una)\s+$")
_RELATIVE = re.compile(
    r"(?<!\w)("
    + "|".join(re.escape(p) for p in sorted(RELATIVE, key=len, reverse=True))
    + r")(?!\w)"
)


def _meant(phrase: str, text: str, at: int) -> bool:
    """Whether a relative phrase found at ``at`` means the date it names there."""
    if phrase in ("morgen", "mañana") and _MORNING_BEFORE.search(text, 0, at):
        return False
    if (language := _AMBIGUOUS.get(phrase)) is not None:
        hints = function_languages(text)
        return not hints or language in hints
    return True


_MONTH_YEAR = re.compile(r"(?<!\w)([^\W\d_]+)\.?\s+(?:(?:de|del|of)\s+)?(\d{4})(?!\d)")
_YEAR = re.compile(r"(?<![\w-])(1[89]\d\d|2[01]\d\d)(?![\w-])")
# Prepositions of time before a year, six languages (an elided one ends in its apostrophe).
YEAR_CUES = (
    "in", "since", "from", "until", "till", "before", "after", "during", "between", "around",
    "throughout", "nel", "nell'", "dal", "dall'", "fino al", "prima del", "dopo il", "durante il",
    "tra il", "fra il", "entro il", "all'inizio del", "alla fine del", "im", "seit", "bis", "vor",
    "nach", "ab", "zwischen", "während",
    "en", "depuis", "avant", "après", "jusqu'en", "entre", "pendant", "dès", "desde", "hasta",
    "antes de", "después de", "durante", "em", "no", "até", "depois de",
)  # fmt: skip
# Words that may stand between the preposition and the year: "in the year 2019", "nell'anno",
# "im Jahr", "en l'an", "a principios de", "no início de".
_FILLERS = (
    r"the year|the early|the late|early|late|mid|year|anno|l'anno|inizio|fine|metà|del|jahr|"
    r"jahre|anfang|ende|mitte|"
    r"l'an|l'année|année|début|fin|de|el|año|principios|finales|ano|o|início|final|do"
)
# A year may end a span: "from 2018 to 2020", "dal 2018 al 2020", "zwischen 2018 und 2020".
_UNTIL = r"(?:-|\u2013|to|and|al|all'|e|bis|und|à|et|a|y|até|ao)"
_YEAR_NUMBER = r"(1[89]\d\d|2[01]\d\d)(?![\w-])"
_CUED_YEAR = re.compile(
    r"(?<!\w)(?:"
    + "|".join(re.escape(c) for c in sorted(YEAR_CUES, key=len, reverse=True))
    + r")(?:\s+|(?<='))(?:(?:"
    + _FILLERS
    + r")\s+)*"
    + _YEAR_NUMBER
    + r"(?:\s*"
    + _UNTIL
    + r"\s+(?:(?:"
    + _FILLERS
    + r")\s+)*"
    + _YEAR_NUMBER
    + r")?"
)
# Words that ask when, six languages; with one, a year outside parentheses and not after an
# article ("the 2019 paper") places the question in time.
_WHEN = re.compile(
    r"(?<!\w)(?:when|what year|which year|quando|in che anno|wann|in welchem jahr|quand|"
    r"en quelle année|cuándo|cuando|en qué año|em que ano)(?!\w)"
)
_ARTICLE_BEFORE = re.compile(
    r"(?<!\w)(?:the|a|an|il|lo|la|l'|i|gli|le|un|una|der|die|das|dem|den|des|ein|eine|el|los|"
    r"las|o|os|as|um|uma)\s*$"
)


def _in_parentheses(text: str, at: int) -> bool:
    return text.rfind("(", 0, at) > text.rfind(")", 0, at)


def _time_years(text: str, covered: list[tuple[int, int]]) -> list[tuple[int, range]]:
    """The years ``text`` (lower case) places in time, outside the ``covered`` spans, each
    with the span of the phrase that says it ("in 2019", "from 2018 to 2020": the whole)."""
    years: list[tuple[int, range]] = []
    for match in _CUED_YEAR.finditer(text):
        for group in (1, 2):
            span = match.span(group)
            if match.group(group) and span not in covered and not _in_parentheses(text, span[0]):
                years.append((int(match.group(group)), range(*match.span())))
    if years or not _WHEN.search(text):
        return years
    for match in _YEAR.finditer(text):
        start = match.start()
        if match.span() in covered or _in_parentheses(text, start):
            continue
        if not _ARTICLE_BEFORE.search(text, 0, start):
            years.append((int(match.group(1)), range(*match.span())))
    return years


def _relative_phrases(
    question: str, today: date
) -> tuple[str, list[DateRange], list[str], list[range]]:
    """The question in lower case, and the ranges, words and spans of its relative phrases and
    periods. A typographic apostrophe (U+2019) reads as the plain one, as "aujourd'hui" is often
    typed; the lower case keeps every character's place, so the periods' spans hold."""
    plain = question.replace("\u2019", "'")
    text = "".join(c.lower() if len(c.lower()) == 1 else c for c in plain)
    periods, taken = relative_periods(plain, today)
    ranges = [DateRange(start, end) for start, end in periods]
    said = [plain[span.start : span.stop] for span in taken]
    for match in _RELATIVE.finditer(text):
        if any(match.start() in span for span in taken):  # "March last year": March only
            continue
        if _meant(match.group(1), text, match.start()):
            ranges.append(DateRange(*relative_span(*RELATIVE[match.group(1)], today)))
            said.append(match.group(1))
            taken.append(range(*match.span()))
    return text, ranges, said, taken


def time_words(question: str) -> frozenset[str]:
    """The words of the question's relative phrases and periods ("yesterday", "last summer"):
    they ask when, and a note dated then answers them by its date, not by writing them."""
    return _time_words(question, date.today())


@functools.lru_cache(maxsize=256)
def _time_words(question: str, today: date) -> frozenset[str]:
    # Cached: full text, the ranking and the relevance gate each ask it of one question.
    said = _relative_phrases(question, today)[2]
    return frozenset(w for phrase in said for w in words(phrase))


def question_range(question: str, today: date | None = None) -> DateRange | None:
    """The span of every date and temporal expression in the question, or None."""
    ranges = dated(question, today or date.today())[0]
    if not ranges:
        return None
    return DateRange(min(r.start for r in ranges), max(r.end for r in ranges))


def dated(question: str, today: date) -> tuple[list[DateRange], list[range]]:
    """The ranges of the question's dates and temporal expressions, and where it says those
    that name a period (relative phrases, months and seasons placed by a modifier, a month of
    a year, a year in time; not a day, "5 March 2024", nor a bare "in March")."""
    text, relative, _, spans = _relative_phrases(question, today)
    ranges: list[DateRange] = []
    for iso in text_dates(question):
        if iso:
            day = date.fromisoformat(iso)
            ranges.append(DateRange(day, day))
    days = list(ranges)
    ranges.extend(relative)
    covered: list[tuple[int, int]] = []
    for match in _MONTH_YEAR.finditer(text):
        month = MONTHS.get(match.group(1))
        year = int(match.group(2))
        # Every month named counts ("between January and March 2023"), but one a full date
        # of it names already ("5 March 2024") says no more than that day.
        if not (month and date.min.year <= year):  # "march 0000" names no date
            continue
        if not any((d.start.year, d.start.month) == (year, month) for d in days):
            last = calendar.monthrange(year, month)[1]
            ranges.append(DateRange(date(year, month, 1), date(year, month, last)))
            covered.append(match.span(2))
            spans.append(range(*match.span()))
    if not ranges:
        for year, span in _time_years(text, covered):
            ranges.append(DateRange(date(year, 1, 1), date(year, 12, 31)))
            spans.append(span)
    return ranges, spans
