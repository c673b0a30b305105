"""Entity names that are values, not names: dates, numbers, booleans, addresses, files; pure.

Two values that differ in one digit or one path segment embed almost alike ("2024-01-01" and
"2024-01-02", "img/a/photo.png" and "img/b/photo.png"), yet they are never synonyms: the
similarity step (ingest/similar.py) neither embeds nor links an entity ``is_value`` names.
A name that opens with a word ("Windows 11", "Python 3.12", "Apollo 11") stays a name: only a
unit, a month, a weekday or a period's letter (Q1, FY, W12) before a number makes a value.
A shape names take far more often than values is a name: "Mars 2020" capitalised (the rover:
French writes its months in lower case), digits with a leading zero ("007": no count is
written so). A bare number stays a value: "model: 747" and "rating: 4" are told by no name.
"""

from __future__ import annotations

import re

from knotwork.ingest.parse import ATTACHMENT
from knotwork.text.dates import iso_date, whole_date
from knotwork.text.vocab import MONTHS

_BOOLEANS = frozenset({"true", "false", "yes", "no"})
# Not yet known: N/A, to be decided/confirmed/announced, no date, keine Angabe, sin fecha.
_PLACEHOLDERS = frozenset(
    {"n/a", "n.a.", "tbd", "tbc", "tba", "n.d.", "k.a.", "k. a.", "s.d.", "s.f."}
)
# Month words for this check: Portuguese "marco" unaccented is first the name Marco.
_MONTHS = {word: month for word, month in MONTHS.items() if word != "marco"}
# Month words, in languages that write months in lower case, that are first an English name:
# capitalised before a year, a name ("Mars 2020"); in lower case, a month ("mars 2020").
_NAME_MONTHS = frozenset({"mars"})
# Month first with no year is English ("May 4"), and only full names: "Mars 3", "Gen 3" or
# "Set 1" (French March, Italian January and September abbreviated) are names.
_EN_MONTHS = frozenset(
    {"january", "february", "march", "april", "may", "june", "july", "august", "september"}
    | {"october", "november", "december"}
)
_WEEKDAYS = (
    r"(?:mon|tues?|wed|thu(?:rs?)?|fri|sat|sun)(?:day)?|wednesday|saturday"
    r"|(?:luned|marted|mercoled|gioved|venerd)[iì]|sabato|domenica"
    r"|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonnabend|sonntag"
    r"|lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche"
    r"|lunes|martes|mi[eé]rcoles|jueves|viernes|s[aá]bado|domingo"
    r"|(?:segunda|ter[cç]a|quarta|quinta|sexta)(?:-feira)?"
)
_WEEKDAY = re.compile(rf"(?i:{_WEEKDAYS})\.?,?\s+(.+)")  # Monday, 4 May 2024
_ORDINAL = r"(?:st|nd|rd|th|er|re|º|ª|°)?"
_DAY_MONTH = re.compile(rf"(\d{{1,2}}){_ORDINAL}\.?\s+(?:de\s+)?([^\W\d_]+)\.?")  # 4 May
_MONTH_DAY = re.compile(rf"([^\W\d_]+)\s+(\d{{1,2}}){_ORDINAL}")  # May 4
_MONTH_YEAR = re.compile(r"([^\W\d_]+)\.?,?\s+(\d{4})")  # May 1990, maggio 2024
_CURRENCY = (
    r"(?:[$€£¥₹₽₩¢]|USD|EUR|GBP|CHF|JPY|CNY|CAD|AUD|NZD|SEK|NOK|DKK|PLN|CZK|HUF|INR|BRL|MXN"
    r"|RUB|KRW|HKD|SGD|ZAR|TRY)"
)
# Digits with group or decimal separators: 12, 1,234.5, 1.234,5, 1'000, 1 000, .5
_DIGITS = r"(?:\d+(?:[.,'\u2019\u00a0\u202f ]\d+)*|[.,]\d+)"
_AMOUNT = (
    rf"[+\-\u2212±~≈]?\s?(?:{_CURRENCY}\s?)?{_DIGITS}"
    rf"(?:\s?(?:%|‰|{_CURRENCY}|k|Mio|Mrd|bn))?"  # not M: "3M" is a name
)
# Units after a number, a bounded list: time, data size and rate, weight, length, frequency,
# temperature. Symbols keep their case ("3M", "5G" and "4K" stay names); words take any.
_UNIT_SYMBOLS = (
    r"ns|µs|us|ms|s|sec|secs|min|mins|h|hr|hrs|d|wk|wks|yr|yrs"
    r"|[kMGTP]?B|[KMGT]iB|[kMG]?bit|[kMG]?bps|kb|Mb|Gb|[KkMGT]o"
    r"|mg|g|kg|t|lbs?|oz|nm|µm|mm|cm|m|km|in|ft|yd|mi|[kMG]?Hz|°[CF]?"
)
_UNIT_WORDS = (
    r"seconds?|minutes?|hours?|days?|weeks?|months?|years?|bytes?|grams?|kilos?|tons?|tonnes?"
    r"|secondi|minuti|ore|giorn[oi]|settiman[ae]|mes[ei]|ann[oi]"
    r"|sekunden?|minuten|stunden?|tage?n?|wochen?|monate?n?|jahre?n?"
    r"|secondes?|heures?|jours?|semaines?|mois|ans?|années?|octets?"
    r"|segundos?|minutos?|horas?|d[ií]as?|semanas?|mes|meses|años?|mês|anos?"
)
_QUANTITY = (
    rf"[~≈]?{_DIGITS}(?:\s?[-\u2013]\s?{_DIGITS})?\s?(?:{_UNIT_SYMBOLS}|(?i:{_UNIT_WORDS}))\.?"
)
_YEAR = r"(?:\d{4}|'?\d{2})"
_VALUE = re.compile(
    "|".join(
        (
            rf"{_AMOUNT}(?:\s?(?:[-\u2013/]|to)\s?{_AMOUNT})?",  # an amount, a range, a fraction
            _QUANTITY,  # 10 kg, 5 min, 1.5 GB, 3 giorni, 5 Tage
            r"[vV]?\d+(?:\.\d+)+(?:[-+][0-9A-Za-z.]+)?",  # a version: 1.0.0, v2.1, 1.0.0-rc1
            r"\d{4}(?:-\d{2})?",  # a year, a month: 1990, 2024-01
            r"\d{1,4}[./-]\d{1,2}[./-]\d{1,4}",  # a date in digits: 04/05/1990, 4.5.90
            # An ISO moment and a time of day: 2024-01-01T10:00:00Z, 10:30
            r"(?:\d{4}-\d{2}-\d{2}[T ])?\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?",
            # A time with its hour's mark: 3pm, 10 a.m., 3:30 PM, 15h30, 10 Uhr
            r"\d{1,2}(?:[:.]\d{2})?\s?(?:(?i:[ap]\.?\s?m\.?)|Uhr|h\s?\d{2})",
            r"\d+(?:[.,]\d+)?:\d+(?:[.,]\d+)?",  # a ratio: 16:9, 1:1000
            # A quarter or a half, a fiscal year, an ISO week: Q1 2024, 2024-Q1, 1Q24, H2 2023,
            # FY2024, FY 2023/24, 2024-W12, W12 2024, KW 12
            rf"(?:[QT][1-4]|H[12])\s?[-/]?\s?(?:FY\s?)?{_YEAR}|{_YEAR}\s?[-/]?\s?(?:[QT][1-4]|H[12])",
            rf"[1-4]Q\s?{_YEAR}|FY\s?{_YEAR}(?:\s?[-/]\s?{_YEAR})?(?:\s?[QH]\d)?",
            r"\d{4}-?W\d{2}(?:-?[1-7])?|W\d{1,2}\s?[-/]?\s?\d{4}|(?:KW|CW)\s?\d{1,2}(?:\s?/\s?\d{4})?",
        )
    )
)
_ADDRESS = re.compile(
    r"(?:[A-Za-z][A-Za-z0-9+.-]*://|www\.|mailto:)\S+"  # a URL
    r"|[^@\s]+@[^@\s]+\.[^@\s]+"  # an e-mail address
)
_WORDLESS = re.compile(r"[\W_]+")  # "-", "—", "?": no letter, no digit
# Three or four digits with a leading zero: a code ("007", "0042"), as no count is written
# so; longer ones are postcodes and phone numbers ("01067", "0800"), values one digit apart.
_CODE = re.compile(r"0{1,2}[1-9]\d?")


def is_value(name: str) -> bool:
    """Whether an entity's ``name`` is a value rather than a name: a date (ISO, month-name,
    in digits, a day and month, a year or a month alone, a quarter, a fiscal year, an ISO
    week), a time, a number (a decimal, a version, a percentage, an amount of money, a
    quantity in a unit, a range, a ratio), a boolean, a placeholder (N/A, TBD), a URL or
    e-mail address, or a file name with an attachment's extension. "Windows 11", "Area 51",
    "Marco 2024", "Mars 2020", "007", "Node.js" and "C++" stay names; a bare number ("747",
    "42") is a value: "rating: 4" and "model: 747" give entities alike."""
    text = name.strip()
    if not text or (len(text) in (3, 4) and _CODE.fullmatch(text)):
        return False
    folded = text.lower()
    if folded in _BOOLEANS or folded in _PLACEHOLDERS or _WORDLESS.fullmatch(text):
        return True
    if _VALUE.fullmatch(text) or _ADDRESS.fullmatch(text) or _is_date(text):
        return True
    return bool(ATTACHMENT.search(text))


def _is_date(text: str) -> bool:
    """A date in words, a weekday before it or not: 4 May 1990, May 1990, 4 May, May 4."""
    if (m := _WEEKDAY.fullmatch(text)) and _is_date(m.group(1)):
        return True
    if (m := _MONTH_YEAR.fullmatch(text)) and (word := m.group(1)).lower() in _MONTHS:
        return word.islower() or word.lower() not in _NAME_MONTHS
    if (m := _DAY_MONTH.fullmatch(text)) and (month := _MONTHS.get(m.group(2).lower())):
        return iso_date("2000", month, m.group(1)) is not None  # 2000: 29 February is one
    if (m := _MONTH_DAY.fullmatch(text)) and (word := m.group(1).lower()) in _EN_MONTHS:
        return iso_date("2000", _MONTHS[word], m.group(2)) is not None
    return whole_date(text) is not None
