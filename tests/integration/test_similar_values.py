"""Entities whose names are values (dates, URLs, files: ingest/values.py) get no SIMILAR_TO:
embedded alike, they are never synonyms, and a graph linked before that rule loses theirs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from knotwork.core import Core
from knotwork.graph import cypher
from knotwork.graph.queries.writes import ENTITIES_PENDING
from knotwork.ingest import similar
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from knotwork.models import now_ms
from knotwork.retrieve import cached
from tests.fakes.ollama import FakeOllama, hash_embedding
from tests.integration.conftest import ad_hoc, put
from tests.integration.test_similarity import ingestor_for
from tests.integration.test_similarity import similar as similar_edges

THRESHOLD = 0.55
NAMES = ["Acme Corporation", "Acme Corp"]
VALUES = ["2024-01-01", "2024-01-02", "https://example.org/a", "https://example.org/b"]
VALUES += ["decoder.svg", "encoder.svg"]


def _write(vault: Path) -> None:
    for i, (name, day) in enumerate(zip(NAMES, ("2024-01-01", "2024-01-02"), strict=True)):
        letter = "ab"[i]
        put(
            vault,
            f"{letter.upper()}.md",
            f"---\ncompany: {name}\nreleased: {day}\nsite: https://example.org/{letter}\n---\n"
            f"See ![[{('decoder', 'encoder')[i]}.svg]].\n",
        )


def _cosine(a: str, b: str, dimension: int) -> float:
    x, y = hash_embedding(a, dimension), hash_embedding(b, dimension)
    return sum(p * q for p, q in zip(x, y, strict=True))


async def _entities(core: Core) -> dict[str, tuple[str, bool]]:
    rows = await ad_hoc(
        core,
        "MATCH (e:Entity {vault: 't'}) "
        "RETURN e.key AS key, e.embedding_state AS state, e.embedding IS NOT NULL AS vector",
    )
    return {r["key"]: (r["state"], r["vector"]) for r in rows}


def _pairs(rows: list[dict[str, object]]) -> set[tuple[object, object]]:
    return {(r["a"], r["b"]) for r in rows}


async def test_values_are_neither_embedded_nor_linked_and_names_still_are(
    core: Core, vault: Path, fake_ollama: FakeOllama
) -> None:
    dimension = core.settings.embed_dimension
    # The stand-in embedder puts each pair of values within the threshold: without the rule
    # they would be linked (computed here, not assumed).
    for a, b in zip(VALUES[::2], VALUES[1::2], strict=True):
        assert _cosine(a, b, dimension) >= THRESHOLD, (a, b)
    assert _cosine(*NAMES, dimension) >= THRESHOLD
    _write(vault)
    report = await sync_vault(ingestor_for(core, vault, THRESHOLD))
    entities = await _entities(core)
    assert {v.lower() for v in VALUES} <= set(entities)
    assert _pairs(await similar_edges(core)) == {("acme corp", "acme corporation")}
    assert report.linked == 1
    for value in VALUES:  # read as done, owing nothing, and holding no vector to match
        assert entities[value.lower()] == ("done", False), value
    assert entities["acme corp"] == entities["acme corporation"] == ("done", True)
    embedded = fake_ollama.embedded_texts()
    assert set(NAMES) <= set(embedded) and not set(VALUES) & set(embedded)


async def test_a_graph_linked_before_the_rule_loses_its_values_edges_once(
    core: Core, vault: Path, fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(vault)
    ingestor = ingestor_for(core, vault, THRESHOLD)
    with monkeypatch.context() as before:  # how an earlier version linked them
        before.setattr(similar, "is_value", lambda name: False)
        before.setattr(similar, "unlink_values", lambda store, vault: _none())
        await sync_vault(ingestor)
    old = _pairs(await similar_edges(core))
    assert ("2024-01-01", "2024-01-02") in old and ("acme corp", "acme corporation") in old
    assert ("decoder.svg", "encoder.svg") in old
    generation = await cached.generation(core.store, "t")

    fake_ollama.calls.clear()
    await sync_vault(ingestor)  # nothing changed in the folder: the next sync unlinks them
    assert _pairs(await similar_edges(core)) == {("acme corp", "acme corporation")}
    entities = await _entities(core)
    assert all(entities[v.lower()] == ("done", False) for v in VALUES), entities
    assert entities["acme corp"] == ("done", True)
    assert not fake_ollama.embedded_texts()  # nothing embedded again
    after = await cached.generation(core.store, "t")
    assert after != generation  # a walk kept through the old edges is not served on

    # Once: an edge made by hand after the pass stays, and the generation with it.
    await ad_hoc(
        core,
        "MATCH (a:Entity {vault: 't', key: '2024-01-01'}), (b:Entity {vault: 't', "
        "key: '2024-01-02'}) MERGE (a)-[:SIMILAR_TO {cosine: 0.9}]->(b)",
        write=True,
    )
    assert await similar.unlink_values(core.store, "t") == 0
    assert ("2024-01-01", "2024-01-02") in _pairs(await similar_edges(core))
    assert await cached.generation(core.store, "t") == after


# Values the first rule (VALUES_UNLINKED 1) took for names: a quarter, a duration, a day.
GROWN = ["Q1 2024", "Q2 2024", "3 days", "5 days", "1 May", "4 May"]


async def test_values_edges_go_with_embeddings_off_and_again_as_the_rule_grows(
    core: Core, vault: Path, fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    dimension = core.settings.embed_dimension
    for a, b in zip(GROWN[::2], GROWN[1::2], strict=True):  # linked without the rule
        assert _cosine(a, b, dimension) >= THRESHOLD, (a, b)
    for i, name in enumerate(NAMES):
        put(
            vault,
            f"{'AB'[i]}.md",
            f"---\ncompany: {name}\nperiod: {GROWN[i]}\nlasted: {GROWN[2 + i]}\n"
            f"since: {GROWN[4 + i]}\n---\nText.\n",
        )
    with monkeypatch.context() as before:  # linked, then checked by the first rule
        before.setattr(similar, "is_value", lambda name: False)
        before.setattr(similar, "unlink_values", lambda store, vault: _none())
        await sync_vault(ingestor_for(core, vault, THRESHOLD))
    await ad_hoc(core, "MATCH (s:NameStamp {vault: 't'}) SET s.values_unlinked = 1", write=True)
    old = _pairs(await similar_edges(core))
    assert {("q1 2024", "q2 2024"), ("1 may", "4 may"), ("acme corp", "acme corporation")} <= old

    fake_ollama.calls.clear()
    # A sync with no embedding model at all: the edges need none to go.
    await sync_vault(
        Ingestor(core, root=vault, vault="t", extract_enabled=False, embed_enabled=False)
    )
    assert _pairs(await similar_edges(core)) == {("acme corp", "acme corporation")}
    entities = await _entities(core)
    assert all(entities[v.lower()] == ("done", False) for v in GROWN), entities
    assert entities["acme corp"] == ("done", True)
    assert not fake_ollama.calls
    [stamp] = await ad_hoc(core, "MATCH (s:NameStamp {vault: 't'}) RETURN s.values_unlinked AS v")
    assert stamp["v"] == similar.VALUES_UNLINKED


# Names the second rule (VALUES_UNLINKED 2) took for values: the rover, a code.
NAMED = {"Mars 2020": "Mars 2020 rover", "007": "Agent 007"}


async def test_names_an_earlier_rule_took_for_values_are_embedded_and_linked_again(
    core: Core, vault: Path, fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    dimension = core.settings.embed_dimension
    for a, b in NAMED.items():  # within the threshold: linked once both are embedded
        assert _cosine(a, b, dimension) >= THRESHOLD, (a, b)
    for i, (mission, agent) in enumerate((list(NAMED), list(NAMED.values()))):
        day = ("2024-01-01", "2024-01-02")[i]
        put(vault, f"{'AB'[i]}.md", f'---\nmission: {mission}\nagent: "{agent}"\nday: {day}\n---\n')
    ingestor = ingestor_for(core, vault, THRESHOLD)
    old_rule = similar.is_value
    with monkeypatch.context() as before:  # synced and checked by the second rule
        before.setattr(similar, "is_value", lambda name: name in NAMED or old_rule(name))
        before.setattr(similar, "VALUES_UNLINKED", 2)
        await sync_vault(ingestor)
    entities = await _entities(core)
    assert entities["mars 2020"] == entities["007"] == ("done", False), entities
    assert not _pairs(await similar_edges(core))
    # Done, they are no entity pending: only the pass at the new rule owes them a vector.
    pending = await core.store.read(
        ENTITIES_PENDING, vault="t", limit=10, exclude=[], asked_before=now_ms()
    )
    assert not pending

    fake_ollama.calls.clear()
    report = await sync_vault(ingestor)  # nothing changed in the folder
    entities = await _entities(core)
    assert entities["mars 2020"] == entities["007"] == ("done", True), entities
    assert entities["2024-01-01"] == entities["2024-01-02"] == ("done", False)
    assert set(fake_ollama.embedded_texts()) == set(NAMED)  # those two, nothing else
    assert _pairs(await similar_edges(core)) == {
        ("007", "agent 007"),
        ("mars 2020", "mars 2020 rover"),
    }
    assert report.linked == 2
    [stamp] = await ad_hoc(core, "MATCH (s:NameStamp {vault: 't'}) RETURN s.values_unlinked AS v")
    assert stamp["v"] == similar.VALUES_UNLINKED == 3


async def test_a_vault_done_seeks_none_of_its_entities(core: Core) -> None:
    """Every sync and write asks for the pass's next page: once the vault is done, that costs
    a read of its stamp, not a walk through its entities' index entries."""
    await ad_hoc(
        core,
        "UNWIND range(1, 3000) AS i CREATE (:Entity {vault: 't', key: 'k' + toString(i), "
        "name: 'n' + toString(i), embedding: [1.0, 0.0]}) "
        "MERGE (s:NameStamp {vault: 't'}) SET s.values_unlinked = $version",
        {"version": similar.VALUES_UNLINKED},
        write=True,
    )
    query = "PROFILE " + cypher.load("entities_values_page")

    async def hits(version: int) -> tuple[int, bool]:
        records, summary, _ = await core.driver.execute_query(
            query,
            {"vault": "t", "version": version, "after": "", "limit": similar.VALUES_PAGE},
            database_=core.settings.neo4j_database,
        )
        return _db_hits(summary.profile), records[0]["done"]

    cost, done = await hits(similar.VALUES_UNLINKED)
    assert done and cost < 100, cost  # the stamp and the plan's bookkeeping
    cost, done = await hits(similar.VALUES_UNLINKED + 1)  # a pass still to make reads them
    assert not done and cost >= 3000, cost


def _db_hits(plan: dict[str, Any]) -> int:
    return int(plan.get("dbHits", 0)) + sum(_db_hits(c) for c in plan.get("children", []))


async def _none() -> int:
    return 0
