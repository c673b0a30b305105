"""Entity names that are values (ingest/values.py): never embedded nor linked as synonyms."""

from __future__ import annotations

import pytest

from knotwork.ingest.values import is_value
from knotwork.text.dates import whole_date

VALUES = [
    # Dates: ISO, month-name in the six languages, in digits, a year or a month alone
    "1990-05-04",
    "2024-01-02",
    "4 May 1990",
    "May 4, 1990",
    "4. Mai 1990",
    "4 maggio 1990",
    "4 de mayo de 1990",
    "1er janvier 2024",
    "maggio 2024",
    "1990",
    "2024-01",
    "04/05/1990",
    "2024-01-01T10:00:00Z",
    "10:30",
    # Numbers: decimals, versions, percentages, money, ranges
    "42",
    "3.14",
    "1,234.56",
    "1.234,56",
    "-7",
    "1.0.0",
    "v2.1",
    "1.0.0-rc1",
    "15%",
    "12,5 %",
    "$100",
    "€ 1.200",
    "100 EUR",
    "USD 3.5",
    "10k",
    "10-20",
    "1/2",
    # Booleans
    "true",
    "False",
    "yes",
    "NO",
    # Addresses
    "https://example.org/a",
    "http://example.org/b?x=1",
    "www.example.org",
    "mailto:ada@example.org",
    "ada@example.org",
    # Files with an attachment's extension
    "img/a/photo.png",
    "decoder.svg",
    "diagramma mealy.png",
    "Report 2024.pdf",
    "Board.canvas",
]

NAMES = [
    "Windows 11",
    "Python 3",
    "Acme 2000 Inc",
    "Area 51",
    "C++",
    "Node.js",
    "Café Müller",
    "3M",
    "V8",
    "Mealy",
    "Moore",
    "Acme Corporation",
    "Giuseppe Verdi",
    "Via XX Settembre",
    "Straße des 17. Juni",
    "Müller-Lüdenscheidt GmbH",
    "Jürgen Habermas",
    "Maggio Musicale Fiorentino",
    "Mai",
    "Meeting of 4 May 1990",
    "Apollo 11",
    "Yes (band)",
    "Notizen",
    "",
]


@pytest.mark.parametrize("name", VALUES)
def test_values_are_values(name: str) -> None:
    assert is_value(name), name


@pytest.mark.parametrize("name", NAMES)
def test_names_stay_names(name: str) -> None:
    assert not is_value(name), name


def test_a_whole_date_is_the_text_and_nothing_else() -> None:
    assert whole_date(" 4 May 1990 ") == "1990-05-04"
    assert whole_date("2024-01-02") == "2024-01-02"
    assert whole_date("Meeting of 4 May 1990") is None
    assert whole_date("2024-02-30") is None  # no such day
    assert whole_date("4 Mealy 1990") is None  # no such month
