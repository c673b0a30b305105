"""A refusal: the fixed sentence the prompt asks for when the context does not hold the answer,
and how a reply is recognised as one however the model words it."""

from __future__ import annotations

import re

INSUFFICIENT = "Your notes do not contain enough to answer this."

# The fixed sentence's core as models write it, in English ("don't", "enough information")
# and, though the prompt asks for English, as they translate it for a question in another of
# the vault languages. Each core says the notes do not hold *enough*: "the notes do not say
# when" is an answer.
_REFUSALS = (
    ("notes", "do", "not", "contain", "enough"),
    ("note", "non", "contengono", "abbastanza"),
    ("note", "non", "contengono", "informazioni", "sufficienti"),
    ("notizen", "enthalten", "nicht", "genug"),
    ("notizen", "enthalten", "nicht", "genügend"),
    ("notes", "ne", "contiennent", "pas", "assez"),
    ("notas", "no", "contienen", "suficiente"),
    ("notas", "no", "contienen", "información", "suficiente"),
    ("notas", "não", "contêm", "informação", "suficiente"),
    ("notas", "não", "contêm", "o", "suficiente"),
)
# Words a refusal may open with before its core: "Your notes …", "Le tue note …".
_OPENERS = frozenset(
    [
        "your",
        "the",
        "le",
        "tue",
        "deine",
        "ihre",
        "die",
        "vos",
        "tes",
        "les",
        "tus",
        "sus",
        "las",
        "as",
        "tuas",
        "suas",
        "os",
    ]
)
_AFTER_CORE = 8  # words after the core that still make the reply the sentence alone
# "…not enough detail, but Alice joined Acme in 2020": what follows such a word is an answer.
_CONTRAST = frozenset(
    {"but", "however", "though", "although", "ma", "però", "tuttavia", "aber", "jedoch",
     "cependant", "pero", "embargo", "porém", "contudo"}
)  # fmt: skip


def _words(text: str) -> list[str]:
    text = text.casefold().replace("\u2019", "'").replace("n't", " not")
    return re.findall(r"\w+", text)


def says_insufficient(text: str, cited: bool = False) -> bool:
    """The reply is the fixed sentence for a context that does not hold the answer, however
    worded: it opens with a refusal's core and says little after it. A reply that answers first
    and then says what is missing ("Alice works with Bob. Your notes do not contain enough to
    say since when") is an answer."""
    words = _words(text)
    start = 0
    while start < len(words) and words[start] in _OPENERS:
        start += 1
    for core in _REFUSALS:
        if tuple(words[start : start + len(core)]) == core:
            after = words[start + len(core) :]
            # "…, but Alice joined Acme [S1]": an answer after a contrast, if it cites.
            return len(after) <= _AFTER_CORE and not (cited and _CONTRAST.intersection(after))
    return False
