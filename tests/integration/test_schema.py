"""Schema and manifest against the real Neo4j."""

from __future__ import annotations

import asyncio
import functools
import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from knotwork import core as core_module
from knotwork.cli import app as cli
from knotwork.core import Core, open_core
from knotwork.errors import ManifestMismatchError
from knotwork.graph import schema
from knotwork.graph.store import EXPECTED_INDEXES
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.journal import Journal, replay
from knotwork.ingest.sync import sync_vault
from knotwork.settings import Settings, get_settings
from tests.fakes.ollama import FakeOllama, hash_embedding
from tests.integration.conftest import Neo4jTarget, ad_hoc, put


async def test_schema_creates_constraints_and_online_indexes(core: Core) -> None:
    states = {s.name: s for s in await core.store.index_states()}
    for name in EXPECTED_INDEXES:
        assert name in states, f"index {name} missing"
        assert states[name].state == "ONLINE"
    assert states["chunk_embedding"].type == "VECTOR"
    assert states["chunk_embedding"].dimension == core.settings.embed_dimension
    for lang in ("en", "it", "de", "fr", "es", "pt"):
        assert states[f"chunk_text_{lang}"].type == "FULLTEXT"
    assert states["entity_names"].type == "FULLTEXT"
    rows = await ad_hoc(
        core,
        "SHOW CONSTRAINTS YIELD name, type, labelsOrTypes, properties "
        "RETURN name, type, labelsOrTypes, properties ORDER BY name",
        {},
        write=False,
    )
    constraints = {r["name"]: (r["type"], r["labelsOrTypes"], r["properties"]) for r in rows}
    assert constraints["note_key"] == ("UNIQUENESS", ["Note"], ["vault", "path"])
    assert constraints["chunk_id"] == ("UNIQUENESS", ["Chunk"], ["id"])
    assert constraints["entity_key"] == ("UNIQUENESS", ["Entity"], ["vault", "key"])


async def test_schema_is_idempotent_and_manifest_records_the_model(core: Core) -> None:
    first = await core.ensure_ready()
    again = await core.ensure_ready()
    assert first == again
    assert again["embed_model"] == "nomic-embed-text"
    assert again["embed_dimension"] == 768
    assert again["schema_version"] == schema.SCHEMA_VERSION
    assert len(await core.store.index_states()) == len(
        {s.name for s in await core.store.index_states()}
    )


async def test_indexes_serve_queries(core: Core) -> None:
    """The vector and full-text indexes answer real queries on real data."""
    texts = {
        "c1": "Alice works with Bob on the graph project",
        "c2": "Lasagna recipe with tomatoes and basil",
    }
    await ad_hoc(
        core,
        "UNWIND $rows AS row CREATE (c:Chunk:English {id: row.id, text: row.text}) "
        "WITH c, row CALL db.create.setNodeVectorProperty(c, 'embedding', row.embedding)",
        {
            "rows": [
                {"id": k, "text": v, "embedding": hash_embedding(v, 768)} for k, v in texts.items()
            ]
        },
        write=True,
    )
    await core.store.await_indexes(60)
    vector = await ad_hoc(
        core,
        "CALL db.index.vector.queryNodes('chunk_embedding', 1, $q) YIELD node RETURN node.id AS id",
        {"q": hash_embedding("who works with Bob on the graph", 768)},
        write=False,
    )
    assert vector == [{"id": "c1"}]
    fulltext = await ad_hoc(
        core,
        "CALL db.index.fulltext.queryNodes('chunk_text_en', 'tomato') YIELD node "
        "RETURN node.id AS id",
        {},
        write=False,
    )
    assert fulltext == [{"id": "c2"}]


async def test_other_embedding_model_is_refused_with_both_names_and_the_command(
    core: Core, settings: Settings
) -> None:
    other = settings.model_copy(
        update={"embed_model": "mxbai-embed-large", "embed_dimension": 1024}
    )
    async with open_core(other) as second:
        with pytest.raises(ManifestMismatchError) as info:
            await second.ensure_ready()
    message = str(info.value)
    assert "nomic-embed-text" in message and "768" in message
    assert "mxbai-embed-large" in message and "1024" in message
    assert "knotwork reembed" in message
    # Nothing was changed by the refused start.
    manifest = await core.store.get_manifest()
    assert manifest is not None and manifest["embed_model"] == "nomic-embed-text"
    vector = {s.name: s for s in await core.store.index_states()}["chunk_embedding"]
    assert vector.dimension == 768


async def test_a_model_named_with_its_latest_tag_is_the_same_model(
    core: Core, settings: Settings
) -> None:
    """Ollama reads `nomic-embed-text` as `nomic-embed-text:latest`: one model, not a refusal."""
    tagged = settings.model_copy(update={"embed_model": "nomic-embed-text:latest"})
    async with open_core(tagged) as second:
        manifest = await second.ensure_ready()
    assert manifest["embed_model"] == "nomic-embed-text"  # the stored name is left as it is
    other_tag = settings.model_copy(update={"embed_model": "nomic-embed-text:v1.5"})
    async with open_core(other_tag) as third:
        with pytest.raises(ManifestMismatchError):
            await third.ensure_ready()


async def test_vector_index_without_manifest_of_other_dimension_is_refused(
    empty_db: Neo4jTarget, settings: Settings
) -> None:
    async with open_core(settings.model_copy(update={"embed_dimension": 384})) as small:
        await small.store.apply_schema(384)
    async with open_core(settings) as core:
        with pytest.raises(ManifestMismatchError, match="384") as refused:
            await core.ensure_ready()
        # No manifest names the model: the advice must name none it made up, only fixes that
        # can be typed, and the one it names first must mend the graph.
        said = str(refused.value)
        assert "unknown model" not in said and "KNOTWORK_EMBED_MODEL=" not in said
        assert "`knotwork reembed`" in said and "KNOTWORK_EMBED_DIMENSION=384" in said
        await schema.reembed(core.store, settings, core.embedder.aget_text_embedding_batch)
        manifest = await core.ensure_ready()
    assert manifest["embed_dimension"] == settings.embed_dimension


async def test_reembed_switches_model_dimension_and_manifest(
    core: Core, settings: Settings, fake_ollama: FakeOllama
) -> None:
    await ad_hoc(
        core,
        "UNWIND range(1, 5) AS i "
        "CREATE (:Chunk {id: 'c' + i, hash: 'h' + i, text: 'chunk number ' + i})",
        {},
        write=True,
    )
    fake_ollama.models["all-minilm:latest"] = 384
    other = settings.model_copy(
        update={"embed_model": "all-minilm", "embed_dimension": 384, "embed_batch_size": 2}
    )
    seen: list[tuple[int, int]] = []
    async with open_core(other) as second:
        done = await schema.reembed(
            second.store,
            other,
            second.embedder.aget_text_embedding_batch,
            lambda d, t: seen.append((d, t)),
        )
        manifest = await second.ensure_ready()
        dims = await ad_hoc(
            second, "MATCH (c:Chunk) RETURN DISTINCT size(c.embedding) AS d", {}, write=False
        )
    assert done.embedded == 5 and not done.refused and seen[-1] == (5, 5) and len(seen) == 3
    assert manifest["embed_model"] == "all-minilm" and manifest["embed_dimension"] == 384
    assert dims == [{"d": 384}]
    assert fake_ollama.embedded_texts() == [f"chunk number {i}" for i in range(1, 6)]


async def test_reembed_refuses_vectors_it_cannot_store_and_keeps_the_graph_refused(
    env: None, core: Core, fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A model answering zero vectors (no direction: the cosine index leaves them out) made
    `knotwork reembed` report success with every chunk out of vector search."""
    await ad_hoc(
        core,
        "UNWIND range(1, 3) AS i CREATE (:Chunk {id: 'c' + i, hash: 'h' + i, text: 't' + i})",
        {},
        write=True,
    )
    fake_ollama.models["all-minilm:latest"] = 384
    fake_ollama.embed_script = lambda texts, dim: [[0.0] * dim for _ in texts]
    monkeypatch.setenv("KNOTWORK_EMBED_MODEL", "all-minilm")
    monkeypatch.setenv("KNOTWORK_EMBED_DIMENSION", "384")
    get_settings.cache_clear()
    reembed = functools.partial(CliRunner().invoke, cli, ["reembed"])
    result = await asyncio.to_thread(reembed)  # the command runs its own event loop
    assert result.exit_code != 0
    assert "zero vector" in result.output and "knotwork reembed" in result.output
    assert "Traceback" not in result.output
    fake_ollama.embed_script = None
    assert (await asyncio.to_thread(reembed)).exit_code == 0, "a sound answer completes it"


async def test_reembed_with_the_model_down_says_so_in_one_line(
    env: None, core: Core, vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The client's ConnectError used to end `knotwork reembed` in a traceback."""
    put(vault, "a.md", "# A\n\nA first note about kites.\n")
    put(vault, "b.md", "# B\n\nA second note about gliders.\n")
    report = await sync_vault(Ingestor(core, root=vault, vault="t", extract_enabled=False))
    assert not report.errors
    [row] = await ad_hoc(core, "MATCH (c:Chunk) RETURN count(c) AS n", {}, write=False)
    with socket.socket() as closed:  # a port nothing listens on once the socket is closed
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    monkeypatch.setenv("KNOTWORK_OLLAMA_BASE_URL", f"http://127.0.0.1:{port}")
    get_settings.cache_clear()
    result = await asyncio.to_thread(CliRunner().invoke, cli, ["reembed"])
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and isinstance(result.exception, SystemExit)
    [said] = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert "nomic-embed-text could not embed chunk" in said
    assert f"0 of {row['n']} chunks re-embedded so far" in said
    assert "ConnectionError" in said and "`knotwork reembed` completes" in said


async def test_the_word_index_is_full_text_and_replaces_the_text_index(core: Core) -> None:
    """A database made by an older version holds the trigram text index ``chunk_mtext``; applying
    the schema drops it and leaves the whitespace full-text index ``chunk_words`` in its place."""
    await ad_hoc(core, "DROP INDEX chunk_words IF EXISTS", {}, write=True)
    await ad_hoc(
        core,
        "CREATE TEXT INDEX chunk_mtext IF NOT EXISTS FOR (c:Chunk) ON (c.mtext)",
        {},
        write=True,
    )
    await core.store.apply_schema(core.settings.embed_dimension)
    await core.store.await_indexes(60)
    states = {s.name: s for s in await core.store.index_states()}
    assert "chunk_mtext" not in states
    assert states["chunk_words"].type == "FULLTEXT" and states["chunk_words"].state == "ONLINE"
    [row] = await ad_hoc(
        core,
        "SHOW INDEXES YIELD name, options WHERE name = 'chunk_words' "
        "RETURN options.indexConfig.`fulltext.analyzer` AS analyzer",
        {},
        write=False,
    )
    assert row["analyzer"] == "whitespace"


async def test_writes_of_a_process_the_graph_was_reembedded_under_are_refused(
    core: Core,
    settings: Settings,
    vault: Path,
    tmp_path: Path,
    fake_ollama: FakeOllama,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every way a running process embeds (a note write, a sync, the journal's replay, entity
    names) refuses once `knotwork reembed` switched the graph: nothing of the old model is
    stored, and the replay keeps its paths for after a restart with the graph's settings."""
    monkeypatch.setattr(core_module, "MANIFEST_RECHECK_S", 0.0)  # the bound: tests/unit
    ingestor = Ingestor(core, root=vault, vault="t", extract_enabled=False)
    await ingestor.upsert_text("a.md", "# A\n\nWritten before the switch.\n")
    fake_ollama.models["all-minilm:latest"] = 384
    other = settings.model_copy(update={"embed_model": "all-minilm", "embed_dimension": 384})
    async with open_core(other) as switched:
        await schema.reembed(switched.store, other, switched.embedder.aget_text_embedding_batch)
    put(vault, "b.md", "# B\n\nWritten after the switch.\n")
    journal = Journal(tmp_path / "t.journal")
    journal.add("b.md")
    for work in (
        lambda: ingestor.upsert_path("b.md"),
        lambda: sync_vault(ingestor),
        lambda: replay(ingestor, journal),
        ingestor.link_entities,
    ):
        with pytest.raises(ManifestMismatchError, match="Restart it"):
            await work()
    assert journal.paths() == ["b.md"]
    notes = await ad_hoc(core, "MATCH (n:Note) RETURN n.path AS p", {}, write=False)
    assert notes == [{"p": "a.md"}]
    sizes = await ad_hoc(
        core, "MATCH (c:Chunk) RETURN DISTINCT size(c.embedding) AS d", {}, write=False
    )
    assert sizes == [{"d": 384}]
