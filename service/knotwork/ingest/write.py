"""The note transactions: a batch of notes changes in one Neo4j transaction.

One write path serves a single edit and a whole sync: a batch of one note or of hundreds runs
the same set-based queries (``UNWIND`` over notes, chunks and facts), a fixed number of round
trips per batch rather than per note. Each function runs named queries inside one managed
write transaction, which the driver may retry as a whole; no model or file I/O happens inside.
A note's facts are found by their ``source`` property, so rewriting or deleting a note never
touches another note's facts.
"""

from __future__ import annotations

from typing import Any

from neo4j import AsyncManagedTransaction

from knotwork.graph.names import Names
from knotwork.graph.queries.mentions import MENTIONS_WRITE
from knotwork.graph.queries.writes import (
    CHUNK_ENTITIES_WRITE,
    CHUNK_EXTRACTION_WRITE,
    CHUNK_FACTS_DELETE,
    CHUNKS_CHAIN,
    CHUNKS_PRUNE,
    CHUNKS_WRITE,
    FACTS_DELETE,
    FACTS_WRITE_ENTITIES,
    FACTS_WRITE_LINKS,
    LINKS_RERESOLVE,
    NOTE_EMBEDDING_SET,
    NOTES_DELETE,
    NOTES_UPSERT,
    ORPHANS_DELETE,
    REVISIONS_APPEND,
    SYNC_OWE,
)
from knotwork.graph.store import GraphStore, Work, run_query
from knotwork.ingest import mentions
from knotwork.ingest.batch import Batch, WriteResult
from knotwork.ingest.revisions import (
    Asserted,
    facts_of,
    lost_revisions,
    revision,
)
from knotwork.ingest.settle import Touched, key_rows
from knotwork.models import stored_fact_key


async def _delete_facts(
    tx: AsyncManagedTransaction,
    vault: str,
    paths: list[str],
    before: Asserted,
    touched: Touched,
    lost: Asserted | None = None,
) -> list[str]:
    """Delete the notes' facts, recording in ``before`` what each asserted (for its revision)
    and in ``touched`` the nodes they pointed at; with ``lost`` (the notes are going), other
    notes' mentions of them too, recorded there by the note that made them. Returns other
    notes' link keys to them (with ``lost``; else none)."""
    incoming = lost is not None
    rows = await run_query(tx, FACTS_DELETE, vault=vault, paths=paths, incoming=incoming)
    if not rows:
        return []
    for note in rows[0]["facts"]:  # the first sighting is what the note asserted before
        before.setdefault(note["path"], sorted({stored_fact_key(f) for f in note["facts"]}))
    if lost is not None:
        for gone in rows[0]["lost"]:
            lost.setdefault(gone["path"], []).append(stored_fact_key(gone["fact"]))
    touched.ids += rows[0]["touched"]
    touched.placeholders += rows[0]["placeholders"]
    return list(rows[0]["keys"])


async def _remove_notes(
    tx: AsyncManagedTransaction,
    vault: str,
    paths: list[str],
    targets: Names,
    before: Asserted,
    lost: Asserted,
    touched: Touched,
) -> None:
    """Delete notes' facts (recorded in ``before``), chunks and nodes, and other notes'
    mentions of them (recorded in ``lost``); re-point other notes' links to them elsewhere
    (``targets`` no longer holds the notes)."""
    if not paths:
        return
    keys = await _delete_facts(tx, vault, paths, before, touched, lost)
    if keys:
        rows = key_rows(keys, targets)
        await touched.relink(tx, LINKS_RERESOLVE, vault=vault, keys=rows)
    await run_query(tx, NOTES_DELETE, vault=vault, paths=paths)


Changes = dict[str, tuple[list[str], list[str]]]  # note -> mentions (removed, added)


async def _reverse_mentions(
    tx: AsyncManagedTransaction, b: Batch, found: list[str], lost: Asserted, changes: Changes
) -> list[dict[str, Any]]:
    """Rewrite other notes' mentions of the batch's changed names (``found``: the notes whose
    text holds one, ``mentions.text_candidates``); a revision for each note whose mentions
    changed, this way, by a rename's (``changes``) or by losing mentions of notes removed
    (``lost``). A mention lost to a rename and written again in the same transaction is no
    change."""
    keys = sorted(set(b.reverse_keys))
    # Keys only deleted notes bore, which no note's text holds where another note bears one
    # now: no mention to rewrite (Batch.deleted_keys), so no query to find none.
    if b.names is not None and keys and (found or not set(keys) <= set(b.deleted_keys)):
        changes |= await mentions.rewrite_mentions_of(tx, b.vault, keys, found, b.exclude, b.names)
    return await lost_revisions(tx, b.vault, lost, changes)


async def _remention(
    tx: AsyncManagedTransaction, b: Batch, lost: Asserted, changes: Changes
) -> None:
    """Write again, in the rename's transaction, the mentions other notes lost with a renamed
    note's old node, when this batch runs no reverse pass that would (a sync's earlier
    batches: its last one runs it). Between the two, the graph would lack them and those
    notes' histories would show each going and coming back."""
    if b.names is None or b.reverse_keys:
        return
    # Not the batch's own notes (their mentions are written after this), nor notes going (in
    # a sync, ``exclude`` holds those of its later batches): their revision lists the loss.
    going = {*b.exclude, *(w.path for w in b.writes), *(d.path for d in b.deletes)}
    if mentioners := sorted(set(lost) - going):
        changes |= await mentions.rewrite_mentions_of(tx, b.vault, [], mentioners, [], b.names)


async def _write_notes(
    tx: AsyncManagedTransaction,
    b: Batch,
    before: Asserted,
    lost: Asserted,
    touched: Touched,
    changes: Changes,
) -> None:
    """Nodes, chunks and facts of the batch's writes (the facts they replace or move recorded
    in ``before``, other notes' mentions of a renamed note's old path in ``lost``; the nodes
    whose links changed in ``touched``)."""
    v, ws = b.vault, b.writes
    await run_query(
        tx, NOTES_UPSERT, vault=v, notes=[{"path": w.path, "props": w.props} for w in ws]
    )
    if known := [w.path for w in ws if not w.is_new]:  # a new note (or placeholder) has none
        await _delete_facts(tx, v, known, before, touched)
    chunks = [{**c, "path": w.path} for w in ws for c in w.chunks]
    if chunks:
        await run_query(tx, CHUNKS_WRITE, vault=v, chunks=chunks)
    renamed = [w.renamed_from for w in ws if w.renamed_from]
    await _remove_notes(tx, v, renamed, b.targets, before, lost, touched)
    if renamed:
        await _remention(tx, b, lost, changes)
    if notes := [{"path": w.path, "ids": [c["id"] for c in w.chunks]} for w in ws if not w.is_new]:
        await run_query(tx, CHUNKS_PRUNE, vault=v, notes=notes)
    pairs = [
        {"a": this["id"], "b": after["id"]}
        for w in ws
        for this, after in zip(w.chunks, w.chunks[1:], strict=False)
    ]
    if pairs:
        await run_query(tx, CHUNKS_CHAIN, pairs=pairs)
    if links := [f for w in ws for f in w.link_facts]:
        links = [{**f, "target_path": b.targets.link_target(f["props"]["target"])} for f in links]
        await touched.relink(tx, FACTS_WRITE_LINKS, vault=v, facts=links)
    if entities := [f for w in ws for f in w.entity_facts]:
        await run_query(tx, FACTS_WRITE_ENTITIES, vault=v, facts=entities)
    if entity_rows := [r for w in ws for r in w.chunk_entities]:
        await run_query(tx, CHUNK_ENTITIES_WRITE, vault=v, rows=entity_rows)
    if facts := [f for w in ws for f in w.mention_facts]:
        await run_query(tx, MENTIONS_WRITE, vault=v, facts=facts)
    # Each note's vector is the mean of its chunks' (new, copied or pruned just now).
    await run_query(tx, NOTE_EMBEDDING_SET, vault=v, paths=[w.path for w in ws])


async def write_batch(store: GraphStore, b: Batch) -> dict[str, WriteResult]:
    """Apply a batch in one transaction: writes (and renames), deletes, the reverse mention
    pass, orphan clean-up and one revision per note changed. Results by note path."""
    return await store.write_transaction(batch_work(b))


def batch_work(b: Batch) -> Work[dict[str, WriteResult]]:
    """``write_batch``'s transaction work (ingest/rehearse.py runs it too, rolled back)."""

    async def work(tx: AsyncManagedTransaction) -> dict[str, WriteResult]:
        # First, before anything is written (mentions.text_candidates says why).
        found = await mentions.text_candidates(tx, b.vault, b.reverse_keys, b.names)
        # What each note changed, renamed or deleted asserted, as its facts are deleted: no
        # earlier write of the batch changes the key of a fact whose source is one of them
        # (links re-resolved to a renamed note move with every property the key reads).
        before: Asserted = {}
        lost: Asserted = {}  # other notes' mentions of notes removed, by the mentioning note
        touched = Touched()
        changes: Changes = {}  # other notes' mentions rewritten for a rename
        if b.writes:
            await _write_notes(tx, b, before, lost, touched, changes)
        deleted = [d.path for d in b.deletes]
        await _remove_notes(tx, b.vault, deleted, b.targets, before, lost, touched)
        for path in deleted:  # a mention a renamed note took from a deleted one: its delete's
            if path in lost:
                before[path] = sorted(set(before.get(path, [])) | set(lost.pop(path)))
        if b.link_keys:
            keys = key_rows(b.link_keys, b.targets)
            await touched.relink(tx, LINKS_RERESOLVE, vault=b.vault, keys=keys)
        revisions = await _reverse_mentions(tx, b, found, lost, changes)
        await touched.settle(tx)
        results: dict[str, WriteResult] = {}
        for w in b.writes:
            asserted = w.asserted + [mentions.row_canonical(f) for f in w.mention_facts]
            old = before.get(w.renamed_from or w.path, [])
            kind = "rename" if w.renamed_from else "upsert"
            new_hash = w.props["content_hash"]
            revisions.append(
                revision(w.path, kind, old, asserted, w.old_hash, new_hash, w.renamed_from)
            )
            results[w.path] = WriteResult(
                revisions[-1]["added"], revisions[-1]["removed"], len(w.mention_facts)
            )
        for d in b.deletes:
            revisions.append(revision(d.path, "delete", before.get(d.path, []), [], d.old_hash))
            results[d.path] = WriteResult([], revisions[-1]["removed"])
        if b.owed is not None:
            await run_query(tx, SYNC_OWE, vault=b.vault, owed=b.owed)
        if revisions or b.names_token:  # a token: names changed, other caches go stale
            appended = {"revisions": revisions, "token": b.names_token}
            await run_query(tx, REVISIONS_APPEND, vault=b.vault, write=appended)
        return results

    return work


async def write_extraction(
    store: GraphStore,
    vault: str,
    chunk: dict[str, Any],
    entity_facts: list[dict[str, Any]],
    chunk_entities: list[dict[str, Any]],
) -> bool:
    """Record one chunk's extraction and its facts; False when the chunk changed meanwhile.

    The facts are dated at the chunk's first line as the graph holds it now: an edit above the
    chunk while the model answered (the watcher extracts beside its writes) keeps its id (the
    same text at the same position) but moves it, and a fresh ingest dates them there."""

    async def work(tx: AsyncManagedTransaction) -> bool:
        rows = await run_query(
            tx,
            CHUNK_EXTRACTION_WRITE,
            id=chunk["id"],
            hash=chunk["hash"],
            extraction=chunk["extraction"],
            model=chunk["extraction_model"],
            state=chunk["extraction_state"],
            error=chunk["extraction_error"],
        )
        if not rows:
            return False
        path, line = rows[0]["note_path"], rows[0]["line_start"]
        before = (await facts_of(tx, vault, [path])).get(path, [])
        deleted = await run_query(tx, CHUNK_FACTS_DELETE, id=chunk["id"])
        if entity_facts:
            facts = [{**f, "props": {**f["props"], "line": line}} for f in entity_facts]
            await run_query(tx, FACTS_WRITE_ENTITIES, vault=vault, facts=facts)
        if chunk_entities:
            await run_query(tx, CHUNK_ENTITIES_WRITE, vault=vault, rows=chunk_entities)
        touched = deleted[0]["touched"] if deleted else []
        if touched:
            await run_query(tx, ORPHANS_DELETE, ids=sorted(set(touched)))
        after = (await facts_of(tx, vault, [path])).get(path, [])
        if before != after:
            appended = {"revisions": [revision(path, "extract", before, after)], "token": None}
            await run_query(tx, REVISIONS_APPEND, vault=vault, write=appended)
        return True

    return await store.write_transaction(work)
