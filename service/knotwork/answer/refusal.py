"""A refusal: the fixed sentence the prompt asks for when the context does not hold the answer,
and how a reply is recognised as one however the model words it."""

from __future__ import annotations

import re

INSUFFICIENT = "Your notes do not contain enough to answer this."

# The fixed sentence's core as models write it, in English ("don't", "enough information")
# and, though the prompt asks for English, as they translate it for a question in another of
# the vault languages.
_REFUSALS = (
    ("notes", "do", "not", "contain", "enough"),
    ("note", "non", "contengono"),
    ("notizen", "enthalten", "nicht"),
    ("notes", "ne", "contiennent", "pas"),
    ("notas", "no", "contienen"),
    ("notas", "não", "contêm"),
)
_ALONE_WORDS = 6  # words besides the core that still make a reply the sentence alone


def _words(text: str) -> list[str]:
    text = text.casefold().replace("\u2019", "'").replace("n't", " not")
    return re.findall(r"\w+", text)


def says_insufficient(text: str, alone: bool = False) -> bool:
    """The model gave the fixed sentence for a context that does not hold the answer: anywhere
    in the text, or (``alone``) as the whole of it, give or take a few words."""
    words = _words(text)
    for core in _REFUSALS:
        n = len(core)
        if any(tuple(words[i : i + n]) == core for i in range(len(words) - n + 1)):
            return not alone or len(words) <= n + _ALONE_WORDS
    return False
