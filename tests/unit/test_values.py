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
    # A day and month, a weekday before a date, quarters, fiscal years, ISO weeks
    "1 May",
    "May 1",
    "4 May",
    "1er mai",
    "4. Mai",
    "1° maggio",
    "4 de mayo",
    "29 February",
    "Monday, 4 May 2024",
    "Monday, May 4, 2024",
    "lunedì 4 maggio 2024",
    "Montag, 4. Mai 2024",
    "segunda-feira, 4 de maio de 2024",
    "mars 2020",  # French March, in lower case as French writes it
    "4 Mars 2020",  # a day first: a date however written
    "Q1 2024",
    "2024-Q1",
    "1Q24",
    "H2 2023",
    "FY2024",
    "FY 2023/24",
    "2024-W12",
    "W12 2024",
    "KW 12",
    # Times and ratios
    "3pm",
    "10 am",
    "10 a.m.",
    "3:30 PM",
    "15h30",
    "10 Uhr",
    "16:9",
    # Quantities in a unit
    "10 kg",
    "5 min",
    "5\u201310 min",  # an en dash
    "3 days",
    "1.5 GB",
    "1,5 Go",
    "100 ms",
    "20 °C",
    "3 giorni",
    "5 Tage",
    "3 semaines",
    "12 horas",
    "1 año",
    "100 CAD",
    # Numbers: decimals, versions, percentages, money, ranges
    "42",
    "747",  # a bare number: "model: 747" is told from "rating: 4" by no name
    "01067",  # a postcode, a phone number: a leading zero past four digits is a value
    "0123456789",
    "0800",
    "07",  # two digits: a day or a month
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
    # Placeholders
    "N/A",
    "TBD",
    "TBC",
    "n.d.",
    "k.A.",
    "—",
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
    # A word before a number: a product and its version, not a unit, month or weekday
    "Python 3.12",
    "Marco 2024",  # Portuguese "marco" unaccented is first the name
    "Mars 3",  # month first with no year: English full month names only
    "Mars 2020",  # capitalised, the rover (French writes its months in lower case)
    "MARS 2020",
    "007",  # a leading zero: a code, not a count
    "0042",
    "Gen 3",
    "Set 1",
    "Sun 2",
    "May 68",  # no such day
    "30 February",
    "Boeing 747",
    "Audi Q5",
    "5G",  # units keep their case
    "4K",
    "Catch-22",
    "Friday",
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
