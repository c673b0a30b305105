"""Where a chunk or a question writes names out, by ingest (mentions) and retrieval; pure.

Names are looked for in a chunk's word runs (text/keys.py: words, runs, keys) outside links,
inline code, code fences, URLs and e-mail addresses.

Han, kana and Thai are written without spaces, so every run of their characters is offered
as a name (text/keys.py), and names found there may overlap: "東京都庁" holds "東京" and, in the
tail of "東京都", "京都", which the text does not name. There the leftmost-longest name wins
and consumes its characters (maximal munch, as Aho-Corasick's leftmost-longest search finds):
a name overlapping one kept is no name there. Names that do not overlap all count, and words
of spaced scripts are never consumed: "Marco" and "Marco Rossi" are both found, as before.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from knotwork.text import markdown
from knotwork.text.keys import MAX_NAME_CHARS, MIN_CHARS, run_spans, spaceless, words

# Never a mention: links (a Markdown link's destination may hold balanced parentheses), URLs
# (any scheme's letter case, "www." hosts) and e-mail addresses. Code spans are blanked first.
_MASKED = re.compile(
    markdown.LINK
    + r"|(?<![\w+.-])(?i:[a-z][a-z0-9+.-]*://|www\.)\S+|(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
    r"|\x00+"  # a code span blanked (text.markdown.mask_code_spans): words on either side are apart
)


def chunk_segments(
    text: str, line_map: list[int] | tuple[int, ...], fence: str = ""
) -> Iterator[tuple[int, str]]:
    """A chunk's text outside links and code, piece by piece, each with its file line.
    ``fence``: the code fence open where the chunk starts (``Chunk.fence``)."""
    for offset, (line, code) in enumerate(markdown.fences(text.split("\n"), fence)):
        if not code:
            number = line_map[offset] if offset < len(line_map) else line_map[-1]
            for segment in _MASKED.split(markdown.mask_code_spans(line)):
                yield number, segment


def chunk_grams(
    text: str,
    line_map: list[int] | tuple[int, ...],
    starts: Callable[[str], bool] | None = None,
    fence: str = "",
) -> dict[str, int]:
    """Every run of 1..MAX_WORDS words in a chunk, outside links and code, with the file line
    of its first occurrence; with ``starts``, only runs whose first word it accepts: the keys
    a question may name notes by, before overlapping names are settled (``question_names``)."""
    grams: dict[str, int] = {}
    for number, segment in chunk_segments(text, line_map, fence):
        items = words(segment)
        for i, j in run_spans(items, starts):
            gram = " ".join(items[i:j])
            if MIN_CHARS <= len(gram) <= MAX_NAME_CHARS:
                grams.setdefault(gram, number)
    return grams


def leftmost_longest(items: list[str], spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The ``spans`` (name matches, ``items[i:j]``) that are kept: leftmost first, then the
    longest, each dropped when it shares a spaceless word with one kept before it."""
    taken: set[int] = set()
    kept: list[tuple[int, int]] = []
    for i, j in sorted(set(spans), key=lambda span: (span[0], -span[1])):
        own = [k for k in range(i, j) if spaceless(items[k])]
        if any(k in taken for k in own):
            continue
        taken.update(own)
        kept.append((i, j))
    return sorted(kept)


def names_found(
    text: str,
    line_map: list[int] | tuple[int, ...],
    named: Callable[[str], bool],
    starts: Callable[[str], bool] | None = None,
    fence: str = "",
) -> dict[str, int]:
    """The word runs of a chunk (``chunk_grams``) that ``named`` accepts as names
    and no overlapping name consumes, each with the file line where it is first found so."""
    found: dict[str, int] = {}
    asked: dict[str, bool] = {}  # each run asked of ``named`` once per chunk
    for number, segment in chunk_segments(text, line_map, fence):
        items = words(segment)
        spans: list[tuple[int, int]] = []
        for i, j in run_spans(items, starts):
            gram = " ".join(items[i:j])
            if gram not in asked:
                asked[gram] = MIN_CHARS <= len(gram) <= MAX_NAME_CHARS and named(gram)
            if asked[gram]:
                spans.append((i, j))
        for i, j in leftmost_longest(items, spans) if len(spans) > 1 else spans:
            found.setdefault(" ".join(items[i:j]), number)
    return found


def question_names(question: str, names: set[str]) -> set[str]:
    """Which of ``names`` (mention keys a lookup found among the question's word runs) the
    question writes out where no overlapping name consumes them."""
    return set(names_found(question, (1,), names.__contains__))
