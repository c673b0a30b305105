"""A link's section and display text: kept on its relationship, its section in its fact's key."""

from __future__ import annotations

import unicodedata

from knotwork.cli.printed import note_fact, revision_fact
from knotwork.ingest.chunk import chunk_note
from knotwork.ingest.facts import structural_facts
from knotwork.ingest.parse import parse_note
from knotwork.ingest.revisions import revision
from knotwork.ingest.rows import canonical, fact_rows
from knotwork.models import Fact, stored_fact_key


def _facts(text: str, path: str = "N.md") -> list[Fact]:
    note = parse_note(path, text)
    return structural_facts(note, chunk_note(note, "v", 1200))


def _props(text: str) -> list[dict[str, object]]:
    links, _ = fact_rows(_facts(text), "N.md")
    return [row["props"] for row in links]


def test_a_links_heading_block_and_display_are_kept_only_when_written() -> None:
    text = (
        "See [[Plan#Budget]] and [[Plan#^b1c2]].\n"
        "Read [Budget](Plan.md#Budget) and [[Plan|the plan]], [[Plan]], [Plan](Plan.md).\n"
        "![[Plan#Risks|risks]]\n"
    )
    got = [
        {k: p[k] for k in ("target", "heading", "block", "display") if k in p} for p in _props(text)
    ]
    assert got == [
        {"target": "plan", "heading": "Budget"},
        {"target": "plan", "block": "b1c2"},
        {"target": "plan", "heading": "Budget", "display": "Budget"},
        {"target": "plan", "display": "the plan"},
        {"target": "plan"},
        {"target": "plan"},  # the text is the target: nothing to keep
        {"target": "plan", "heading": "Risks", "display": "risks"},
    ]


def test_a_frontmatter_links_section_is_kept_and_a_heading_composed() -> None:
    decomposed = unicodedata.normalize("NFD", "Résumé")
    props = _props(f'---\nparent: "[[Plan#{decomposed}]]"\n---\n')
    assert props[0]["heading"] == "Résumé" and props[0]["target"] == "plan"
    [fact] = _facts(f'---\nparent: "[[Plan#{decomposed}]]"\n---\n')
    assert canonical(fact).split("|")[2:6] == ["[[plan#Résumé]]", "frontmatter", "2", "parent"]


def test_an_attachments_fragment_is_no_section_of_a_note() -> None:
    _, entities = fact_rows(_facts("![[scan.pdf#page=3]]\n"), "N.md")
    [row] = entities
    assert "heading" not in row["props"] and "display" not in row["props"]


def test_two_sections_of_one_note_on_one_line_are_two_facts_read_back_alike() -> None:
    """The section is part of the key, so [[Plan#Budget]] beside [[Plan#Risks]] is two facts,
    and each reads back from the graph (heading, block) to the key it was written under."""
    facts = _facts("[[Plan#Budget]] [[Plan#Risks]] [[Plan#^b1]] [[Plan]]\n")
    keys = [canonical(f) for f in facts]
    assert len(set(keys)) == 4
    assert keys[0] == f"LINKS_TO||plan#Budget|wikilink|1||{facts[0].chunk_id}"
    assert keys[2] == f"LINKS_TO||plan#^b1|wikilink|1||{facts[2].chunk_id}"
    stored = {"relation": "LINKS_TO", "subject": None, "target": "plan", "extractor": "wikilink",
              "line": 1, "predicate": None, "chunk_id": facts[0].chunk_id}  # fmt: skip
    assert stored_fact_key({**stored, "heading": "Budget", "block": None}) == keys[0]
    assert stored_fact_key({**stored, "heading": None, "block": "b1"}) == keys[2]
    assert stored_fact_key(stored) == keys[3]  # a link without a section, as before


def test_a_changed_section_is_one_fact_removed_and_one_added_a_reworded_display_none() -> None:
    before = [canonical(f) for f in _facts("[[Plan#Budget|the money]] and [[Ann]]\n")]
    after = [canonical(f) for f in _facts("[[Plan#Risks|the money]] and [[Ann]]\n")]
    change = revision("N.md", "upsert", before, after)
    assert [k.split("|")[2] for k in change["removed"]] == ["plan#Budget"]
    assert [k.split("|")[2] for k in change["added"]] == ["plan#Risks"]
    reworded = [canonical(f) for f in _facts("[[Plan#Budget|the budget]] and [[Ann]]\n")]
    assert revision("N.md", "upsert", before, reworded)["removed"] == []


def test_note_and_history_show_the_section_a_link_points_at() -> None:
    fact = {"subject": "N.md", "predicate": "LINKS_TO", "object": "Plan.md", "anchor": "#Budget",
            "object_kind": "note", "extractor": "wikilink", "line": 1}  # fmt: skip
    assert note_fact(fact, "N.md") == "LINKS_TO → Plan.md#Budget (note)  [wikilink, line 1]"
    assert note_fact({**fact, "anchor": None}, "N.md").startswith("LINKS_TO → Plan.md (note)")
    key = "LINKS_TO||plan#^b1|wikilink|1||c1"
    assert revision_fact(key) == "LINKS_TO → plan#^b1  [wikilink, line 1]"
    marked = "HAS_PARENT||[[plan#Budget]]|frontmatter|2|parent|"
    assert revision_fact(marked) == "HAS_PARENT ('parent') → plan#Budget  [frontmatter, line 2]"
