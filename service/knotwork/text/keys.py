"""How names and passages are compared, by ingest and retrieval alike; pure.

Names and text are compared as sequences of case-folded words, so "marco  Rossi's" matches
"Marco Rossi" and "Node.js" matches "node-js". Han, kana and Hangul are written without spaces
between words, so each of their characters is a word of its own and a name is found inside a
run of them ("北京" in "我在北京大学"), as a search in the editor finds it. Thai, Lao, Khmer and
Myanmar run their words together too: each letter with its marks (vowel signs, tone marks) is
a word of its own there ("เชียงใหม่" in "ฉันไปเชียงใหม่"). Text inside links, inline code, code
fences and URLs is never a mention (text/names_found.py).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from itertools import pairwise

import regex

from knotwork.text.connectives import CONNECTIVES
from knotwork.text.scripts import (
    KHMER_BLOCKS,
    LAO_BLOCK,
    MYANMAR_BLOCKS,
    THAI_BLOCK,
    char_class,
)
from knotwork.text.stopwords import STOPWORDS

MAX_WORDS = 6  # names longer than this are never matched (a spaceless word counts less)
MIN_CHARS = 3  # shorter names ("AI", "Q3") would match everywhere
MIN_WEIGHT = 0.75  # nor names lighter than this: one Thai letter or two name nothing
MAX_NAME_CHARS = 200  # longer names are never matched either
# By script extensions, so that marks the scripts share count too (the long vowel mark "ー",
# half-width sound marks, "々").
_SPACELESS = r"\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}"
# Scripts without spaces whose letters carry marks: a word there is a letter with its marks.
# A letter says less than a Han character, so it weighs a quarter (names of up to 24 letters).
# Letters by script, marks by script extensions (marks shared with other scripts count too).
_LETTER = r"[[\p{sc=Thai}\p{sc=Lao}\p{sc=Khmer}\p{sc=Myanmar}]&&[\p{L}\p{N}]]"
_MARK = r"[[\p{scx=Thai}\p{scx=Lao}\p{scx=Khmer}\p{scx=Myanmar}]&&\p{M}]"
_CLUSTER = rf"{_LETTER}{_MARK}*"
_ONE = rf"[[{_SPACELESS}]&&[\p{{L}}\p{{N}}\p{{M}}]]"
# A word: one spaceless character or letter with its marks, or a run of word characters with
# their combining marks (``\w`` alone cuts Devanagari at its vowel signs and Hebrew at its
# points).
_WORD = regex.compile(
    rf"{_ONE}|{_CLUSTER}|[[\p{{L}}\p{{N}}_\p{{M}}]--[{_SPACELESS}]--{_LETTER}]+", regex.V1
)
_ONE_SPACELESS = regex.compile(rf"{_ONE}|{_CLUSTER}", regex.V1)
_ONE_CLUSTER = regex.compile(_CLUSTER, regex.V1)
_LONGEST_CLUSTER = 8  # a letter with more marks than this is no word a name is made of
# The blocks the four scripts' letters are in (Thai, Lao; Myanmar and its extensions; Khmer).
_CLUSTER_BLOCKS = re.compile(char_class(THAI_BLOCK, LAO_BLOCK, *MYANMAR_BLOCKS, *KHMER_BLOCKS))
# Between two spaceless characters that a space or punctuation keeps apart in the text (Korean
# puts spaces between words; "東、京都" does not name "東京"): no name runs across it.
BREAK = "|"
# Below U+0300 (Latin, IPA) there is no mark and no spaceless script: ``\w`` alone, faster.
_BEYOND_LATIN = re.compile(r"[^\x00-\u02ff]")
_LATIN_WORD = re.compile(r"\w+")
_PARENTHETICAL = re.compile(r"\([^()]*\)")
# A parenthesis opened by "o", "or", "aka"…: the rest is the note's other name.
_CONNECTIVE = re.compile(
    r"^\s*(?:" + "|".join(map(re.escape, CONNECTIVES)) + r")(?:\s*[:,]\s*|\s+)", re.IGNORECASE
)


def nfc(name: str) -> str:
    """``name`` composed (NFC): how a title, alias, heading or entity name is stored, so the
    full-text index and substring searches find it by the composed words a question is
    searched by, whatever form the file (a macOS file name: decomposed) holds it in."""
    return name if name.isascii() else unicodedata.normalize("NFC", name)


def folded(name: str) -> str:
    """``name`` case-folded and composed: how a name search compares ("GRÖSSE" and "Grösse"
    find "Größe", which lower case alone does not: Cypher has no case folding, so notes keep
    their names folded so, ingest/rows.py ``note_props``)."""
    return name.lower() if name.isascii() else nfc(nfc(name).casefold())


def link_key(target: str) -> str:
    """How a link target is matched: case-insensitive, no ``.md``, POSIX, no leading ``./``.
    A note's path keyed so (its ``lpath``) is what its links match."""
    key = unicodedata.normalize("NFC", target).strip().replace("\\", "/").lower()
    key = re.sub(r"^(\./|/)+", "", key)
    key = re.sub(r"/{2,}", "/", key)
    return key[:-3] if key.endswith(".md") else key


def entity_key(name: str) -> str:
    """Entities are matched by their case-folded, space-collapsed name."""
    return " ".join(unicodedata.normalize("NFC", name).casefold().split())


def words(text: str) -> list[str]:
    """``text``'s case-folded words (NFC), each spaceless character one word, and BREAK
    between two of those apart in the text."""
    folded = unicodedata.normalize("NFC", text).casefold()
    if _BEYOND_LATIN.search(folded) is None:  # no mark, no spaceless script: ``\w`` is the rule
        return _LATIN_WORD.findall(folded)
    found: list[str] = []
    end, after_spaceless = -1, False
    for match in _WORD.finditer(folded):
        word = match.group()
        one = spaceless(word)
        if one and after_spaceless and match.start() != end:
            found.append(BREAK)
        found.append(word)
        end, after_spaceless = match.end(), one
    return found


def spaceless(word: str) -> bool:
    """Whether ``word`` is one character of a script written without spaces (Han, kana,
    Hangul), or one letter with its marks of another (Thai, Lao, Khmer, Myanmar)."""
    if word.isascii():  # most words: no regex
        return False
    if len(word) == 1:
        return _ONE_SPACELESS.fullmatch(word) is not None
    # A letter with marks: only in the four scripts' blocks ("москва", "straße" never are).
    if len(word) > _LONGEST_CLUSTER or _CLUSTER_BLOCKS.match(word) is None:
        return False
    return _ONE_CLUSTER.fullmatch(word) is not None


def spaceless_pairs(items: list[str]) -> list[tuple[str, str]]:
    """Neighbouring spaceless words of ``words``' output (none across a BREAK): what a
    question in Han, kana, Hangul, Thai and the like is compared by, one alone saying little."""
    return [(a, b) for a, b in pairwise(items) if spaceless(a) and spaceless(b)]


def _weight(word: str) -> float:
    if word == BREAK:  # a space inside a name ("สมชาย ใจดี") adds no word
        return 0.0
    if not spaceless(word):
        return 1.0
    return 0.25 if _ONE_CLUSTER.fullmatch(word) else 0.5


def run_spans(
    items: list[str], first: Callable[[str], bool] | None = None
) -> list[tuple[int, int]]:
    """Where every run of ``items`` of at most MAX_WORDS words is (``items[i:j]``; a spaceless
    character counts half: names of up to twelve of them; a Thai letter a quarter), across a
    BREAK but never ending at one; with ``first``, only runs whose first word it accepts.
    (Two loops: ingest runs this on every line, mostly without a spaceless character.)"""
    spans: list[tuple[int, int]] = []
    if not any(map(spaceless, items)):
        for i, item in enumerate(items):
            if first is None or first(item):
                end = min(i + MAX_WORDS, len(items))
                spans += [(i, j) for j in range(i + 1, end + 1)]
        return spans
    weights = [_weight(item) for item in items]
    for i, item in enumerate(items):
        if item == BREAK or (first is not None and not first(item)):
            continue
        total = 0.0
        for j in range(i, len(items)):
            total += weights[j]
            if total > MAX_WORDS:
                break
            # A run goes across a space ("สมชาย ใจดี", a Thai given name and surname) but
            # never ends at one; "東、京都" gives "東 | 京", which no name "東京" is.
            if items[j] != BREAK:
                spans.append((i, j + 1))
    return spans


def _runs(items: list[str], first: Callable[[str], bool] | None = None) -> list[str]:
    """The runs of ``run_spans``, joined by spaces."""
    return [" ".join(items[i:j]) for i, j in run_spans(items, first)]


def mention_key(text: str) -> str:
    """A name or passage as case-folded words joined by single spaces."""
    return " ".join(words(text))


def name_key(name: str) -> str | None:
    """The key a name is matched by, or None when it is too short or too long to match, or
    made of stop words only: a note named "Tra" ("between") would be mentioned by every note."""
    key = mention_key(name)
    if len(key) < MIN_CHARS or len(key) > MAX_NAME_CHARS:
        return None
    if not MIN_WEIGHT <= sum(_weight(word) for word in key.split()) <= MAX_WORDS:
        return None
    if all(word in STOPWORDS for word in key.split()):
        return None
    return key


def loose_key(name: str) -> str | None:
    """The key a name is matched by loosely: its content words (no stop words), without its
    parenthetical parts, so "multiplexer (MUX)" is named by "multiplexer" and "proprietà e
    tipi di relazioni" by "le proprietà e i tipi di relazioni". None when that leaves fewer
    than two words, unless the name is one word besides its parentheses: "Il teorema" must not
    be named by every "teorema"."""
    all_words = words(_PARENTHETICAL.sub(" ", name))
    content = [word for word in all_words if word not in STOPWORDS]
    key = " ".join(content)
    if len(key) < MIN_CHARS or len(key) > MAX_NAME_CHARS:
        return None
    if not MIN_WEIGHT <= sum(_weight(word) for word in content) <= MAX_WORDS:
        return None
    return key if len(content) >= 2 or len(all_words) == 1 else None


def loose_grams(text: str) -> set[str]:
    """Every run of 1..MAX_WORDS content words of ``text`` (stop words skipped): the keys a
    question names notes by loosely (``loose_key``)."""
    return set(_runs([w for w in words(text) if w not in STOPWORDS]))


def content_words(key: str) -> str:
    """A mention key without its stop words: how a loose key and an exact one compare."""
    return " ".join(word for word in key.split() if word not in STOPWORDS)


def _abbreviates(short: str, long: str) -> bool:
    """Whether ``short`` is written as a code (a capital past its first letter, or letters and
    digits mixed) that abbreviates ``long`` (Schwartz and Hearst, 2003): its letters in order
    in ``long``, its first at a word's start ("LLM": Large Language Model; "K8s": Kubernetes)."""
    digits = any(c.isdigit() for c in short)
    if not (any(c.isupper() for c in short[1:]) or digits):
        return False
    letters = [c for c in short.casefold() if c.isalpha()]
    text = long.casefold()
    at = len(text) - 1
    for k in range(len(letters) - 1, -1, -1):
        while at >= 0 and (
            text[at] != letters[k] or (k == 0 and at > 0 and text[at - 1].isalnum())
        ):
            at -= 1
        if at < 0:
            return False
        at -= 1
    return bool(letters)


def paren_key(*names: str) -> str | None:
    """The key of the first parenthesis of ``names`` (a note's title, then its file stem) that
    is the note's other name, matched as an alias is; None when none is.

    A parenthesis is the note's other name when, a leading connective ("o", "or", "aka",
    "ovvero", "oder", "ou", "o sea": text/connectives.py) dropped, it holds a letter and makes
    a name key (``name_key``: 3+ characters, at most MAX_WORDS words, not only stop words),
    and either began with a connective ("master-slave latch (o flip-flop SR master-slave)")
    or is one word written as an abbreviation or code that abbreviates the rest of the name
    ("Kubernetes (K8s)"). Anything else is a disambiguator: a number ("(2019)"), plain words
    ("Roma (città)"), something else's abbreviation ("Springfield (USA)")."""
    for name in names:
        rest = _PARENTHETICAL.sub(" ", name)
        for paren in _PARENTHETICAL.findall(name):
            inner = paren[1:-1]
            bare = _CONNECTIVE.sub("", inner, count=1)
            if not any(c.isalpha() for c in bare):
                continue
            words = re.findall(r"[^\W_]+", bare)
            if bare == inner and not (len(words) == 1 and _abbreviates(words[0], rest)):
                continue
            if key := name_key(bare):
                return key
    return None


def note_name_keys(stem: str, title: str, aliases: list[str]) -> list[str]:
    """Every key that names a note, sorted: its file stem's, title's and aliases', and its
    parenthesis's when that is its other name (``paren_key``)."""
    keys = {name_key(n) for n in [stem, title, *aliases]} | {paren_key(title, stem)}
    return sorted(k for k in keys if k)
