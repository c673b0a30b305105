"""The note transactions: everything about one note changes in one Neo4j transaction.

Each function here runs named queries inside a single managed write transaction, which the
driver may retry as a whole; no model or file I/O happens inside. A note's facts are found by
their ``source`` property, so rewriting or deleting a note never touches another note's facts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from neo4j import AsyncManagedTransaction

from knotwork import cypher, mentions
from knotwork.facts import note_keys
from knotwork.graph import GraphStore


@dataclass
class NoteWrite:
    """Everything the writer needs for one note, computed before the transaction."""

    vault: str
    path: str
    props: dict[str, Any]
    chunks: list[dict[str, Any]]
    link_facts: list[dict[str, Any]]
    entity_facts: list[dict[str, Any]]
    chunk_entities: list[dict[str, Any]]
    asserted: list[str]  # canonical strings of every fact, as note_facts.cypher renders them
    old_hash: str | None
    is_new: bool
    renamed_from: str | None = None
    # Word runs of the chunks to match against other notes' names; None turns mentions off.
    mention_grams: list[dict[str, Any]] | None = None


@dataclass
class WriteResult:
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    mentions: int = 0  # MENTIONS facts the note asserts


async def _q(tx: AsyncManagedTransaction, name: str, **params: Any) -> list[dict[str, Any]]:
    result = await tx.run(cypher.load(name), params)
    return [record.data() async for record in result]


def _key_rows(keys: list[str]) -> list[dict[str, str]]:
    return [{"key": k, "stem": k.rsplit("/", 1)[-1]} for k in keys if k]


async def _remove_note(tx: AsyncManagedTransaction, vault: str, path: str) -> list[str]:
    """Delete a note's facts, chunks and node; re-point other notes' links to it elsewhere."""
    touched: list[str] = []
    rows = await _q(tx, "facts_delete", vault=vault, path=path)
    touched += rows[0]["touched"] if rows else []
    incoming = await _q(tx, "note_incoming_keys", vault=vault, path=path)
    if incoming and incoming[0]["keys"]:
        rows = await _q(
            tx,
            "links_reresolve",
            vault=vault,
            keys=_key_rows(incoming[0]["keys"]),
            exclude=incoming[0]["id"],
        )
        touched += rows[0]["touched"] if rows else []
    await _q(tx, "note_delete", vault=vault, path=path)
    return touched


async def _facts_of(tx: AsyncManagedTransaction, vault: str, path: str) -> list[str]:
    return [row["fact"] for row in await _q(tx, "note_facts", vault=vault, path=path)]


async def _revision(
    tx: AsyncManagedTransaction,
    vault: str,
    path: str,
    kind: str,
    old_hash: str | None,
    new_hash: str | None,
    before: list[str],
    after: list[str],
    renamed_from: str | None = None,
) -> WriteResult:
    added = sorted(set(after) - set(before))
    removed = sorted(set(before) - set(after))
    await _q(
        tx,
        "revision_append",
        vault=vault,
        path=path,
        kind=kind,
        old_hash=old_hash,
        new_hash=new_hash,
        added=added,
        removed=removed,
        asserted=sorted(after),
        renamed_from=renamed_from,
    )
    return WriteResult(added, removed)


async def _names(tx: AsyncManagedTransaction, vault: str, path: str) -> list[str]:
    rows = await _q(tx, "note_names", vault=vault, path=path)
    return list(rows[0]["keys"]) if rows else []


async def _reverse_mentions(
    tx: AsyncManagedTransaction, vault: str, keys: list[str], exclude: str | None
) -> None:
    """Rewrite other notes' mentions of these names; each note that changed gets a revision."""
    changes = await mentions.rewrite_mentions_of(tx, vault, keys, exclude)
    for path, (removed, added) in sorted(changes.items()):
        after = await _facts_of(tx, vault, path)
        before = sorted((set(after) - set(added)) | set(removed))
        await _revision(tx, vault, path, "mentions", None, None, before, after)


async def write_note(store: GraphStore, w: NoteWrite) -> WriteResult:
    """Upsert (or rename into) one note: node, chunks, facts, resolution, revision."""

    async def work(tx: AsyncManagedTransaction) -> WriteResult:
        before = await _facts_of(tx, w.vault, w.renamed_from or w.path)
        old_names = await _names(tx, w.vault, w.renamed_from or w.path)
        await _q(tx, "note_upsert", vault=w.vault, path=w.path, props=w.props)
        rows = await _q(tx, "facts_delete", vault=w.vault, path=w.path)
        touched: list[str] = rows[0]["touched"] if rows else []
        await _q(tx, "chunks_write", vault=w.vault, path=w.path, chunks=w.chunks)
        if w.renamed_from:
            touched += await _remove_note(tx, w.vault, w.renamed_from)
        await _q(tx, "chunks_prune", vault=w.vault, path=w.path, ids=[c["id"] for c in w.chunks])
        if w.link_facts:
            await _q(tx, "facts_write_links", vault=w.vault, path=w.path, facts=w.link_facts)
        if w.entity_facts:
            await _q(tx, "facts_write_entities", vault=w.vault, path=w.path, facts=w.entity_facts)
        if w.chunk_entities:
            await _q(tx, "chunk_entities_write", vault=w.vault, rows=w.chunk_entities)
        if w.is_new:
            rows = await _q(
                tx,
                "links_reresolve",
                vault=w.vault,
                keys=_key_rows(note_keys(w.path)),
                exclude=None,
            )
            touched += rows[0]["touched"] if rows else []
        asserted = list(w.asserted)
        mentioned: list[str] = []
        if w.mention_grams is not None:
            mentioned = await mentions.write_mentions(tx, w.vault, w.path, w.mention_grams)
            asserted += mentioned
            names = w.props["mkeys"]
            if w.is_new or w.renamed_from or names != old_names:
                keys = sorted(set(names) | set(old_names))
                await _reverse_mentions(tx, w.vault, keys, w.path)
        if touched:
            await _q(tx, "orphans_delete", ids=sorted(set(touched)))
        result = await _revision(
            tx,
            w.vault,
            w.path,
            "rename" if w.renamed_from else "upsert",
            w.old_hash,
            w.props["content_hash"],
            before,
            asserted,
            w.renamed_from,
        )
        result.mentions = len(mentioned)
        return result

    return await store.write_transaction(work)


async def delete_note(
    store: GraphStore, vault: str, path: str, old_hash: str | None, with_mentions: bool = True
) -> WriteResult:
    """Delete one note and exactly its facts; links to it from other notes stay, unresolved."""

    async def work(tx: AsyncManagedTransaction) -> WriteResult:
        before = await _facts_of(tx, vault, path)
        names = await _names(tx, vault, path)
        touched = await _remove_note(tx, vault, path)
        if with_mentions and names:
            await _reverse_mentions(tx, vault, names, path)
        if touched:
            await _q(tx, "orphans_delete", ids=sorted(set(touched)))
        return await _revision(tx, vault, path, "delete", old_hash, None, before, [])

    return await store.write_transaction(work)


async def write_extraction(
    store: GraphStore,
    vault: str,
    chunk: dict[str, Any],
    entity_facts: list[dict[str, Any]],
    chunk_entities: list[dict[str, Any]],
) -> bool:
    """Record one chunk's extraction and its facts; False when the chunk changed meanwhile."""

    async def work(tx: AsyncManagedTransaction) -> bool:
        rows = await _q(
            tx,
            "chunk_extraction_write",
            id=chunk["id"],
            hash=chunk["hash"],
            extraction=chunk["extraction"],
            model=chunk["extraction_model"],
            state=chunk["extraction_state"],
            error=chunk["extraction_error"],
        )
        if not rows:
            return False
        path = rows[0]["note_path"]
        before = await _facts_of(tx, vault, path)
        deleted = await _q(tx, "chunk_facts_delete", id=chunk["id"])
        if entity_facts:
            await _q(tx, "facts_write_entities", vault=vault, path=path, facts=entity_facts)
        if chunk_entities:
            await _q(tx, "chunk_entities_write", vault=vault, rows=chunk_entities)
        touched = deleted[0]["touched"] if deleted else []
        if touched:
            await _q(tx, "orphans_delete", ids=sorted(set(touched)))
        after = await _facts_of(tx, vault, path)
        if before != after:
            await _revision(tx, vault, path, "extract", None, None, before, after)
        return True

    return await store.write_transaction(work)
