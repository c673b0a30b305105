"""Note vectors (Note.embedding, the mean of a note's chunk vectors) follow their chunks through
every write — an edit, a chunk pruned, a note emptied, a rename, a retry after the embedding
model was down, a re-embedding — and dense retrieval reads them (search_vector_notes.cypher)."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

import pytest

from knotwork.core import Core, open_core
from knotwork.graph import schema
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from knotwork.retrieve import search
from knotwork.settings import Settings
from tests.fakes.ollama import FakeOllama
from tests.integration.conftest import ad_hoc, put


def _unit(vector: list[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in vector))
    return [x / norm for x in vector]


async def stale_note_vectors(core: Core, vault: str) -> list[str]:
    """Paths of the vault's notes whose vector is not the mean of their chunks' vectors (in
    direction), or that have one with no chunk vector to average, or lack one though their
    chunks have vectors."""
    rows = await ad_hoc(
        core,
        "MATCH (n:Note {vault: $vault}) "
        "OPTIONAL MATCH (n)-[:HAS_CHUNK]->(c:Chunk) WHERE c.embedding IS NOT NULL "
        "RETURN n.path AS path, n.embedding AS note, collect(c.embedding) AS chunks",
        {"vault": vault},
    )
    stale = []
    for row in rows:
        chunks: list[list[float]] = row["chunks"]
        note: list[float] | None = row["note"]
        if not chunks or note is None:
            if note is not None or chunks:
                stale.append(row["path"])
            continue
        mean = _unit([sum(column) for column in zip(*chunks, strict=True)])
        cosine = sum(a * b for a, b in zip(_unit(note), mean, strict=True))
        if cosine < 0.9999:
            stale.append(row["path"])
    return stale


async def note_vector(core: Core, path: str, vault: str = "t") -> Any:
    rows = await ad_hoc(
        core,
        "MATCH (n:Note {vault: $vault, path: $path}) RETURN n.embedding AS v",
        {"vault": vault, "path": path},
    )
    return rows[0]["v"] if rows else "no note"


async def test_a_note_vector_follows_its_chunks_through_edits_renames_and_deletes(
    core: Core, vault: Path
) -> None:
    core = dataclasses.replace(core, settings=core.settings.model_copy(update={"chunk_size": 200}))
    paragraphs = [
        f"Paragraph {i} is about topic {i}, with words to fill it. " * 2 for i in range(4)
    ]
    put(vault, "Long.md", "\n\n".join(paragraphs) + "\n")
    put(vault, "Short.md", "A short note about cats.\n")
    ingestor = Ingestor(core, root=vault, vault="t", extract_enabled=False)
    await sync_vault(ingestor)
    assert await stale_note_vectors(core, "t") == []
    first = await note_vector(core, "Long.md")
    assert first is not None and len(first) == core.settings.embed_dimension

    paragraphs[2] = "Paragraph two was rewritten entirely, with new words. " * 2
    put(vault, "Long.md", "\n\n".join(paragraphs) + "\n")
    await sync_vault(ingestor)
    assert await stale_note_vectors(core, "t") == []
    edited = await note_vector(core, "Long.md")
    assert edited != first

    # Only chunks pruned, none embedded: the vector follows all the same.
    put(vault, "Long.md", "\n\n".join(paragraphs[:2]) + "\n")
    await sync_vault(ingestor)
    assert await stale_note_vectors(core, "t") == []
    assert await note_vector(core, "Long.md") != edited

    put(vault, "Short.md", "")  # no chunk left: no note vector either
    await sync_vault(ingestor)
    assert await note_vector(core, "Short.md") is None
    assert await stale_note_vectors(core, "t") == []

    (vault / "Long.md").rename(vault / "Renamed.md")
    await sync_vault(ingestor)
    assert await note_vector(core, "Long.md") == "no note"
    assert await note_vector(core, "Renamed.md") is not None
    (vault / "Renamed.md").unlink()
    await sync_vault(ingestor)
    assert await note_vector(core, "Renamed.md") == "no note"
    assert await stale_note_vectors(core, "t") == []


async def test_a_note_gets_its_vector_when_its_chunks_are_embedded_on_retry(
    core: Core, vault: Path, fake_ollama: FakeOllama
) -> None:
    put(vault, "Ann.md", "Ann works with [[Ben]].\n")
    ingestor = Ingestor(core, root=vault, vault="t", extract_enabled=False)
    fake_ollama.down = True
    await sync_vault(ingestor)
    assert await note_vector(core, "Ann.md") is None
    fake_ollama.down = False
    embedded, _ = await ingestor.retry_pending()
    assert embedded == 1
    assert await note_vector(core, "Ann.md") is not None
    assert await stale_note_vectors(core, "t") == []


async def test_a_graph_written_before_note_vectors_gets_them_when_the_schema_is_applied(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    put(vault, "A.md", "Alpha text.\n")
    put(vault, "B.md", "Beta text.\n")
    await sync_vault(ingestor)
    await ad_hoc(core, "MATCH (n:Note) REMOVE n.embedding", write=True)
    assert await note_vector(core, "A.md", ingestor.vault) is None
    await core.ensure_ready()
    assert await stale_note_vectors(core, ingestor.vault) == []
    assert await note_vector(core, "A.md", ingestor.vault) is not None


async def test_reembedding_gives_notes_vectors_of_the_new_size(
    core: Core, vault: Path, settings: Settings, fake_ollama: FakeOllama
) -> None:
    put(vault, "A.md", "# One\n\nAlpha text.\n\n# Two\n\nMore alpha text.\n")
    await sync_vault(Ingestor(core, root=vault, vault="t", extract_enabled=False))
    fake_ollama.models["all-minilm:latest"] = 384
    other = settings.model_copy(
        update={"embed_model": "all-minilm", "embed_dimension": 384, "embed_batch_size": 1}
    )
    async with open_core(other) as second:
        await schema.reembed(second.store, other, second.embedder.aget_text_embedding_batch)
        await second.ensure_ready()
        assert len(await note_vector(second, "A.md")) == 384
        assert await stale_note_vectors(second, "t") == []
        states = {s.name: s for s in await second.store.index_states()}
        assert states["note_embedding"].dimension == 384


async def test_dense_search_gives_each_chunk_its_notes_score_when_the_note_is_near(
    core: Core, vault: Path
) -> None:
    put(vault, "Cats.md", "# Food\n\ncats eat fish\n\n# Sleep\n\ncats sleep all day long\n")
    put(vault, "Dogs.md", "dogs bark at the postman\n")
    await sync_vault(Ingestor(core, root=vault, vault="t", extract_enabled=False))
    qvec = await core.embedder.aget_query_embedding("cats eat fish")
    found, floor = await search.vector_notes(core.store, "t", qvec, 10, 1)
    by_path = {
        r["id"]: r["path"]
        for r in await ad_hoc(
            core, "MATCH (c:Chunk {vault: 't'}) RETURN c.id AS id, c.note_path AS path"
        )
    }
    assert sorted(c for c, _, _ in found) == sorted(by_path)  # every chunk, best own first
    assert [own for _, own, _ in found] == sorted((own for _, own, _ in found), reverse=True)
    # Only the nearest note (one asked) has a score; it is the lowest asked, the floor.
    notes = {by_path[c]: note for c, _, note in found}
    assert notes["Dogs.md"] is None and notes["Cats.md"] == floor is not None
    # Another vault's chunks and notes are not this vault's.
    assert await search.vector_notes(core.store, "other", qvec, 10, 1) == ([], None)


pytestmark = pytest.mark.integration
