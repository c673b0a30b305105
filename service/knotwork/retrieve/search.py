"""The seed retrievers, each one named Cypher query: vector, full-text (chunks and entity
names), notes the question names, and dates. Each returns chunk ids best first with its score."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from knotwork.graph import GraphStore
from knotwork.mentions import chunk_grams
from knotwork.retrieve.temporal import question_range

_WORD = re.compile(r"\w+", re.UNICODE)
MAX_NAMED = 10  # notes the question names, longest names first
NAMED_CHUNKS = 2  # chunks of each named note taken as evidence


def lucene_query(question: str) -> str:
    """The question's words, OR-ed and escaped, so no user text is read as Lucene syntax."""
    words = _WORD.findall(question)[:64]
    # Quoted, so words such as AND, OR, NOT or TO are terms, never operators.
    return " OR ".join(f'"{w}"' for w in words)


async def vector(
    store: GraphStore, vault: str, embedding: list[float], k: int
) -> list[tuple[str, float]]:
    """Nearest chunks; the score is the index's, (1 + cosine) / 2."""
    rows = await store.read("search_vector", vault=vault, embedding=embedding, k=k * 4)
    return [(r["id"], r["score"]) for r in rows[:k]]


async def fulltext(store: GraphStore, vault: str, question: str, k: int) -> list[tuple[str, float]]:
    query = lucene_query(question)
    if not query:
        return []
    rows = await store.read("search_fulltext", vault=vault, query=query, k=k)
    return [(r["id"], r["score"]) for r in rows]


@dataclass(frozen=True)
class NamedNote:
    key: str  # the name as matched
    path: str
    node: str  # element id
    chunk_ids: tuple[str, ...]


async def named_notes(store: GraphStore, vault: str, question: str) -> list[NamedNote]:
    """Notes whose file name, title or alias the question writes out, longest names first.

    A name inside a longer matched name ("Rossi" in "Marco Rossi") does not count on its own.
    """
    keys = sorted(chunk_grams(question, (1,)))
    if not keys:
        return []
    rows = await store.read("notes_named", vault=vault, keys=keys, chunks=NAMED_CHUNKS)
    out: list[NamedNote] = []
    taken: list[str] = []
    for row in rows:
        key = row["key"]
        if any(f" {key} " in f" {longer} " for longer in taken if longer != key):
            continue
        if any(n.path == row["path"] for n in out):
            continue
        taken.append(key)
        out.append(NamedNote(key, row["path"], row["note"], tuple(row["chunk_ids"])))
        if len(out) == MAX_NAMED:
            break
    return out


async def temporal(
    store: GraphStore, vault: str, question: str, k: int, today: date | None = None
) -> list[tuple[str, float]] | None:
    """Chunks of notes dated in the range the question names; None when it names no date."""
    span = question_range(question, today)
    if span is None:
        return None
    rows = await store.read(
        "search_temporal",
        vault=vault,
        date_from=span.start.isoformat(),
        date_to=span.end.isoformat(),
        middle=span.middle.isoformat(),
        k=k,
    )
    return [(r["id"], r["score"]) for r in rows]
