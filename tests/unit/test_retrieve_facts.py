"""The facts beside the evidence: chosen from the cited chunks' facts in Cypher's order."""

from __future__ import annotations

from typing import Any

from knotwork.retrieve.pipeline import MAX_FACTS, _facts


def _fact(source: str | None, line: int | None, predicate: str) -> dict[str, Any]:
    return {
        "subject": "s",
        "predicate": predicate,
        "object": "o",
        "source": source,
        "extractor": "wikilink",
        "confidence": None,
        "line": line,
        "chunk_id": "c",
    }


def test_facts_sort_by_source_line_predicate_with_missing_values_last() -> None:
    rows = [
        _fact("b.md", 3, "LINKS_TO"),
        _fact("a.md", None, "TAGGED"),
        _fact("a.md", 7, "LINKS_TO"),
        _fact("a.md", 7, "HAS_ALIAS"),
        _fact("a.md", 2, "LINKS_TO"),
    ]
    got = [(f.source, f.line, f.predicate) for f in _facts(rows)]
    assert got == [
        ("a.md", 2, "LINKS_TO"),
        ("a.md", 7, "HAS_ALIAS"),
        ("a.md", 7, "LINKS_TO"),
        ("a.md", None, "TAGGED"),
        ("b.md", 3, "LINKS_TO"),
    ]
    assert _facts(rows)[0].confidence == 1.0


def test_facts_are_bounded() -> None:
    rows = [_fact("a.md", i, "LINKS_TO") for i in range(MAX_FACTS + 10, 0, -1)]
    facts = _facts(rows)
    assert len(facts) == MAX_FACTS and [f.line for f in facts] == list(range(1, MAX_FACTS + 1))
