"""What retrieval hands to the answer step and the API: ranked chunks, facts and hop paths."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from datetime import date
from typing import Literal

from knotwork.graph.queries.reads import CitedFact
from knotwork.text.keys import nfc
from knotwork.vault.files import CONTROL, DRIVE

Mode = Literal["normal", "fast", "retrieve"]
Trust = Literal["all", "structural"]
RETRIEVERS = ("vector", "fulltext", "names", "graph", "synonym", "temporal")


@dataclass(frozen=True)
class Filters:
    """Narrow the evidence: notes under a folder, with all these tags, dated in a range.

    The vector and full-text searches keep only chunks whose note passes, asking their index
    for more candidates until they have enough (up to ``search.MAX_CANDIDATES``), so a filter
    matching a few notes of a large vault still finds them; the other retrievers' chunks are
    filtered after fusion (``search.placed``, cypher/filter_chunks.cypher).

    ``trust="structural"`` keeps only facts written by the parser (links, frontmatter, aliases,
    tags, mentions), never model-extracted ones, for the graph walks and the facts returned.
    """

    folder: str | None = None  # vault-relative prefix, e.g. "projects/"
    tags: tuple[str, ...] = ()  # without '#', matched case-insensitively
    date_from: date | None = None
    date_to: date | None = None
    trust: Trust = "all"

    def __post_init__(self) -> None:
        """Refuse what would filter wrongly without a word: a library caller's ``tags="x"``
        matched no note (its letters were the tags), a date given as text failed deep inside."""
        if self.folder is not None and not isinstance(self.folder, str):
            raise TypeError(f"Filters.folder is a vault-relative path, not {self.folder!r}")
        if isinstance(self.tags, str) or not all(isinstance(t, str) for t in self.tags):
            raise TypeError(
                f"Filters.tags is a tuple of tag names, e.g. ('meeting',): {self.tags!r}"
            )
        for name in ("date_from", "date_to"):
            if (value := getattr(self, name)) is not None and not isinstance(value, date):
                raise TypeError(f"Filters.{name} is a datetime.date, not {value!r}")
        if self.trust not in ("all", "structural"):
            raise ValueError(f"Filters.trust is 'all' or 'structural', not {self.trust!r}")

    def params(self) -> dict[str, object]:
        """Query parameters of the filtering Cypher (cypher/filter_chunks.cypher) and the walks'."""
        return {
            "folder": folder_prefix(self.folder),
            "tags": [nfc(t).lower().lstrip("#") for t in self.tags],  # stored composed
            "date_from": self.date_from.isoformat() if self.date_from else None,
            "date_to": self.date_to.isoformat() if self.date_to else None,
            "extractors": None if self.trust == "all" else list(STRUCTURAL),
        }


STRUCTURAL = ("wikilink", "frontmatter", "alias", "tag", "mention")


def folder_prefix(folder: str | None) -> str | None:
    """A folder as the prefix of the note paths under it, ending in ``/`` so ``a`` never
    matches ``ab/`` or ``a.md``; None for the whole vault. Composed (NFC): the queries compare
    it with the path composed, so ``Café/`` typed either way finds the folder either way."""
    posix = nfc((folder or "").strip().replace("\\", "/"))
    parts = [p for p in posix.split("/") if p not in ("", ".")]
    return "/".join(parts) + "/" if parts else None


def vault_folder(value: str | None) -> str | None:
    """A folder filter as given by a user (REST, MCP, CLI): its ``folder_prefix``, None for
    the whole vault (empty, ``.``); ValueError for one that is absolute, climbs out with
    ``..`` or holds control characters."""
    if value is None or not value.strip():
        return None
    if CONTROL.search(value):
        raise ValueError("folder must not hold control characters")
    posix = value.strip().replace("\\", "/")
    if posix.startswith("/") or DRIVE.match(posix):  # "Q: questions" is a name, as for notes
        raise ValueError(f"folder {value!r} is absolute; give it relative to the vault")
    if ".." in posix.split("/"):
        inside = posixpath.normpath(posix)
        if inside == ".." or inside.startswith("../"):
            raise ValueError(f"folder {value!r} climbs out of the vault with '..'")
        raise ValueError(f"folder {value!r} holds '..'; give it without, as {inside!r}")
    return folder_prefix(posix)


def bare_tag(value: str) -> str:
    """A tag filter as given by a user (REST, MCP, CLI), without its ``#`` and spaces;
    ValueError("a tag is empty") for one of ``#`` or spaces alone, which names no tag: a
    search for it would find nothing and seem to say no note is tagged."""
    tag = value.strip().lstrip("#").strip()
    if not tag:
        raise ValueError("a tag is empty")
    return tag


@dataclass
class Hit:
    id: str  # chunk id
    path: str
    title: str
    heading: str
    line_start: int
    line_end: int
    text: str
    score: float  # the final rank score (PPR when on, else fused RRF)
    retrievers: dict[str, float] = field(default_factory=dict)  # retriever → its own score
    # The note's aliases (frontmatter): they name it as its title does (relevance.py).
    aliases: tuple[str, ...] = ()

    @property
    def citation(self) -> str:
        """How a person reads where it comes from: ``path#heading:first-last``."""
        heading = f"#{self.heading}" if self.heading else ""
        return f"{self.path}{heading}:{self.line_start}-{self.line_end}"


@dataclass(frozen=True)
class FactRow:
    """One asserted fact near the evidence, with its provenance."""

    subject: str
    predicate: str
    object: str
    source: str  # the note that asserts it
    extractor: str
    confidence: float
    line: int | None
    chunk_id: str | None

    @classmethod
    def from_row(cls, row: CitedFact) -> FactRow:
        """From a query row with these column names (facts_of_chunks)."""
        return cls(
            subject=str(row["subject"]),
            predicate=str(row["predicate"]),
            object=str(row["object"]),
            source=str(row["source"]),
            extractor=str(row["extractor"]),
            confidence=float(row["confidence"] if row["confidence"] is not None else 1.0),
            line=row["line"],
            chunk_id=row["chunk_id"],
        )


@dataclass(frozen=True)
class HopPath:
    """How the graph walk reached a chunk: ``nodes[i] -relations[i]-> nodes[i+1]``.

    Nodes are written ``note:<path>`` or ``entity:<key>``; the last node's chunk is ``chunk_id``.
    """

    nodes: tuple[str, ...]
    relations: tuple[str, ...]
    chunk_id: str


@dataclass
class Evidence:
    hits: list[Hit]
    timings_ms: dict[str, float]
    warnings: list[str] = field(default_factory=list)
    facts: list[FactRow] = field(default_factory=list)
    paths: list[HopPath] = field(default_factory=list)
    keywords: list[str] = field(default_factory=list)  # what the model proposed (normal mode)
    # How well the best evidence matches the question, 0..1 (see retrieve.relevance); below
    # KNOTWORK_MIN_RELEVANCE the answer is "insufficient_context" without a model call.
    relevance: float = 0.0
    # The question's embedding failed (the embedder down): ``relevance`` then rests on words
    # alone and cannot tell a paraphrase from an unanswerable question.
    dense_down: bool = False

    def facts_of(self, hit: Hit) -> list[int]:
        """Indexes into ``facts`` of those the hit's chunk states: by chunk, or for a fact
        without one, by its source note and a line inside the hit."""
        return [
            i
            for i, f in enumerate(self.facts)
            if f.chunk_id == hit.id
            or (
                f.chunk_id is None
                and f.source == hit.path
                and f.line is not None
                and hit.line_start <= f.line <= hit.line_end
            )
        ]

    def paths_of(self, hit: Hit) -> list[int]:
        """Indexes into ``paths`` of the graph paths that reached the hit's chunk."""
        return [i for i, p in enumerate(self.paths) if p.chunk_id == hit.id]
