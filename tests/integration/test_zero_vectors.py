"""All-zero vectors stored by versions before embeddings were checked (llm/vectors.py refuses
them now): retrieval scores them as unembedded instead of failing on them, `knotwork doctor`
counts them, opening the graph puts their chunks back to pending for a retry to embed, and
`knotwork reembed` embeds them again even with the model unchanged."""

from __future__ import annotations

import asyncio
import logging
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from knotwork.check.health import check_health
from knotwork.cli import app as cli
from knotwork.core import Core
from knotwork.graph import schema
from knotwork.graph import zero_vectors as zero_vectors_module
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.owed import owed
from knotwork.ingest.values import is_value
from knotwork.retrieve import retrieve
from tests.fakes.ollama import FakeOllama
from tests.integration.conftest import ad_hoc
from tests.integration.test_note_vectors import stale_note_vectors
from tests.integration.test_retrieve_graph import synced_notes

QUESTION = "Who does the boss of Alice work with?"
ZEROED = ["team/Alice.md", "team/Bob.md", "team/Carol.md"]
HOP = ("note:team/Alice.md", "note:team/Bob.md", "note:team/Carol.md")


@pytest.fixture
async def ingestor(core: Core, vault: Path, fake_ollama: FakeOllama) -> Ingestor:
    return await synced_notes(core, vault, fake_ollama)


async def zero_vectors(core: Core, vault: str, paths: list[str]) -> int:
    """Give the chunks of ``paths``, their notes and every entity of the vault all-zero
    vectors, as a version before embeddings were checked stored a model's zero answer, and mark
    the graph as written by such a version (schema version 1); how many chunks."""
    zeros = [0.0] * core.settings.embed_dimension
    rows = await ad_hoc(
        core,
        "MATCH (n:Note {vault: $vault})-[:HAS_CHUNK]->(c:Chunk) WHERE n.path IN $paths "
        "CALL db.create.setNodeVectorProperty(c, 'embedding', $zeros) "
        "CALL db.create.setNodeVectorProperty(n, 'embedding', $zeros) "
        "RETURN count(DISTINCT c) AS chunks",
        {"vault": vault, "paths": paths, "zeros": zeros},
        write=True,
    )
    await ad_hoc(
        core,
        "MATCH (e:Entity {vault: $vault}) "
        "CALL db.create.setNodeVectorProperty(e, 'embedding', $zeros) RETURN count(e) AS n",
        {"vault": vault, "zeros": zeros},
        write=True,
    )
    await ad_hoc(
        core, "MATCH (m:Manifest) SET m.schema_version = 1 RETURN m.key AS key", write=True
    )
    return int(rows[0]["chunks"])


async def zeros_left(core: Core) -> dict[str, int]:
    """How many chunks, notes and entities hold an all-zero vector."""
    rows = await ad_hoc(
        core,
        "MATCH (x) WHERE (x:Chunk OR x:Note OR x:Entity) AND x.embedding IS NOT NULL "
        "AND none(v IN x.embedding WHERE v <> 0.0) "
        "RETURN labels(x)[0] AS label, count(*) AS n",
    )
    return {row["label"]: row["n"] for row in rows}


def skipped(warnings: list[str]) -> list[str]:
    return [w for w in warnings if "skipped" in w]


async def test_retrieval_scores_zero_vectors_and_vectors_of_another_size_as_unembedded(
    core: Core, ingestor: Ingestor
) -> None:
    """Neo4j's vector.similarity.cosine refuses a zero vector, and two vectors of different
    sizes (a chunk re-embedded by another model while a server still asks with the old one):
    the names and graph retrievers failed on the whole question."""
    assert await zero_vectors(core, ingestor.vault, ZEROED) == 3
    evidence = await retrieve(core, ingestor.vault, QUESTION)
    assert skipped(evidence.warnings) == []
    assert HOP in [p.nodes for p in evidence.paths]
    hits = {h.path: h for h in evidence.hits}
    assert "names" in hits["team/Alice.md"].retrievers
    assert "graph" in hits["team/Bob.md"].retrievers

    await ad_hoc(
        core,
        "MATCH (c:Chunk {note_path: 'archive/Dave.md'}) "
        "CALL db.create.setNodeVectorProperty(c, 'embedding', $other) RETURN count(c) AS n",
        {"other": [0.5] * 384},
        write=True,
    )
    dave = await retrieve(core, ingestor.vault, "What did Dave run in 2019?")
    assert skipped(dave.warnings) == []
    assert "names" in {h.path: h for h in dave.hits}["archive/Dave.md"].retrievers


async def test_opening_the_graph_puts_zero_vectors_back_to_pending_for_a_retry(
    core: Core, ingestor: Ingestor, caplog: pytest.LogCaptureFixture
) -> None:
    await zero_vectors(core, ingestor.vault, ZEROED)
    before = await zeros_left(core)
    assert before["Chunk"] == 3 and before["Note"] == 3 and before["Entity"] > 0
    with caplog.at_level(logging.WARNING, logger="knotwork"):
        manifest = await core.ensure_ready()
        said = [r.getMessage() for r in caplog.records if "zero vectors" in r.getMessage()]
        assert len(said) == 1 and "3 chunks" in said[0] and "knotwork retry" in said[0], said
        caplog.clear()
        await core.ensure_ready()  # once: the graph is now at the current schema version
        assert not [r for r in caplog.records if "zero vectors" in r.getMessage()]
    assert manifest["schema_version"] == schema.SCHEMA_VERSION
    assert await zeros_left(core) == {}
    assert (await owed(ingestor.models)).chunks == 3

    embedded, _ = await ingestor.retry_pending()
    assert embedded == 3
    assert (await owed(ingestor.models)).chunks == 0
    assert await stale_note_vectors(core, ingestor.vault) == []
    rows = await ad_hoc(
        core,
        "MATCH (e:Entity {vault: $vault}) RETURN e.name AS name, e.embedding_state AS state, "
        "any(v IN e.embedding WHERE v <> 0.0) AS directed",
        {"vault": ingestor.vault},
    )
    # A value's name (a year, say) is done without a vector: it is never linked (values.py).
    assert rows and all(r["state"] == "done" for r in rows), rows
    assert all(r["directed"] is (None if is_value(r["name"]) else True) for r in rows), rows
    assert any(r["directed"] for r in rows), rows
    evidence = await retrieve(core, ingestor.vault, QUESTION)
    bob = next(h for h in evidence.hits if h.path == "team/Bob.md")
    assert bob.retrievers.get("vector", 0) > 0 and "graph" in bob.retrievers


async def test_doctor_and_the_read_commands_tell_of_zero_vectors_and_reembed_embeds_them(
    env: None,
    core: Core,
    ingestor: Ingestor,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With the model unchanged too: `knotwork reembed` embeds every chunk again."""
    await zero_vectors(core, ingestor.vault, ZEROED)
    report = await check_health(core)
    assert report.embeddings is not None and report.embeddings.zero_chunks == 3
    runner = CliRunner()
    doctor = await asyncio.to_thread(runner.invoke, cli, ["doctor"])
    assert doctor.exit_code == 0, doctor.output  # search still answers
    assert re.search(r"3 chunks (and \d+ entity names )?have zero vectors", doctor.output)
    assert "knotwork reembed" in doctor.output, doctor.output

    monkeypatch.setattr(zero_vectors_module, "_warned", False)  # as in a new process
    with caplog.at_level(logging.WARNING, logger="knotwork"):
        for _ in range(2):
            found = await asyncio.to_thread(runner.invoke, cli, ["retrieve", QUESTION])
            assert found.exit_code == 0, found.output
            assert "team/Bob.md" in found.output
    told = [r.getMessage() for r in caplog.records if "zero vectors" in r.getMessage()]
    assert len(told) == 1 and "3 chunks" in told[0] and "knotwork retry" in told[0], told

    reembed = await asyncio.to_thread(runner.invoke, cli, ["reembed"])
    assert reembed.exit_code == 0, reembed.output
    assert await zeros_left(core) == {}
    assert await stale_note_vectors(core, ingestor.vault) == []
    again = await asyncio.to_thread(runner.invoke, cli, ["doctor"])
    assert "zero vectors" not in again.output, again.output
    assert (await check_health(core)).embeddings is None


async def test_a_zero_vector_for_the_question_skips_vector_retrieval_and_says_why(
    core: Core, ingestor: Ingestor, fake_ollama: FakeOllama
) -> None:
    """The embedding model answering the question with a zero vector is a model down for it:
    vector search and the cosine scoring would each fail on it; full text still answers."""
    fake_ollama.embed_script = lambda texts, dim: [[0.0] * dim for _ in texts]
    evidence = await retrieve(core, ingestor.vault, QUESTION)
    assert evidence.dense_down
    said = [w for w in evidence.warnings if "vector retrieval skipped" in w]
    assert said == ["vector retrieval skipped: the embedding model returned a zero vector, which "
                    "has no direction to compare by cosine"], evidence.warnings  # fmt: skip
    assert not [w for w in evidence.warnings if "failed" in w], evidence.warnings
    assert "team/Alice.md" in [hit.path for hit in evidence.hits]
