"""A note's text → everything its write needs, computed outside any transaction; pure.

``draft`` parses and chunks a note and derives its structural facts; once the embeddings of
its new chunks are known, ``note_write`` builds the writer's rows, resolving unlinked mentions
against the vault's names in memory (see graph/names.py), so no step asks the database.
"""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from knotwork.graph.names import Names
from knotwork.graph.queries.writes import NotesStateRow
from knotwork.ingest import extract, mentions
from knotwork.ingest.batch import NoteWrite
from knotwork.ingest.chunk import chunk_note
from knotwork.ingest.facts import (
    MAX_FACT_KEY_CHARS,
    frontmatter_warnings,
    split_oversized,
    structural_facts,
)
from knotwork.ingest.parse import parse_note
from knotwork.ingest.rows import canonical, fact_rows, note_props
from knotwork.models import Chunk, Fact, ParsedNote, embed_text
from knotwork.text.keys import entity_key, nfc
from knotwork.text.language import Language
from knotwork.text.pairs import chunk_pairs


@dataclass
class Draft:
    """One note parsed and chunked, with what the graph held for it before."""

    path: str
    note: ParsedNote
    props: dict[str, Any]
    chunks: list[Chunk]
    facts: list[Fact]
    old_chunks: list[dict[str, Any]]  # the graph's chunks of this note (and of a renamed one)
    old_hash: str | None
    is_new: bool
    renamed_from: str | None
    warnings: list[str] = field(default_factory=list)
    vectors: dict[str, list[float]] = field(default_factory=dict)  # chunk id → new embedding
    # chunk id → when the model refused its text alone (ms since the epoch): stored stamped
    refused_at: dict[str, int] = field(default_factory=dict)
    extractors: Counter[str] = field(default_factory=Counter)  # facts asserted, by extractor

    def fresh(self) -> list[Chunk]:
        """Chunks whose embedded text (context + text) has no embedding in the graph yet."""
        embedded = {c.get("embed_hash") for c in self.old_chunks if c.get("has_embedding")}
        return [c for c in self.chunks if c.embed_hash not in embedded]

    @property
    def names(self) -> list[str]:
        return list(self.props["mkeys"])


def parse(path: str, text: str) -> ParsedNote:
    return parse_note(path, text)


def draft(
    vault: str,
    note: ParsedNote,
    mtime: float | None,
    chunk_size: int,
    state: NotesStateRow | None,
    old: NotesStateRow | None,
    renamed_from: str | None,
    language: Language = "en",
    language_setting: str = "auto/en",
) -> Draft:
    """Chunks and structural facts of a parsed note; ``state`` / ``old``: the graph's rows
    for this path and for the path it was renamed from (None: not in the graph);
    ``language``: the one its chunks are indexed in, decided under ``language_setting``
    (see language.setting_key)."""
    path = note.path
    chunks = chunk_note(note, vault, chunk_size)
    facts, dropped = split_oversized(structural_facts(note, chunks))
    warnings = [
        f"{path}:{f.line}: {f.relation} target longer than {MAX_FACT_KEY_CHARS} characters ignored"
        for f in dropped
    ]
    warnings[:0] = frontmatter_warnings(note)
    warnings[:0] = [f"{path}: {said}" for said in note.warnings]
    if note.frontmatter_error:
        warnings.insert(0, f"{path}: frontmatter ignored: {note.frontmatter_error}")
    old = old if renamed_from else state
    return Draft(
        path=path,
        note=note,
        props={
            **note_props(note, mtime),
            "language": language,
            "language_setting": language_setting,
        },
        chunks=chunks,
        facts=facts,
        old_chunks=[*(state["chunks"] if state else []), *(old["chunks"] if old else [])],
        old_hash=old["content_hash"] if old else None,
        is_new=state is None or state["content_hash"] is None,
        renamed_from=renamed_from,
        warnings=warnings,
    )


def embed_inputs(chunks: list[Chunk]) -> list[str]:
    return [embed_text(c.context, c.text) for c in chunks]


def _chunk_rows(d: Draft, model_tag: str, extract_enabled: bool) -> list[dict[str, Any]]:
    """Rows for chunks_write: reuse embeddings by embedded text and extractions by text."""
    by_embed = {c.get("embed_hash"): c for c in d.old_chunks if c.get("has_embedding")}
    by_hash = {c["hash"]: c for c in d.old_chunks}
    rows = []
    for c in d.chunks:
        prior = by_hash.get(c.hash)
        embedded = by_embed.get(c.embed_hash)
        reuse = prior if prior and prior.get("extraction_model") == model_tag else None
        state = reuse["extraction_state"] if reuse else "pending" if extract_enabled else "off"
        rows.append(
            {
                "id": c.id,
                "ord": c.ord,
                "heading_path": c.heading_path,
                "line_start": c.line_start,
                "line_end": c.line_end,
                "line_map": list(c.line_map),
                "fence": c.fence,
                "text": c.text,
                "mtext": mentions.chunk_mtext(c.text),
                "hash": c.hash,
                "context": c.context,
                # Lao, Khmer and Myanmar runs paired, for full text (None: no such run).
                "pairs": chunk_pairs(f"{c.context}\n{c.text}"),
                "embed_hash": c.embed_hash,
                "language": d.props["language"],
                "embedding": vector_text(d.vectors.get(c.id)),
                "embedding_refused_at": d.refused_at.get(c.id),
                "copy_from": embedded["id"] if embedded else None,
                "extraction": reuse["extraction"] if reuse and state == "done" else None,
                "extraction_model": reuse["extraction_model"] if reuse else None,
                "extraction_state": state,
                "extraction_error": reuse["extraction_error"] if reuse else None,
            }
        )
    return rows


def vector_text(vector: list[float] | None) -> str | None:
    """An embedding as chunks_write.cypher takes it: 9 significant digits keep float32 exact.
    One %-format of the whole vector, about 1.4x cheaper than formatting number by number."""
    if vector is None:
        return None
    return _vector_format(len(vector)) % tuple(vector)


@functools.cache
def _vector_format(dimension: int) -> str:
    return ",".join(["%.9g"] * dimension)


def entity_rows(chunk_id: str, parsed: extract.Extraction) -> list[dict[str, Any]]:
    """HAS_ENTITY rows for the entities a chunk's extraction names (names composed: keys.nfc)."""
    return [
        {"chunk_id": chunk_id, "key": entity_key(name), "name": nfc(name)}
        for name in extract.entity_names(parsed)
    ]


def note_write(
    d: Draft, model_tag: str, llm_model: str, extract_enabled: bool, names: Names | None
) -> NoteWrite:
    """The writer's rows for a drafted note; ``names`` None turns mentions off."""
    rows = _chunk_rows(d, model_tag, extract_enabled)
    facts = list(d.facts)
    chunk_entities: list[dict[str, Any]] = []
    for chunk, row in zip(d.chunks, rows, strict=True):
        if row["extraction"]:  # a kept extraction's facts are asserted again
            parsed = extract.Extraction.model_validate_json(row["extraction"])
            facts += extract.llm_facts(parsed, chunk.id, chunk.line_start, llm_model)
            chunk_entities += entity_rows(chunk.id, parsed)
    d.extractors = Counter(f.extractor for f in facts)
    links, entities = fact_rows(facts, d.path)
    mention_facts, said = (
        mentions.note_mentions(d.path, rows, names) if names is not None else ([], None)
    )
    return NoteWrite(
        path=d.path,
        props=d.props,
        chunks=rows,
        link_facts=links,
        entity_facts=entities,
        chunk_entities=chunk_entities,
        asserted=[canonical(f) for f in facts],
        mention_facts=mention_facts,
        old_hash=d.old_hash,
        is_new=d.is_new,
        renamed_from=d.renamed_from,
        warnings=[f"{d.path}: {said}"] if said else [],
    )
