"""Entity names that are values, not names: dates, numbers, booleans, addresses, files; pure.

Two values that differ in one digit or one path segment embed almost alike ("2024-01-01" and
"2024-01-02", "img/a/photo.png" and "img/b/photo.png"), yet they are never synonyms: the
similarity step (ingest/similar.py) neither embeds nor links an entity ``is_value`` names.
"""

from __future__ import annotations

import re

from knotwork.ingest.parse import ATTACHMENT
from knotwork.text.dates import whole_date
from knotwork.text.vocab import MONTHS

_BOOLEANS = frozenset({"true", "false", "yes", "no"})
_CURRENCY = r"(?:[$€£¥₹₽₩¢]|USD|EUR|GBP|CHF|JPY|CNY)"
# Digits with group or decimal separators: 12, 1,234.5, 1.234,5, 1'000, 1 000, .5
_DIGITS = r"(?:\d+(?:[.,'\u2019\u00a0\u202f ]\d+)*|[.,]\d+)"
_AMOUNT = (
    rf"[+\-\u2212±~≈]?\s?(?:{_CURRENCY}\s?)?{_DIGITS}"
    rf"(?:\s?(?:%|‰|{_CURRENCY}|k|Mio|Mrd|bn))?"  # not M: "3M" is a name
)
_VALUE = re.compile(
    "|".join(
        (
            rf"{_AMOUNT}(?:\s?(?:[-\u2013/]|to)\s?{_AMOUNT})?",  # an amount, a range, a fraction
            r"[vV]?\d+(?:\.\d+)+(?:[-+][0-9A-Za-z.]+)?",  # a version: 1.0.0, v2.1, 1.0.0-rc1
            r"\d{4}(?:-\d{2})?",  # a year, a month: 1990, 2024-01
            r"\d{1,4}[./-]\d{1,2}[./-]\d{1,4}",  # a date in digits: 04/05/1990, 4.5.90
            # An ISO moment and a time of day: 2024-01-01T10:00:00Z, 10:30
            r"(?:\d{4}-\d{2}-\d{2}[T ])?\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?",
        )
    )
)
_MONTH_YEAR = re.compile(r"([^\W\d_]+)\.?,?\s+(\d{4})")  # May 1990, maggio 2024
_ADDRESS = re.compile(
    r"(?:[A-Za-z][A-Za-z0-9+.-]*://|www\.|mailto:)\S+"  # a URL
    r"|[^@\s]+@[^@\s]+\.[^@\s]+"  # an e-mail address
)


def is_value(name: str) -> bool:
    """Whether an entity's ``name`` is a value rather than a name: a date (ISO, month-name,
    in digits, a year or a month alone), a number (a decimal, a version, a percentage, an
    amount of money, a range), a boolean, a URL or e-mail address, or a file name with an
    attachment's extension. "Windows 11", "Area 51", "Node.js" and "C++" stay names."""
    text = name.strip()
    if not text:
        return False
    if text.lower() in _BOOLEANS or _VALUE.fullmatch(text) or _ADDRESS.fullmatch(text):
        return True
    if whole_date(text) is not None:
        return True
    if (m := _MONTH_YEAR.fullmatch(text)) and m.group(1).lower() in MONTHS:
        return True
    return bool(ATTACHMENT.search(text))
