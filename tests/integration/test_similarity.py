"""Similarity edges between entities (HippoRAG synonyms): derived, only for new entities."""

from __future__ import annotations

import dataclasses
import itertools
import math
from pathlib import Path

from knotwork.check.verify import snapshot, verify_vault
from knotwork.core import Core
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from knotwork.retrieve import cached
from knotwork.text.keys import entity_key
from tests.fakes.ollama import FakeOllama, hash_embedding
from tests.integration.conftest import ad_hoc, put

THRESHOLD = 0.55
COMPANIES = {"A.md": "Acme Corporation", "B.md": "Acme Corp", "C.md": "acme corporation ltd"}


def ingestor_for(
    core: Core, vault: Path, threshold: float = THRESHOLD, name: str = "t", **update: object
) -> Ingestor:
    update["similarity_threshold"] = threshold
    tuned = dataclasses.replace(core, settings=core.settings.model_copy(update=update))
    return Ingestor(tuned, root=vault, vault=name, extract_enabled=False)


def write_vault(vault: Path) -> None:
    for path, company in COMPANIES.items():
        (vault / path).write_text(f"---\ncompany: {company}\n---\nWorks at a company.\n")
    (vault / "D.md").write_text("---\ncompany: Zebra Farm\n---\nAnimals.\n")


def expected_pairs(names: list[str], dimension: int) -> set[tuple[str, str]]:
    vectors = {n: hash_embedding(n, dimension) for n in names}
    out = set()
    for a, b in itertools.combinations(names, 2):
        cosine = sum(x * y for x, y in zip(vectors[a], vectors[b], strict=True))
        if cosine >= THRESHOLD:
            out.add(tuple(sorted((entity_key(a), entity_key(b)))))
    return out


async def similar(core: Core, vault: str = "t") -> list[dict[str, object]]:
    return await ad_hoc(
        core,
        "MATCH (a:Entity {vault: $vault})-[s:SIMILAR_TO]->(b:Entity) "
        "RETURN a.key AS a, b.key AS b, s.cosine AS cosine, s.source AS source ORDER BY a, b",
        {"vault": vault},
        write=False,
    )


async def test_similar_entities_are_linked_once_and_go_with_them(
    core: Core, vault: Path, fake_ollama: FakeOllama
) -> None:
    write_vault(vault)
    ingestor = ingestor_for(core, vault)
    report = await sync_vault(ingestor)
    names = [*COMPANIES.values(), "Zebra Farm"]
    want = expected_pairs(names, core.settings.embed_dimension)
    assert len(want) == 2  # the fake embedder's geometry, computed above, not assumed
    rows = await similar(core)
    assert {(r["a"], r["b"]) for r in rows} == want and report.linked == 2
    for row in rows:
        assert row["source"] is None  # derived, never a note's assertion
        assert isinstance(row["cosine"], float) and THRESHOLD <= row["cosine"] <= 1.0 + 1e-6
    assert not [f for f in (await snapshot(core.store, "t"))["facts"] if "SIMILAR_TO" in f]

    # An edit that brings no new entity embeds no entity name again.
    fake_ollama.calls.clear()
    (vault / "A.md").write_text("---\ncompany: Acme Corporation\n---\nStill works there.\n")
    await ingestor.upsert_path("A.md")
    assert not [t for t in fake_ollama.embedded_texts() if t in names]

    # Deleting the only note naming "Acme Corp" removes that entity and its edge.
    (vault / "B.md").unlink()
    await ingestor.delete("B.md")
    rows = await similar(core)
    assert {(r["a"], r["b"]) for r in rows} == {("acme corporation", "acme corporation ltd")}
    assert await verify_vault(ingestor) == []

    # A note that brings it back links it again, against the entities already there.
    write_vault(vault)
    await ingestor.upsert_path("B.md")
    assert {(r["a"], r["b"]) for r in await similar(core)} == want


async def test_threshold_one_turns_similarity_off(
    core: Core, vault: Path, fake_ollama: FakeOllama
) -> None:
    write_vault(vault)
    await sync_vault(ingestor_for(core, vault, threshold=1.0))
    assert await similar(core) == []
    assert not [t for t in fake_ollama.embedded_texts() if t in COMPANIES.values()]


async def test_entities_wait_while_the_embedder_is_down(
    core: Core, vault: Path, fake_ollama: FakeOllama
) -> None:
    write_vault(vault)
    ingestor = ingestor_for(core, vault)
    fake_ollama.down = True
    await sync_vault(ingestor)
    assert await similar(core) == []
    fake_ollama.down = False
    await ingestor.retry_pending()
    rows = await similar(core)
    assert len(rows) == 2 and all(math.isfinite(float(str(r["cosine"]))) for r in rows)


async def test_new_similarity_edges_renew_the_vaults_generation(
    core: Core, vault: Path, fake_ollama: FakeOllama
) -> None:
    """What retrieval keeps between questions (walks through synonyms) is kept per generation:
    edges made after the notes' write must renew it, or a walk kept before them is served on."""
    write_vault(vault)
    ingestor = ingestor_for(core, vault)
    await sync_vault(ingestor)
    await ad_hoc(
        core,
        "MATCH (e:Entity {vault: 't'}) OPTIONAL MATCH (e)-[s:SIMILAR_TO]-() DELETE s "
        "SET e.embedding_state = 'pending'",
        {},
        write=True,
    )
    before = await cached.generation(core.store, "t")
    assert await ingestor.link_entities() == 2
    after = await cached.generation(core.store, "t")
    assert before is not None and after != before
    assert await ingestor.link_entities() == 0  # nothing new: the generation stays
    assert await cached.generation(core.store, "t") == after


async def test_other_vaults_never_crowd_a_vaults_similar_entities_out(
    core: Core, tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    """The entity vector index holds every vault's entities: copies of this vault's names in
    other vaults (cosine 1) fill the page of neighbours first asked for, so an entity whose
    page held fewer than ``similarity_top_k`` of its vault's own is asked again, deeper."""
    names = ["Acme Corporation", "Acme Corp", "acme corporation ltd", "Acme Corp Europe"]
    names += ["Acme Corp Asia", "Acme Corporation Group"]
    dimension = core.settings.embed_dimension
    vectors = {entity_key(n): hash_embedding(n, dimension) for n in names}
    want: set[tuple[str, ...]] = (
        set()
    )  # each entity with its two nearest: every pair lies within the threshold
    for key, vector in vectors.items():
        cosines = {
            k: sum(x * y for x, y in zip(vector, v, strict=True)) for k, v in vectors.items()
        }
        assert min(cosines.values()) >= 0.3
        near = sorted((k for k in cosines if k != key), key=lambda k: -cosines[k])[:2]
        want |= {tuple(sorted((key, k))) for k in near}
    edges: dict[str, set[tuple[object, object]]] = {}
    for vault in ("t", "u", "w"):  # the same notes in three folders, three vaults
        folder = tmp_path / vault
        for i, name in enumerate(names):
            put(folder, f"{i}.md", f"---\ncompany: {name}\n---\nWorks at a company.\n")
        ingestor = ingestor_for(core, folder, 0.3, vault, similarity_top_k=2)
        report = await sync_vault(ingestor)
        edges[vault] = {(r["a"], r["b"]) for r in await similar(core, vault)}
        assert report.linked == len(edges[vault]), vault
    assert edges["t"] == want
    assert edges["u"] == edges["w"] == want


async def test_two_copies_of_a_vault_get_the_same_similar_edges(
    core: Core, tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    """Neighbours at the same score are taken by key, not in the vector index's order (which
    the other vault's copies shape), so the vault ingested second gets the first's edges."""
    names = ["pi chi company", "tau chi company", "rho chi company", "chi psi company"]
    names += ["chi eta company", "pi phi company"]
    dimension = core.settings.embed_dimension
    vectors = {entity_key(n): hash_embedding(n, dimension) for n in names}
    ties = 0  # entities whose second nearest (within the threshold) ties with the third
    for key, vector in vectors.items():
        cosines = sorted(
            (
                round(sum(x * y for x, y in zip(vector, v, strict=True)), 6)
                for k, v in vectors.items()
                if k != key
            ),
            reverse=True,
        )
        ties += cosines[1] == cosines[2] >= 0.5
    assert ties >= 3  # the geometry, computed above: the cut at two falls inside ties
    edges: dict[str, set[tuple[object, object]]] = {}
    for name in ("t", "u"):  # the same notes in two folders, ingested one after the other
        folder = tmp_path / name
        for i, company in enumerate(names):
            put(folder, f"{i}.md", f"---\ncompany: {company}\n---\nWorks at a company.\n")
        report = await sync_vault(ingestor_for(core, folder, 0.5, name, similarity_top_k=2))
        edges[name] = {(r["a"], r["b"]) for r in await similar(core, name)}
        assert report.linked == len(edges[name]), name
    assert len(edges["t"]) >= len(names)
    assert edges["u"] == edges["t"]
