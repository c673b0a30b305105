"""A model's extraction kept only where the chunk states it: an entity whose name the chunk's
text (its heading path or note title) does not name, and a triple with such an end, are dropped.

A model may answer names it was never given — made up, its own prompt or a note's injected
instructions echoed back, a page of near-identical names — and each would become an entity that
retrieval ranks the note by and similarity links to others. A name is grounded when its words
(case-folded, accents and punctuation folded: text/keys.py ``words``) occur in a row in the
chunk, or one of its significant words (not a stop word, two characters at least) does, alone
or inflected (a shared start of ``MIN_STEM`` characters that each word exceeds by at most
``MAX_ENDING``: "Berlins", "italiano" for "Italia"; a shorter word whole, then at most
``SHORT_ENDING`` more: "Kants", "Kölner"); in a script without spaces (Han, kana,
Hangul, Thai) two neighbouring characters of the name in the chunk do. A name must hold a
letter or digit and no control character. Text the note itself holds is data: an instruction
written in the note and echoed back as a name is the note's name for something, kept.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from itertools import pairwise

from knotwork.ingest.extract import Extraction, Triple
from knotwork.text.keys import BREAK, spaceless, words
from knotwork.text.stopwords import STOPWORDS

MIN_STEM = 5  # a shared start this long grounds an inflected word ("Berlins": "Berlin")
MAX_ENDING = 4  # past the shared start, each word's ending is at most this long
# A shorter word (three letters at least) is found whole at the start of one that ends at most
# this much longer: a genitive or a case ending ("Kants" for Kant, "Ulmer" for Ulm).
SHORT_ENDING = 2
# Never in a name: control characters (C0, C1, escape sequences), line and paragraph
# separators, and format characters but the joiners that Persian and Indic scripts spell with.
_BANNED = {"Cc", "Zl", "Zp", "Cf"}
_JOINERS = {"\u200c", "\u200d"}


@dataclass(frozen=True)
class Grounded:
    extraction: Extraction
    entities_dropped: int
    triples_dropped: int

    @property
    def dropped(self) -> int:
        return self.entities_dropped + self.triples_dropped


def _fold(word: str) -> str:
    """A word without its accents, where that leaves a word (not a letter of a script whose
    marks are its vowels)."""
    if word.isascii() or spaceless(word):
        return word
    bare = "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))
    return unicodedata.normalize("NFC", bare) or word


def _tokens(text: str) -> list[str]:
    return [_fold(w) for w in words(text) if w != BREAK]


def usable(name: str) -> bool:
    """Whether ``name`` holds a letter or digit and no control or format character."""
    return any(c.isalnum() for c in name) and not any(
        unicodedata.category(c) in _BANNED and c not in _JOINERS for c in name
    )


def _shared(a: str, b: str) -> int:
    end = 0
    while end < min(len(a), len(b)) and a[end] == b[end]:
        end += 1
    return end


class Source:
    """The text a chunk's extraction must be found in, folded once."""

    def __init__(self, *texts: str) -> None:
        self.tokens = [t for text in texts for t in [*_tokens(text), BREAK]]
        self.joined = f" {' '.join(self.tokens)} "
        self.vocabulary = {t for t in self.tokens if not spaceless(t)}
        self._stems = {t[:MIN_STEM] for t in self.vocabulary if len(t) >= MIN_STEM}

    def _inflected(self, word: str) -> bool:
        if len(word) < MIN_STEM:  # "Kants", "Kölner", "Roms", "Риме": a short name, its ending
            return len(word) >= 3 and any(
                o.startswith(word) and len(o) - len(word) <= SHORT_ENDING for o in self.vocabulary
            )
        if word[:MIN_STEM] not in self._stems:
            return False
        for other in self.vocabulary:
            common = _shared(word, other)
            if common >= MIN_STEM and max(len(word), len(other)) - common <= MAX_ENDING:
                return True
        return False

    def names(self, name: str) -> bool:
        """Whether the chunk names ``name`` (see the module's docstring)."""
        if not usable(name):
            return False
        tokens = _tokens(name)
        if not tokens:
            return False
        if f" {' '.join(tokens)} " in self.joined:
            return True
        run: list[str] = []
        for token in [*tokens, ""]:
            if token and spaceless(token):
                run.append(token)
                continue
            if any(f" {a} {b} " in self.joined for a, b in pairwise(run)):
                return True
            run = []
            if not token or token in STOPWORDS or len(token) < 2:
                continue
            if token in self.vocabulary or self._inflected(token):
                return True
        return False


def grounded(extraction: Extraction, *texts: str) -> Grounded:
    """``extraction`` less what ``texts`` (the chunk's heading path, text, note title) do not
    name: entities by their name, triples by both their ends."""
    source = Source(*texts)
    known: dict[str, bool] = {}

    def kept(name: str) -> bool:
        if name not in known:
            known[name] = source.names(name)
        return known[name]

    entities = [e for e in extraction.entities if kept(e.name)]
    triples: list[Triple] = [t for t in extraction.triples if kept(t.subject) and kept(t.object)]
    return Grounded(
        Extraction.model_construct(entities=entities, triples=triples),
        len(extraction.entities) - len(entities),
        len(extraction.triples) - len(triples),
    )
