"""The words that open a parenthesis giving a note's other name ("master-slave latch (o
flip-flop SR master-slave)", "Kubernetes (aka K8s)"), per language: the name is what follows
them (``text/keys.py`` ``paren_key``). Plain data, no logic.
"""

from __future__ import annotations

ALTERNATE_CONNECTIVES: dict[str, list[str]] = {
    "en": ["or", "aka", "a.k.a.", "also known as", "also called", "alias"],
    "it": ["o", "ovvero", "ossia", "oppure", "detto", "detta", "anche detto", "anche detta",
           "alias"],
    "de": ["oder", "auch", "auch genannt", "bzw.", "alias"],
    "fr": ["ou", "dit", "dite", "aussi appelé", "aussi appelée", "alias"],
    "es": ["o", "o sea", "alias", "también llamado", "también llamada"],
    "pt": ["ou", "ou seja", "alias", "também chamado", "também chamada"],
}  # fmt: skip

# Longest first, so "o sea" is dropped whole rather than its "o".
CONNECTIVES: tuple[str, ...] = tuple(
    sorted({c for words in ALTERNATE_CONNECTIVES.values() for c in words}, key=lambda c: -len(c))
)
