"""A count said with its noun in agreement ("1 chunk", "2 chunks", "0 chunks"), one rule for
every message that counts."""

from __future__ import annotations


def plural(n: int, one: str, many: str | None = None) -> str:
    """``one`` as a count of ``n`` takes it: itself for 1, else ``many`` (by default ``one``
    and an s); ``many`` for a word that takes another form ("entity", "entities"; "is", "are")."""
    return one if n == 1 else many or one + "s"


def counted(n: int, noun: str, many: str | None = None) -> str:
    """``n`` and its noun in agreement: "1 chunk", "2 chunks"."""
    return f"{n} {plural(n, noun, many)}"
