"""Bounds on what the MCP note tools return. An agent's context is the budget: a note of
thousands of links and tags would otherwise come back whole (megabytes) from every read and
write of it, so lists are cut to a fixed length with their totals beside them, and ``get_note``
pages its chunks and facts. A heading, a title, a name or a fact's value is cut at
``TEXT_CHARS`` as in ``ask`` and ``retrieve`` (``api.clipped``): a chunk's heading path as a
citation's heading is, so a citation's cut heading finds its chunk. The REST note bodies stay
whole: a program reading them has no context window to fill, and the README promises them
whole."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, TypeVar

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from knotwork.api.clipped import clipped, clipped_heading

FACT_KEYS = 50  # fact keys a write's outcome or a revision lists (added, removed)
NAMES = 50  # tags, aliases and dates a note's metadata or a search row lists
CHUNK_CHARS = 2000  # a chunk's text past this is cut (chunks are ~1,200 chars by default)
CHUNKS_PAGE, MAX_CHUNKS_PAGE = 20, 100
FACTS_PAGE, MAX_FACTS_PAGE = 50, 200
UNCITED_EVIDENCE = 8  # ranked chunks ``ask`` returns with an answer that cites none of them

_T = TypeVar("_T")

Offset = Annotated[int, Field(strict=True, ge=0, description="skip this many first, from 0")]
ChunkLimit = Annotated[
    int,
    Field(
        strict=True,
        ge=1,
        le=MAX_CHUNKS_PAGE,
        description=f"at most this many chunks, 1 to {MAX_CHUNKS_PAGE}",
    ),
]
FactLimit = Annotated[
    int,
    Field(
        strict=True,
        ge=1,
        le=MAX_FACTS_PAGE,
        description=f"at most this many facts, 1 to {MAX_FACTS_PAGE}",
    ),
]


def first(items: Sequence[_T] | None, limit: int) -> tuple[list[_T] | None, int | None]:
    """The first ``limit`` items and how many there are (None for None: no list at all)."""
    if items is None:
        return None, None
    return list(items[:limit]), len(items)


def fact_keys(row: dict[str, Any]) -> dict[str, Any]:
    """An ingest's outcome or a revision with at most ``FACT_KEYS`` facts added and removed,
    and their totals."""
    added, added_total = first(_clipped(row["added"]), FACT_KEYS)
    removed, removed_total = first(_clipped(row["removed"]), FACT_KEYS)
    return {
        **row,
        "added": added,
        "removed": removed,
        "added_total": added_total,
        "removed_total": removed_total,
    }


def _clipped(items: Sequence[Any] | None) -> list[Any] | None:
    """Each string of ``items`` cut at ``TEXT_CHARS`` (a fact key holds its value)."""
    if items is None:
        return None
    return [clipped(item) if isinstance(item, str) else item for item in items]


def names(row: dict[str, Any], keys: Sequence[str]) -> dict[str, Any]:
    """``row`` with each list under ``keys`` cut to ``NAMES`` and its total as ``KEY_total``,
    each name and the title cut at ``TEXT_CHARS``."""
    cut = dict(row)
    if isinstance(row.get("title"), str):
        cut["title"] = clipped(row["title"])
    for key in keys:
        cut[key], cut[f"{key}_total"] = first(_clipped(row.get(key)), NAMES)
    return cut


def _chunk(chunk: dict[str, Any]) -> dict[str, Any]:
    text: str = chunk["text"]
    heading = chunk.get("heading_path")
    if isinstance(heading, str):
        chunk = {**chunk, "heading_path": clipped_heading(heading)}  # as a citation's heading
    return {**chunk, "text": text[:CHUNK_CHARS], "text_chars": len(text)}


def _fact(fact: dict[str, Any]) -> dict[str, Any]:
    """A fact of ``get_note`` with its names and value cut (a frontmatter value of pages)."""
    return {
        key: clipped(value) if key in _FACT_TEXTS and isinstance(value, str) else value
        for key, value in fact.items()
    }


_FACT_TEXTS = frozenset({"subject", "predicate", "object", "wording", "anchor"})


def note_page(
    detail: dict[str, Any],
    chunk_offset: int,
    chunk_limit: int,
    fact_offset: int,
    fact_limit: int,
    chunk_id: str | None = None,
) -> dict[str, Any]:
    """A page of a note's chunks and facts, its metadata's lists cut, with every total; with
    ``chunk_id`` (a citation's), that chunk alone in place of the page of chunks."""
    chunks, facts = detail["chunks"], detail["facts"]
    page = chunks[chunk_offset : chunk_offset + chunk_limit]
    if chunk_id is not None:
        page = [c for c in chunks if c["id"] == chunk_id]
        if not page:
            raise ToolError(
                f"no chunk {chunk_id[:200]!r} in {detail['note']['path']!r}: the note changed "
                "since it was cited, or the id belongs to another note"
            )
    return {
        "note": names(detail["note"], ("aliases", "tags", "dates")),
        "chunks": [_chunk(c) for c in page],
        "chunks_total": len(chunks),
        "facts": [_fact(f) for f in facts[fact_offset : fact_offset + fact_limit]],
        "facts_total": len(facts),
    }
