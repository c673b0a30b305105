"""One renderer for a fact's key: facts about to be written and facts read back agree."""

from __future__ import annotations

from knotwork.ingest.mentions import canonical as mention_key
from knotwork.ingest.rows import canonical
from knotwork.models import Fact, stored_fact_key


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
