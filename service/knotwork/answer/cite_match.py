"""How an answer marks the chunks it cites (``[path#heading]``, with the lines when two cited
chunks share that label), which retrieved hit a citation written as a label names (the old form
the model may still write), and whether a bracketed text is written like a citation at all (a
bare ``[1]`` included). Paths and headings are compared whole, as a reader sees them: either
Unicode form, any case, spaces collapsed; never parsed at a ``#`` or a bracket inside them.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from typing import Protocol

from knotwork.retrieve import Hit
from knotwork.text.anchors import heading_anchor
from knotwork.text.keys import entity_key


def label(path: str, heading: str) -> str:
    """How the answer names a chunk: ``[path#heading]``, or ``[path]`` without a heading."""
    return f"[{path}#{heading}]" if heading else f"[{path}]"


def cite_label(hit: Hit) -> str:
    return label(hit.path, hit.heading)


class Located(Protocol):
    """A cited chunk as an answer's ``citations`` entry gives it (a ``Hit``, a ``Cited``)."""

    @property
    def path(self) -> str: ...
    @property
    def heading(self) -> str: ...
    @property
    def line_start(self) -> int: ...
    @property
    def line_end(self) -> int: ...


def marker(entry: Located, taken: Collection[str]) -> str:
    """How the answer marks a cited chunk, given the markers of the chunks cited before it: its
    label, or, when one of them already is that label (two chunks of one section), the label
    with its lines, ``[path#heading:49-51]``; when that too is taken (another chunk's heading is
    literally ``heading:49-51``), the lined form numbered, ``[path#heading:49-51 (2)]``, the
    first number free. So a marker names one chunk."""
    plain = label(entry.path, entry.heading)
    if plain not in taken:
        return plain
    lined = f"{plain[:-1]}:{entry.line_start}-{entry.line_end}"
    found, number = f"{lined}]", 2
    while found in taken:
        found, number = f"{lined} ({number})]", number + 1
    return found


def markers(entries: Iterable[Located]) -> list[str]:
    """The markers of an answer's ``citations`` (in their order, that of first citation)."""
    found: list[str] = []
    for entry in entries:
        found.append(marker(entry, found))
    return found


# Compared as a reader sees them (entity_key): either Unicode form (a path from macOS is
# decomposed, the model may write it composed), any case, spaces collapsed.
def _norm_path(path: str) -> str:
    return entity_key(path).replace("\\", "/").lstrip("/").removeprefix("./")


def _norm_heading(heading: str) -> str:
    return entity_key(heading.lstrip("#").replace(">", " > "))


# A heading path as cited: as the chunk's anchor says it, or as written in the note ("Step 1:
# plan", an old form a model copies from its text), which names the chunk whose anchor is that
# heading as shown ("Step 1 plan": text.anchors). The anchor is not read again as markup: a
# shown "__init__ method" is no emphasis.
def _cited_headings(heading: str) -> set[str]:
    return {_norm_heading(heading), _norm_heading(heading_anchor(heading.lstrip("#")))}


def match_citation(citation: str, hits: Sequence[Hit]) -> Hit | None:
    """The best-ranked hit an old-form citation names: the hit's path (``.md`` optional), then
    nothing (the note's best hit) or ``#`` and its heading path or last heading. The path is
    compared whole, so a ``#`` inside it is no separator."""
    want = _norm_path(citation)
    for hit in hits:
        path = _norm_path(hit.path)
        for prefix in dict.fromkeys((path, path.removesuffix(".md"))):
            if not want.startswith(prefix):
                continue
            rest = want[len(prefix) :]
            if rest == "" and prefix == path:
                return hit
            if rest.startswith("#"):
                full = _norm_heading(hit.heading)
                if _cited_headings(rest[1:]) & {full, full.rsplit(" > ", 1)[-1]}:
                    return hit
    return None


def is_citation(inner: str) -> bool:
    """Written like a citation of a note: ``path.md``, or ``path#heading`` with both parts
    (``[C#]``, ``[#4521]`` are words)."""
    text = inner.strip()
    path, sep, heading = text.partition("#")
    return text.casefold().endswith(".md") or bool(sep and path.strip() and heading.strip())


# A bare number in brackets, as a model cites when it numbers sources its own way ("Acme [1].",
# "[2, 3]"): never a number the prompt gave (S1, S2…).
BARE = re.compile(r"\[\s*\d+(?:\s*,\s*\d+)*\s*\]")
_AFTER_CLAIM = " \t.,;:!?)\"'\u201d"  # what a cited bare number is written after
_SENTENCE_END = ".,;:!?)[\n"  # and before: the end of a clause, or another citation


def cites_bare(text: str, i: int, end: int) -> bool:
    """Whether the bare number ``text[i:end]`` is used as a citation: after a claim and before
    its clause's end or another citation ("Acme [1].", "Acme.[2] Bob"). An index ("array[1]"),
    a list's item ("[1] open" at a line's start) or words ("a list [1] and") are text; so is
    code, which the caller leaves out first (``answer.cite_code``)."""
    before = text[i - 1] if i else "\n"
    after = text[end:].lstrip(" \t")
    return before in _AFTER_CLAIM and (not after or after[0] in _SENTENCE_END or before in ".!?;,")
