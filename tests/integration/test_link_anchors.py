"""A link to a section ([[Plan#Budget]]) on the real Neo4j: the relationship keeps the section,
an edit of the section alone leaves no stale fact and a revision that says so, and a walk that
follows the link offers the section's chunk of the note it reaches, not the note's opening."""

from __future__ import annotations

from pathlib import Path

from knotwork.core import Core
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from knotwork.retrieve import search
from knotwork.retrieve.graphrank import walk_ranking
from knotwork.retrieve.notes import note_detail, note_history
from knotwork.retrieve.types import HopPath
from knotwork.retrieve.walk import walk_scored
from tests.integration.conftest import ad_hoc, put, stale_revisions

PLAN = (
    "# Plan\n\nThe plan opens with an overview of the year's goals and who owns them.\n\n"
    "## Risks\n\nSuppliers may be late and the crane may not be free in March.\n\n"
    "## Budget\n\nThe budget is forty thousand euros, half of it for the crane.\n\n"
    "## Crane hire\n\nThe crane is hired by the week from the harbour company.\n"
)


async def _links(core: Core, path: str) -> list[dict[str, object]]:
    """The link relationships ``path`` asserts, with what they keep of the link."""
    return await ad_hoc(
        core,
        "MATCH (:Note {vault: $vault, path: $path})-[r]->(o:Note) WHERE r.extractor = 'wikilink' "
        "RETURN o.path AS to, r.heading AS heading, r.block AS block, r.display AS display "
        "ORDER BY r.line, r.heading",
        {"vault": core.settings.vault_name, "path": path},
    )


async def test_a_links_section_is_kept_and_an_edit_of_it_leaves_no_stale_fact(
    core: Core, vault: Path
) -> None:
    put(vault, "Plan.md", PLAN)
    put(vault, "Memo.md", "# Memo\n\nCosts follow [[Plan#Budget]].\nSee [[Plan|the plan]].\n")
    name = core.settings.vault_name
    ingestor = Ingestor(core, root=vault, vault=name, extract_enabled=False)
    await sync_vault(ingestor)
    assert await _links(core, "Memo.md") == [
        {"to": "Plan.md", "heading": "Budget", "block": None, "display": None},
        {"to": "Plan.md", "heading": None, "block": None, "display": "the plan"},
    ]
    facts = (await note_detail(core, "Memo.md"))["facts"]
    assert [(f["object"], f["anchor"]) for f in facts if f["object_kind"] == "note"] == [
        ("Plan.md", "#Budget"),
        ("Plan.md", None),
    ]

    put(vault, "Memo.md", "# Memo\n\nCosts follow [[Plan#Risks]].\nSee [[Plan|the plan]].\n")
    await ingestor.upsert_path("Memo.md")
    assert await _links(core, "Memo.md") == [
        {"to": "Plan.md", "heading": "Risks", "block": None, "display": None},
        {"to": "Plan.md", "heading": None, "block": None, "display": "the plan"},
    ]
    latest, first = await note_history(core, "Memo.md")
    assert [k.split("|")[2] for k in latest["removed"]] == ["plan#Budget"]
    assert [k.split("|")[2] for k in latest["added"]] == ["plan#Risks"]
    assert {k.split("|")[2] for k in first["added"]} >= {"plan#Budget", "plan"}
    assert await stale_revisions(core, name) == {}

    # Two sections of one note on one line are two facts; dropping one removes only it.
    put(vault, "Memo.md", "# Memo\n\nCosts: [[Plan#Risks]] and [[Plan#^b1]].\n")
    await ingestor.upsert_path("Memo.md")
    put(vault, "Memo.md", "# Memo\n\nCosts: [[Plan#Risks]].\n")
    await ingestor.upsert_path("Memo.md")
    latest, added = (await note_history(core, "Memo.md"))[:2]
    assert [k.split("|")[2] for k in added["added"]] == ["plan#^b1"]  # Risks stays, on line 3
    assert [k.split("|")[2] for k in added["removed"]] == ["plan"]
    assert [k.split("|")[2] for k in latest["removed"]] == ["plan#^b1"]
    assert latest["added"] == []
    assert await _links(core, "Memo.md") == [
        {"to": "Plan.md", "heading": "Risks", "block": None, "display": None}
    ]
    assert await stale_revisions(core, name) == {}


async def test_a_walk_along_a_link_to_a_section_offers_that_sections_chunk(
    core: Core, vault: Path
) -> None:
    put(vault, "Plan.md", PLAN)
    put(vault, "Memo.md", "# Memo\n\nCosts follow [[Plan#budget]] this year.\n")
    put(vault, "Note.md", "# Note\n\nAn aside on [[Plan]].\n")
    put(vault, "Hire.md", "# Hire\n\nBooked as [planned](Plan.md#crane-hire).\n")  # GitHub's slug
    name = core.settings.vault_name
    await sync_vault(Ingestor(core, root=vault, vault=name, extract_enabled=False))
    chunks = await ad_hoc(
        core,
        "MATCH (:Note {vault: $vault, path: 'Plan.md'})-[:HAS_CHUNK]->(c) "
        "RETURN c.heading_path AS heading, c.id AS id ORDER BY c.ord",
        {"vault": name},
    )
    by_heading = {c["heading"].rpartition(" > ")[2]: c["id"] for c in chunks}
    budget, opening = by_heading["Budget"], chunks[0]["id"]
    qvec = list(await core.embedder.aget_query_embedding("What does the plan cost?"))

    async def offered(seed: str, embedding: list[float] | None) -> list[str]:
        """The chunks of Plan.md the walk from ``seed`` offers, scored in the walk's own query
        and (a kept walk's second round trip) by walk_scores: both alike."""
        [named] = await search.named_notes(core.store, name, seed, 4)
        seeds = {named.node: f"note:{seed}.md"}
        walked, scores = await walk_scored(core.store, seeds, 1, None, False, None, (), embedding)
        paths: dict[str, HopPath] = {}
        ranked = await walk_ranking(core, name, walked, embedding, paths, scores)
        assert ranked == await walk_ranking(core, name, walked, embedding, {})
        return [c for c, _ in ranked if c in by_heading.values()]

    # The link names Budget (its case aside): that section is what the walk offers of Plan.
    assert await offered("Memo", None) == [budget]
    assert await offered("Memo", qvec) == [budget]
    # A Markdown link names the section as GitHub spells it: "crane-hire" is "Crane hire".
    assert await offered("Hire", None) == [by_heading["Crane hire"]]
    # A link to the whole note offers its opening when nothing else tells its chunks apart.
    assert await offered("Note", None) == [opening]
