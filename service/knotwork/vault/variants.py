"""The warning for notes whose paths links cannot tell apart: they differ only in letter case,
or only in Unicode form ("Café" with its accent composed, and decomposed as macOS writes it),
which look alike and must be shown apart."""

from __future__ import annotations

import unicodedata


def variants_warning(group: list[str], winner: str) -> str:
    """What to say of ``group``, paths that differ only in case or form, all of whose links
    resolve to ``winner``."""
    how = (
        "only in Unicode form (an accent written as one character or as two)"
        if len({unicodedata.normalize("NFC", r) for r in group}) == 1
        else "only in letter case"
    )
    # Each named with its form when forms differ: two identical-looking names otherwise.
    shown = {r: with_form(r) for r in group} if len(set(map(form, group))) > 1 else {}
    named = " and ".join(shown.get(r, r) for r in group)
    return (
        f"{named} differ {how}, and Obsidian resolves links without either: every link to "
        f"them resolves to {shown.get(winner, winner)}; rename one of them"
    )


def form(name: str) -> str:
    """Which Unicode form ``name`` is written in (ASCII is composed)."""
    if unicodedata.is_normalized("NFC", name):
        return "composed, NFC"
    return "decomposed, NFD" if unicodedata.is_normalized("NFD", name) else "partly decomposed"


def with_form(name: str) -> str:
    """``name`` told apart from its look-alike: its form and, when not composed, each accent
    written apart as the letter and its code point (``café.md (decomposed, NFD: e + U+0301)``)."""
    written = form(name)
    apart = [
        f"{name[i - 1]} + U+{ord(char):04X}"
        for i, char in enumerate(name)
        if i and unicodedata.combining(char) and "NFC" not in written
    ][:3]
    return f"{name} ({written}{': ' if apart else ''}{', '.join(apart)})"
