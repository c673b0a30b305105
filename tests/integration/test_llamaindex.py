"""KnotworkRetriever in a LlamaIndex query engine, over the real Neo4j, with LlamaIndex's own
Ollama client answering from the fake Ollama."""

from __future__ import annotations

import asyncio
import concurrent.futures
import gc
import json
import logging
import threading
import time
from pathlib import Path

import pytest
from llama_index.core.query_engine import RetrieverQueryEngine

from knotwork.core import open_core
from knotwork.errors import ConfigError, ManifestMismatchError, RetrieverClosedError
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from knotwork.llamaindex import KnotworkRetriever
from knotwork.llm.clients import build_llm
from knotwork.retrieve import Filters
from knotwork.settings import Settings
from tests.fakes.ollama import FakeOllama
from tests.integration.conftest import Neo4jTarget, put

QUESTION = "Who does Alice work with on the graph?"


@pytest.fixture
def ingested(settings: Settings, vault: Path, empty_db: Neo4jTarget) -> Settings:
    put(vault, "People/Alice.md", "# Alice\n\n## Work\nAlice works with [[Bob]] on the graph.\n")
    put(vault, "Bob.md", "# Bob\n\nBob keeps the graph database running.\n")
    put(vault, "Recipes.md", "# Lasagna\n\nLayers of pasta, tomato and basil.\n")
    settings = settings.model_copy(update={"extract": False})

    async def ingest() -> None:
        async with open_core(settings) as core:
            await core.ensure_ready()
            await sync_vault(Ingestor(core, root=vault, vault=settings.vault_name))

    asyncio.run(ingest())
    return settings


def test_retriever_returns_cited_nodes_sync_and_async(ingested: Settings) -> None:
    with KnotworkRetriever(settings=ingested, top_k=3) as retriever:
        nodes = retriever.retrieve(QUESTION)
        again = asyncio.run(retriever.aretrieve(QUESTION))
    top = nodes[0].node.metadata
    assert top["path"] == "People/Alice.md" and top["heading"] == "Alice > Work"
    assert top["citation"] == "People/Alice.md#Alice > Work:3-4"
    assert {"vector", "fulltext"} <= set(top["retrievers"])
    assert any(f["predicate"] == "WORKS_WITH" for f in top["facts"])
    assert [n.node.node_id for n in again] == [n.node.node_id for n in nodes]
    assert nodes[0].score is not None and nodes[0].score >= nodes[-1].score  # type: ignore[operator]


def test_a_query_engine_answers_from_knotwork_nodes(
    ingested: Settings, fake_ollama: FakeOllama
) -> None:
    fake_ollama.chat_script = lambda body: "Alice works with Bob."
    with KnotworkRetriever(settings=ingested, top_k=2) as retriever:
        engine = RetrieverQueryEngine.from_args(retriever, llm=build_llm(ingested))
        response = engine.query(QUESTION)
    assert str(response) == "Alice works with Bob."
    assert response.source_nodes[0].metadata["path"] == "People/Alice.md"
    [chat] = fake_ollama.calls_to("/api/chat")
    prompt = json.dumps(chat.body["messages"])
    assert "Alice works with [[Bob]] on the graph." in prompt
    assert "retrievers" not in prompt  # bulky metadata stays out of the LLM's context


async def test_on_an_apps_core_it_answers_async_only(ingested: Settings) -> None:
    async with open_core(ingested) as core:
        retriever = KnotworkRetriever(core, top_k=2)
        nodes = await retriever.aretrieve(QUESTION)
        assert nodes[0].node.metadata["path"] == "People/Alice.md"
        with pytest.raises(ConfigError, match="aretrieve"):
            retriever.retrieve(QUESTION)


def test_closing_ends_the_retrievals_in_flight_and_refuses_later_ones(ingested: Settings) -> None:
    """A web server shutting down during requests: each retrieval still running ends with
    RetrieverClosedError or its nodes (none waits on a loop that is gone), and a later one,
    sync or async, is refused with it rather than run on a closed driver."""
    retriever = KnotworkRetriever(settings=ingested, top_k=3)
    with concurrent.futures.ThreadPoolExecutor(6) as pool:
        calls = [pool.submit(retriever.retrieve, QUESTION) for _ in range(12)]
        time.sleep(0.1)
        retriever.close()
        done, hung = concurrent.futures.wait(calls, timeout=30)
    assert not hung, f"{len(hung)} retrievals still waiting after close()"
    for call in done:
        assert call.exception() is None or isinstance(call.exception(), RetrieverClosedError)
    with pytest.raises(RetrieverClosedError, match="is closed"):
        retriever.retrieve(QUESTION)
    with pytest.raises(RetrieverClosedError, match="is closed"):
        asyncio.run(retriever.aretrieve(QUESTION))
    retriever.close()  # twice is fine


def test_a_retriever_dropped_unclosed_releases_its_thread(ingested: Settings) -> None:
    before = threading.active_count()
    retriever = KnotworkRetriever(settings=ingested, top_k=3)
    assert retriever.retrieve(QUESTION)
    del retriever
    gc.collect()
    deadline = time.monotonic() + 10
    while threading.active_count() > before and time.monotonic() < deadline:
        time.sleep(0.1)
    assert threading.active_count() <= before, threading.enumerate()


def test_what_the_other_entry_points_say_the_retriever_says_too(
    ingested: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    """An off-topic question gives no nodes (POST /query calls no model on such evidence), a
    vault with no notes is named, and another model's graph is refused at construction."""
    caplog.set_level(logging.WARNING, logger="knotwork")
    off_topic = "What is the capital of Peru?"
    with KnotworkRetriever(settings=ingested, top_k=3) as retriever:
        assert retriever.retrieve(off_topic) == []
        assert any("insufficient_context" in r.getMessage() for r in caplog.records)
        assert retriever.retrieve(QUESTION)  # on topic: nodes, as before
    with KnotworkRetriever(settings=ingested, top_k=3, relevance_gate=False) as retriever:
        nodes = retriever.retrieve(off_topic)
    assert nodes and all(n.node.metadata["relevance"] < ingested.min_relevance for n in nodes)
    caplog.clear()
    with KnotworkRetriever(settings=ingested, vault="nosuchvault") as retriever:
        assert retriever.retrieve(QUESTION) == []
    said = [r for r in caplog.records if "holds no notes of vault 'nosuchvault'" in r.getMessage()]
    assert len(said) == 1  # once, not once by the pipeline and again by the retriever
    other = ingested.model_copy(update={"embed_model": "mxbai-embed-large"})
    with pytest.raises(ManifestMismatchError):
        KnotworkRetriever(settings=other)


def test_arguments_are_checked_where_they_are_given(ingested: Settings) -> None:
    """A library caller's slip is said at once, in its own words, not answered with every hit
    but the last (``top_k=-1``) or with nothing (``tags="meeting"``: its letters as tags)."""
    for top_k in (0, -1, 51, True):
        with pytest.raises(ValueError, match="top_k is an integer from 1 to 50"):
            KnotworkRetriever(settings=ingested, top_k=top_k)
    with pytest.raises(ValueError, match="mode is one of"):
        KnotworkRetriever(settings=ingested, mode="slow")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"filters is a knotwork\.retrieve\.Filters"):
        KnotworkRetriever(settings=ingested, filters={"tags": ["x"]})  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="tuple of tag names"):
        Filters(tags="meeting")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"datetime\.date"):
        Filters(date_from="2024-01-01")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="'all' or 'structural'"):
        Filters(trust="everything")  # type: ignore[arg-type]
    with KnotworkRetriever(settings=ingested) as retriever:
        with pytest.raises(ValueError, match=r"^the question is refused: question is blank$"):
            retriever.retrieve("   ")
        with pytest.raises(ValueError, match=r"^the question is refused: .* at most 2000 char"):
            retriever.retrieve("x" * 2001)
