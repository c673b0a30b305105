"""One renderer for a fact's key: facts about to be written and facts read back agree."""

from __future__ import annotations

from knotwork.ingest.mentions import canonical as mention_key
from knotwork.ingest.revisions import revision
from knotwork.ingest.rows import canonical
from knotwork.models import Fact, fact_key, stored_fact_key


def test_a_written_fact_and_the_same_fact_read_back_have_one_key() -> None:
    fact = Fact(
        relation="WORKS_WITH",
        subject="Ann",
        object="team|Ben",
        object_kind="note",
        extractor="wikilink",
        line=3,
        chunk_id="c1",
        predicate="works with",
    )
    stored = {
        "relation": "WORKS_WITH",
        "subject": "ann",
        "target": "team|ben",
        "extractor": "wikilink",
        "line": 3,
        "predicate": "works with",
        "chunk_id": "c1",
    }
    assert canonical(fact) == stored_fact_key(stored)
    mention = {"relation": "MENTIONS", "subject": None, "target": "ben", "extractor": "mention"}
    assert mention_key("ben", 4, "c2") == stored_fact_key(
        {**mention, "line": 4, "predicate": None, "chunk_id": "c2"}
    )


def test_a_frontmatter_link_and_an_alias_keep_what_the_note_wrote_read_back_alike() -> None:
    """A frontmatter link's key says it is a link (``[[key]]``), which a plain value under the
    same key is not; an alias's holds it as written. Both read back from what the graph stores
    (``target_text``)."""
    base = {"subject": None, "extractor": "frontmatter", "line": 2, "chunk_id": None}
    link = Fact("HAS_OWNER", "Dana", "note", "frontmatter", 2, predicate="owner")
    value = Fact("HAS_OWNER", "Dana", "entity", "frontmatter", 2, predicate="owner")
    stored = {**base, "relation": "HAS_OWNER", "target": "dana", "predicate": "owner"}
    assert canonical(link) == stored_fact_key({**stored, "target_text": "Dana"})
    assert canonical(link) == "HAS_OWNER||[[dana]]|frontmatter|2|owner|"
    assert canonical(value) == stored_fact_key({**stored, "target_text": None})
    assert canonical(value) == "HAS_OWNER||dana|frontmatter|2|owner|"
    alias = Fact("HAS_ALIAS", "Ali", "entity", "alias", 3)
    read = {**base, "relation": "HAS_ALIAS", "target": "ali", "extractor": "alias", "line": 3}
    assert canonical(alias) == stored_fact_key({**read, "predicate": None, "target_text": "Ali"})
    assert canonical(alias) == "HAS_ALIAS||Ali|alias|3||"


def test_an_alias_kept_as_written_is_no_change_from_its_key() -> None:
    """A note written before aliases kept their spelling lists no alias change when next
    written; an alias added or removed is still listed."""
    old = fact_key("HAS_ALIAS", None, "ali", "alias", 3, None, None)
    new = canonical(Fact("HAS_ALIAS", "Ali", "entity", "alias", 3))
    assert revision("A.md", "upsert", [old], [new])["added"] == []
    assert revision("A.md", "upsert", [old], [new])["removed"] == []
    other = canonical(Fact("HAS_ALIAS", "Bo", "entity", "alias", 4))
    assert revision("A.md", "upsert", [old], [new, other])["added"] == [other]


def test_aliases_differing_only_in_case_list_no_change_after_rules_16() -> None:
    """Under rules 15 a note's case variants of one alias had one key (``facts_of`` reads the
    graph's keys as a set); under 16 each keeps its spelling: written again, the note lists no
    change. A new alias still lists each spelling, and a fact asserted in two chunks twice."""
    old = [fact_key("HAS_ALIAS", None, "robert", "alias", 2, None, None)]
    names = ("Robert", "ROBERT", "robert")
    new = [canonical(Fact("HAS_ALIAS", name, "entity", "alias", 2)) for name in names]
    assert revision("Bob.md", "upsert", old, new)["added"] == []
    assert revision("Bob.md", "upsert", new, old)["removed"] == []
    assert revision("Bob.md", "upsert", new, new)["added"] == []
    bobby = [
        canonical(Fact("HAS_ALIAS", name, "entity", "alias", 3)) for name in ("Bobby", "BOBBY")
    ]
    assert revision("Bob.md", "upsert", old, new + bobby)["added"] == sorted(bobby)
    link = fact_key("WORKS_WITH", "bob", "ann", "wikilink", 4, None, "c1")
    twice = [link, link.replace("|c1", "|c2")]
    assert revision("Bob.md", "upsert", [link], twice)["added"] == [twice[1]]
