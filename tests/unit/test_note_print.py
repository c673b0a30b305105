"""How ``knotwork note`` prints a fact: a model fact about an entity the note names shows that
entity as its subject, as ``history`` does; it never reads as the note's own."""

from __future__ import annotations

from typing import Any

from knotwork.cli.printed import note_fact


def fact(subject: str, predicate: str, obj: str, kind: str, extractor: str) -> dict[str, Any]:
    return {"subject": subject, "predicate": predicate, "object": obj, "object_kind": kind,
            "extractor": extractor, "line": 12}  # fmt: skip


def test_a_fact_about_another_subject_shows_it_first() -> None:
    about = fact("Kubernetes", "DEPENDS_ON", "Postgres", "entity", "llm")
    shown = note_fact(about, "People/Alice.md")
    assert shown == "Kubernetes DEPENDS_ON → Postgres (entity)  [llm, line 12]"


def test_the_notes_own_fact_shows_no_subject() -> None:
    link = fact("People/Alice.md", "WORKS_WITH", "People/Bob.md", "note", "wikilink")
    shown = note_fact(link, "People/Alice.md")
    assert shown == "WORKS_WITH → People/Bob.md (note)  [wikilink, line 12]"
