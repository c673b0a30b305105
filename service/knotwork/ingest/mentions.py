"""Unlinked mentions: another note's name written as plain text → a ``MENTIONS`` fact.

A note is named by its file stem, its title and its aliases (what Obsidian's "unlinked
mentions" pane looks for), and by the other name its title's or file name's parenthesis gives
("K8s" of "Kubernetes (K8s)"; not a disambiguator such as "(città)": ``text.keys.paren_key``).
Names and text are compared as sequences of case-folded words, so "marco  Rossi's" mentions
"Marco Rossi" and "Node.js" mentions "node-js". Text inside links, inline code, code fences
and URLs is not searched.

A mention depends on two notes, so it is kept consistent from both ends inside the writing
transaction: the *forward* pass finds the names a written note mentions, matched in memory
against the vault's names (graph/names.py), so it costs no query; the *reverse* pass,
run when a note appears, goes, or changes its names, rewrites the mentions of those names in
every other note whose text holds them (found through the full-text index ``chunk_words`` on
``Chunk.mtext``, asked before the transaction writes: see ``text_candidates``). The fact's
``source`` is always the mentioning note, so deleting it removes exactly its mentions.
"""

from __future__ import annotations

from typing import Any

from neo4j import AsyncManagedTransaction

from knotwork.graph.names import Names
from knotwork.graph.queries.mentions import (
    MENTIONS_CANDIDATES,
    MENTIONS_DELETE,
    MENTIONS_TEXT_CANDIDATES,
    MENTIONS_WRITE,
)
from knotwork.graph.store import run_query
from knotwork.ingest.caps import MAX_NOTE_MENTIONS, mentions_said
from knotwork.models import fact_key, stored_fact_key
from knotwork.text.keys import mention_key
from knotwork.text.names_found import names_found

# A bound on a chunk's stored words. The chunk size keeps it out of reach: a character makes at
# most five bytes of them (a Han character beyond the BMP, four bytes, then a space).
MTEXT_MAX_BYTES = 48_000


def chunk_mtext(text: str) -> str:
    """The chunk's words, space-padded and split on spaces by the ``chunk_words`` index: a
    phrase query for ``key`` finds every chunk that could mention it (a superset of
    ``text.names_found.chunk_grams``: masked text is kept here)."""
    padded = f" {mention_key(text)} "
    if len(padded.encode("utf-8", "surrogatepass")) > MTEXT_MAX_BYTES:
        # Not reachable within the chunk size limit but for exotic text; a mention past the
        # cut is found only from the forward side.
        cut = padded.encode("utf-8", "surrogatepass")[:MTEXT_MAX_BYTES]
        padded = cut.decode("utf-8", "ignore").rsplit(" ", 1)[0] + " "
    return padded


def chunk_mentions(
    text: str,
    line_map: list[int] | tuple[int, ...],
    index: Names,
    mentioner: str,
    fence: str = "",
) -> dict[str, tuple[int, str]]:
    """The notes a chunk mentions: target path → (line, key) of the first name found.

    Only word runs starting with a word some name starts with are built; each is resolved in
    memory, and "first" is the smallest (line, key). Any note's name, the mentioner's own too,
    consumes the spaceless characters it is written with ("東京都庁" names 東京, not 京都:
    text/names_found.py).
    """
    seen = names_found(
        text, line_map, lambda gram: index.resolve(gram, "") is not None, index.starts, fence
    )
    found: dict[str, tuple[int, str]] = {}
    for gram, number in seen.items():
        target = index.resolve(gram, mentioner)
        if target is not None and (number, gram) < found.get(target, (number + 1, gram)):
            found[target] = (number, gram)
    return found


def canonical(key: str, line: int, chunk_id: str) -> str:
    """A mention's fact key (models.fact_key)."""
    return fact_key("MENTIONS", None, key, "mention", line, None, chunk_id)


def mention_rows(
    path: str, chunks: list[dict[str, Any]], index: Names
) -> tuple[list[dict[str, Any]], list[str]]:
    """One MENTIONS fact per (chunk, note named) for ``mentions_write``, and their canonical
    strings; at most ``MAX_NOTE_MENTIONS`` (see ``note_mentions``)."""
    rows = note_mentions(path, chunks, index)[0]
    return rows, [row_canonical(row) for row in rows]


def note_mentions(
    path: str, chunks: list[dict[str, Any]], index: Names
) -> tuple[list[dict[str, Any]], str | None]:
    """The MENTIONS rows of ``mention_rows`` and, past ``MAX_NOTE_MENTIONS``, the warning that
    says so: the first in the text are kept. ``chunks`` are maps with id, text, line_map and
    fence, in the note's order."""
    rows: list[dict[str, Any]] = []
    for chunk in chunks:
        found = chunk_mentions(
            chunk["text"], chunk["line_map"], index, path, chunk.get("fence") or ""
        )
        for target, (line, key) in sorted(found.items()):
            rows.append(
                {
                    "target_path": target,
                    "props": {
                        "source": path,
                        "chunk_id": chunk["id"],
                        "line": line,
                        "extractor": "mention",
                        "model": None,
                        "confidence": 1.0,
                        "predicate": None,
                        "target": key,
                        "subject": None,
                    },
                }
            )
    if len(rows) <= MAX_NOTE_MENTIONS:
        return rows, None
    # By line, a stable sort: chunks come in order, so a tie keeps the earlier chunk's.
    order = sorted(range(len(rows)), key=lambda i: rows[i]["props"]["line"])
    keep = set(order[:MAX_NOTE_MENTIONS])
    said = mentions_said(len(rows), rows[order[MAX_NOTE_MENTIONS]]["props"]["line"])
    return [row for i, row in enumerate(rows) if i in keep], said


def row_canonical(row: dict[str, Any]) -> str:
    """The canonical string of a ``mention_rows`` row."""
    return canonical(row["props"]["target"], row["props"]["line"], row["props"]["chunk_id"])


async def text_candidates(
    tx: AsyncManagedTransaction, vault: str, keys: list[str], index: Names | None
) -> list[str]:
    """The notes whose text holds one of ``keys`` that some note bears in ``index`` (a name
    no note bears any more is looked for nowhere: the mentions made by it went with its
    note's node), from the full-text index ``chunk_words``; none when mentions are off.

    Ask it before the transaction writes anything: within a transaction, Neo4j 5 leaves out
    of a full-text query's answer every committed node whose id is that of a relationship the
    transaction deleted (its index state keeps one set of changed ids for nodes and
    relationships alike), so a note whose chunk shares its id with a link moved or a fact
    rewritten earlier in the same batch would silently keep its old mentions.
    """
    if index is None:
        return []
    named = [k for k in sorted(set(keys)) if index.resolve(k, "") is not None]
    if not named:
        return []
    rows = await run_query(tx, MENTIONS_TEXT_CANDIDATES, vault=vault, named=named)
    return list(rows[0]["paths"]) if rows else []


async def rewrite_mentions_of(
    tx: AsyncManagedTransaction,
    vault: str,
    keys: list[str],
    found: list[str],
    exclude: list[str],
    index: Names,
) -> dict[str, tuple[list[str], list[str]]]:
    """The reverse pass: rewrite the mentions of every note not in ``exclude`` which mentions
    by one of ``keys`` or is in ``found`` (``text_candidates`` of the keys some note now
    bears, asked at the start of the transaction), resolving against ``index``.

    A note's mentions are rewritten whole, not only those of ``keys``: one fact per (chunk,
    note named) keeps the first name found, which may be another of that note's names.
    Returns, per note whose mentions changed, (removed, added) canonical facts.
    """
    if not keys and not found:
        return {}
    rows = await run_query(
        tx, MENTIONS_CANDIDATES, vault=vault, keys=keys, found=found, exclude=exclude
    )
    paths = [row["path"] for row in rows]
    removed = await run_query(tx, MENTIONS_DELETE, vault=vault, paths=paths) if paths else []
    before = {r["path"]: sorted(stored_fact_key(f) for f in r["facts"]) for r in removed}
    changes: dict[str, tuple[list[str], list[str]]] = {}
    facts: list[dict[str, Any]] = []
    for row in rows:
        written, strings = mention_rows(row["path"], row["chunks"], index)
        facts += written
        added, old = sorted(strings), before.pop(row["path"], [])
        if added != old:
            changes[row["path"]] = (sorted(set(old) - set(added)), sorted(set(added) - set(old)))
    if facts:
        await run_query(tx, MENTIONS_WRITE, vault=vault, facts=facts)
    return changes
