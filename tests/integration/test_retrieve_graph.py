"""Multi-hop retrieval on the real Neo4j: named notes, graph walks with hop paths, synonym
walks, dates, filters and PageRank — and nothing stale after an edit."""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from knotwork.answer.prompt import build_prompt
from knotwork.core import Core
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from knotwork.retrieve import Filters, retrieve
from knotwork.retrieve.graphrank import entity_seeds
from tests.fakes.ollama import FakeOllama
from tests.integration.conftest import put
from tests.integration.test_answer import labels

NOTES = {
    "team/Alice.md": "# Alice\n\nAlice reports to [[Bob]] since spring.\n",
    "team/Bob.md": "# Bob\n\nBob works with [[Carol]] on the launch.\n",
    "team/Carol.md": (
        "---\ndate: 2024-03-05\ntags: [crew/launch]\n---\n# Carol\n\n"
        "Carol runs the rocket schedule.\n"
    ),
    "archive/Dave.md": "# Dave\n\nDave once ran the rocket schedule too, in 2019.\n",
    "Recipes.md": "# Lasagna\n\nLayers of pasta, tomato and basil.\n",
}


def extraction_script(body: dict[str, Any]) -> str:
    """The model's extraction: Carol's chunk yields one triple, the rest nothing."""
    text = body["messages"][-1]["content"]
    if "keywords" in json.dumps(body.get("format", {})):
        return json.dumps({"keywords": ["Rocket timetable"]})
    if "Carol runs" in text:
        return json.dumps(
            {
                "entities": [{"name": "Carol"}, {"name": "Rocket schedule"}],
                "triples": [{"subject": "Carol", "predicate": "runs", "object": "Rocket schedule"}],
            }
        )
    return json.dumps({"entities": [], "triples": []})


async def synced_notes(core: Core, vault: Path, fake_ollama: FakeOllama) -> Ingestor:
    """``NOTES`` written into ``vault`` and synced, the model extracting by
    ``extraction_script``: the vault of this module's tests and of test_zero_vectors.py's."""
    fake_ollama.chat_script = extraction_script
    for path, text in NOTES.items():
        put(vault, path, text)
    ingestor = Ingestor(core, root=vault, vault=core.settings.vault_name, extract_enabled=True)
    await sync_vault(ingestor)
    return ingestor


@pytest.fixture
async def ingestor(core: Core, vault: Path, fake_ollama: FakeOllama) -> Ingestor:
    return await synced_notes(core, vault, fake_ollama)


async def test_two_hop_question_cites_both_notes_and_returns_the_path(
    core: Core, ingestor: Ingestor
) -> None:
    evidence = await retrieve(core, ingestor.vault, "Who does the boss of Alice work with?")
    paths = [h.path for h in evidence.hits]
    assert "team/Alice.md" in paths and "team/Bob.md" in paths
    bob = next(h for h in evidence.hits if h.path == "team/Bob.md")
    assert "graph" in bob.retrievers  # reached by the walk, not by text similarity alone
    hop = next(p for p in evidence.paths if p.chunk_id == bob.id)
    assert hop.nodes == ("note:team/Alice.md", "note:team/Bob.md", "note:team/Carol.md")
    assert hop.relations == ("REPORTS_TO", "WORKS_WITH")
    facts = {(f.predicate, f.source, f.extractor) for f in evidence.facts}
    assert ("WORKS_WITH", "team/Bob.md", "wikilink") in facts


async def test_an_edit_that_removes_a_link_removes_the_hop(
    core: Core, ingestor: Ingestor, vault: Path
) -> None:
    (vault / "team/Bob.md").write_text("# Bob\n\nBob works alone on the launch.\n")
    await ingestor.upsert_path("team/Bob.md")
    evidence = await retrieve(core, ingestor.vault, "Who does the boss of Alice work with?")
    assert not [p for p in evidence.paths if "note:team/Carol.md" in p.nodes]
    assert not [f for f in evidence.facts if f.predicate == "WORKS_WITH"]
    assert all("[[Carol]]" not in h.text for h in evidence.hits)


async def test_a_walk_kept_between_questions_goes_stale_with_an_edit(
    core: Core, ingestor: Ingestor, vault: Path
) -> None:
    """Walks are kept under the vault's generation; the edit's transaction renews it, so the
    next question walks the graph again instead of reusing the walk through Bob to Carol."""
    question = "Who does the boss of Alice work with?"
    before = await retrieve(core, ingestor.vault, question)
    assert [p for p in before.paths if "note:team/Carol.md" in p.nodes]
    kept = len(core.memo)
    assert kept > 0
    again = await retrieve(core, ingestor.vault, question)
    assert again.paths == before.paths and len(core.memo) == kept  # the same walk, kept
    (vault / "team/Bob.md").write_text("# Bob\n\nBob works alone on the launch.\n")
    await ingestor.upsert_path("team/Bob.md")
    after = await retrieve(core, ingestor.vault, question)
    assert not [p for p in after.paths if "note:team/Carol.md" in p.nodes]
    assert len(core.memo) > kept  # walked again under the new generation


async def test_filters_narrow_every_retriever(core: Core, ingestor: Ingestor) -> None:
    question = "Who runs the rocket schedule?"
    everything = await retrieve(core, ingestor.vault, question)
    assert {"team/Carol.md", "archive/Dave.md"} <= {h.path for h in everything.hits}
    team = await retrieve(core, ingestor.vault, question, filters=Filters(folder="team/"))
    assert team.hits and all(h.path.startswith("team/") for h in team.hits)
    tagged = await retrieve(core, ingestor.vault, question, filters=Filters(tags=("crew",)))
    assert [h.path for h in tagged.hits] == ["team/Carol.md"]  # nested crew/launch matches
    dated = await retrieve(
        core,
        ingestor.vault,
        question,
        filters=Filters(date_from=date(2024, 1, 1), date_to=date(2024, 12, 31)),
    )
    assert [h.path for h in dated.hits] == ["team/Carol.md"]
    model_facts = [f for f in everything.facts if f.extractor == "llm"]
    assert model_facts  # Carol's extracted triple is beside the evidence…
    structural = await retrieve(core, ingestor.vault, question, filters=Filters(trust="structural"))
    assert structural.facts and all(f.extractor != "llm" for f in structural.facts)  # …not here


async def test_dates_in_the_question_run_the_temporal_retriever(
    core: Core, ingestor: Ingestor
) -> None:
    evidence = await retrieve(core, ingestor.vault, "What was planned for 5 March 2024?")
    carol = next(h for h in evidence.hits if h.path == "team/Carol.md")
    assert "temporal" in carol.retrievers
    undated = await retrieve(core, ingestor.vault, "What is planned?")
    assert all("temporal" not in h.retrievers for h in undated.hits)


async def test_synonym_walk_uses_model_keywords_only_in_normal_mode(
    core: Core, ingestor: Ingestor, fake_ollama: FakeOllama
) -> None:
    fake_ollama.calls.clear()
    fast = await retrieve(core, ingestor.vault, "Who keeps the timetable?", mode="fast")
    assert fast.keywords == [] and not fake_ollama.calls_to("/api/chat")
    normal = await retrieve(core, ingestor.vault, "Who keeps the timetable?", mode="normal")
    assert normal.keywords == ["Rocket timetable"] and len(fake_ollama.calls_to("/api/chat")) == 1
    carol = [h for h in normal.hits if h.path == "team/Carol.md"]
    assert carol and "synonym" in carol[0].retrievers


async def test_ablations_pick_retrievers_and_ranker(core: Core, ingestor: Ingestor) -> None:
    dense = await retrieve(
        core, ingestor.vault, "rocket schedule", use=frozenset({"vector"}), ppr=False
    )
    assert dense.hits and all(set(h.retrievers) == {"vector"} for h in dense.hits)
    text = await retrieve(core, ingestor.vault, "rocket schedule", use=frozenset({"fulltext"}))
    assert text.hits and all(set(h.retrievers) == {"fulltext", "ppr"} for h in text.hits)
    off_topic = await retrieve(core, ingestor.vault, "quantum chromodynamics lattice gauge")
    on_topic = await retrieve(core, ingestor.vault, "Who runs the rocket schedule?")
    assert off_topic.relevance < on_topic.relevance


async def test_query_answers_a_two_hop_question_with_both_notes_cited(
    core: Core, ingestor: Ingestor, vault: Path, fake_ollama: FakeOllama
) -> None:
    """Bob's note shares no content word with the question: only the walk from Alice finds it."""
    from knotwork.answer.respond import answer

    for n in range(20):  # notes that look more like the question than Bob's does
        (vault / f"noise/Boss {n}.md").parent.mkdir(exist_ok=True)
        (vault / f"noise/Boss {n}.md").write_text(
            f"# Boss {n}\n\nWho does the person work with? Topic {n}.\n"
        )
    await sync_vault(ingestor)
    question = "Who does the person Alice reports to work with?"
    hybrid = await retrieve(
        core, ingestor.vault, question, top_k=5, use=frozenset({"vector", "fulltext"}), ppr=False
    )
    assert "team/Bob.md" not in [h.path for h in hybrid.hits]

    def model(body: dict[str, Any]) -> str:  # cites what it was given, as a model would
        given = labels(body["messages"][-1]["content"])
        cited = [given[p] for p in ("team/Alice.md", "team/Bob.md") if p in given]
        return " ".join(f"A claim {number}." for number in cited) or "Nothing."

    fake_ollama.chat_script = model
    result = await answer(core, question, mode="fast", top_k=5)
    assert result.status == "ok"
    assert [(c.path, c.heading) for c in result.citations] == [
        ("team/Alice.md", "Alice"),
        ("team/Bob.md", "Bob"),
    ]
    assert any(
        p.nodes == ("note:team/Alice.md", "note:team/Bob.md", "note:team/Carol.md")
        for p in result.paths
    )


async def test_a_keyword_finds_its_entity_among_many_notes_of_the_same_name(
    core: Core, ingestor: Ingestor, vault: Path
) -> None:
    """The entity-name index holds notes too: twenty notes named "Schedule …" outscore the
    entity "Rocket schedule" for the keyword "schedule", and the entity is still a seed."""
    for i in range(20):
        (vault / f"Schedule {i}.md").write_text(f"# Schedule {i}\n\nSlot {i}.\n")
    await sync_vault(ingestor)
    seeds = await entity_seeds(core, ingestor.vault, "Who keeps it?", ["schedule"])
    assert "entity:rocket schedule" in seeds.values()


async def test_a_notes_frontmatter_facts_come_with_its_hits_once(core: Core, vault: Path) -> None:
    """Frontmatter holds no chunk's text: its facts come beside the note's hits, once however
    many of its chunks are hits, and the prompt cites each by its own frontmatter line (not by
    the note's first block, whose lines do not hold it)."""
    (vault / "Dana.md").write_text(
        "---\nemployer: Acme\naliases: [Dee]\ntags: [ops]\n---\n# Dana\n\nDana runs the night "
        "shift.\n\n## Shifts\n\nDana runs the night shift on weekends too.\n"
    )
    await sync_vault(Ingestor(core, root=vault, vault="t", extract_enabled=False))
    evidence = await retrieve(core, "t", "Who runs the night shift?", top_k=4)
    assert len([h for h in evidence.hits if h.path == "Dana.md"]) == 2
    own = [(f.predicate, f.object) for f in evidence.facts if f.chunk_id is None]
    assert sorted(own) == [("HAS_ALIAS", "Dee"), ("HAS_TAG", "#ops"), ("employer", "Acme")]
    built = build_prompt("Who runs the night shift?", evidence, 8192)
    content = str(built.messages[1].content)
    for fact in ("employer | Acme", "HAS_ALIAS | Dee", "HAS_TAG | #ops"):
        cited = re.search(rf"Dana \| {re.escape(fact)} \| \[S(\d+)\]\n", content)
        assert cited is not None and cited.group(1) not in ("1", "2"), (fact, content)
