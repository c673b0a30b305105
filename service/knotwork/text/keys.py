"""How names and passages are compared, by ingest and retrieval alike; pure.

Names and text are compared as sequences of case-folded words, so "marco  Rossi's" matches
"Marco Rossi" and "Node.js" matches "node-js". Text inside links, inline code, code fences and
URLs is never a mention.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

from knotwork.text import markdown
from knotwork.text.stopwords import STOPWORDS

MAX_WORDS = 6  # names longer than this are never matched
MIN_CHARS = 3  # shorter names ("AI", "Q3") would match everywhere
MAX_NAME_CHARS = 200  # longer names are never matched either
_WORD = re.compile(r"\w+")
_MASKED = re.compile(r"!?\[\[[^\]]*\]\]|!?\[[^\]]*\]\([^)]*\)|`[^`]*`|(?<!\w)[a-z][a-z+.-]*://\S+")


def entity_key(name: str) -> str:
    """Entities are matched by their case-folded, space-collapsed name."""
    return " ".join(unicodedata.normalize("NFC", name).casefold().split())


def mention_key(text: str) -> str:
    """A name or passage as case-folded words joined by single spaces."""
    return " ".join(_WORD.findall(unicodedata.normalize("NFC", text).casefold()))


def name_key(name: str) -> str | None:
    """The key a name is matched by, or None when it is too short or too long to match, or
    made of stop words only: a note named "Tra" ("between") would be mentioned by every note."""
    key = mention_key(name)
    if len(key) < MIN_CHARS or len(key) > MAX_NAME_CHARS or key.count(" ") >= MAX_WORDS:
        return None
    if all(word in STOPWORDS for word in key.split()):
        return None
    return key


def note_name_keys(stem: str, title: str, aliases: list[str]) -> list[str]:
    """Every key that names a note, sorted."""
    return sorted({k for k in (name_key(n) for n in [stem, title, *aliases]) if k})


def chunk_grams(
    text: str,
    line_map: list[int] | tuple[int, ...],
    starts: Callable[[str], bool] | None = None,
    fence: str = "",
) -> dict[str, int]:
    """Every run of 1..MAX_WORDS words in a chunk, outside links and code, with the file line
    of its first occurrence; with ``starts``, only runs whose first word it accepts. ``fence``:
    the code fence open where the chunk starts (``Chunk.fence``)."""
    grams: dict[str, int] = {}
    for offset, (line, code) in enumerate(markdown.fences(text.split("\n"), fence)):
        if code:
            continue
        number = line_map[offset] if offset < len(line_map) else line_map[-1]
        for segment in _MASKED.split(line):
            words = _WORD.findall(unicodedata.normalize("NFC", segment).casefold())
            for i, word in enumerate(words):
                if starts is not None and not starts(word):
                    continue
                for j in range(i + 1, min(i + MAX_WORDS, len(words)) + 1):
                    gram = " ".join(words[i:j])
                    if MIN_CHARS <= len(gram) <= MAX_NAME_CHARS:
                        grams.setdefault(gram, number)
    return grams
