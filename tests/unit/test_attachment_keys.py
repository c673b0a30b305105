"""An attachment is one file entity however a note links to it: keyed by its file name (as
Obsidian finds ``![[photo.png]]`` anywhere in the vault), case-folded and composed as other
entity keys are, while each link keeps the path its note writes."""

from __future__ import annotations

import unicodedata

import pytest

from knotwork.ingest.chunk import chunk_note
from knotwork.ingest.facts import structural_facts
from knotwork.ingest.parse import attachment_name, parse_note
from knotwork.ingest.rows import canonical, fact_rows
from knotwork.models import Fact, stored_fact_key


def _entity_rows(text: str, path: str = "Notes/N.md") -> list[tuple[str, str, str | None]]:
    """(key, name, target_text) of each entity row the note's links give."""
    note = parse_note(path, text)
    _, entities = fact_rows(structural_facts(note, chunk_note(note, "v", 1200)), path)
    return [
        (row["props"]["target"], row["object_name"], row["props"].get("target_text"))
        for row in entities
    ]


@pytest.mark.parametrize(
    ("target", "name"),
    [
        ("photo.png", "photo.png"),
        ("attachments/photo.png", "photo.png"),
        ("a/b/c/Photo.PNG", "Photo.PNG"),
        ("..\\img\\photo.png", "photo.png"),
        ("img/ my photo.png ", "my photo.png"),
    ],
)
def test_an_attachments_name_is_its_last_path_component(target: str, name: str) -> None:
    assert attachment_name(target) == name


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("![[photo.png]]", "photo.png"),
        ("![](attachments/photo.png)", "attachments/photo.png"),
        ("[[attachments/photo.png]]", "attachments/photo.png"),
        ("![[photo.png|300]]", "photo.png"),  # Obsidian's size after the bar is no name
        ("![[Photo.PNG]]", "Photo.PNG"),  # one file on a case-insensitive disk
        ("![](./photo.png)", "./photo.png"),  # resolved from Notes/, kept as written
        ("![](../img/photo.png)", "../img/photo.png"),
        ("[[../../out/photo.png]]", "../../out/photo.png"),  # climbs out: kept as written
        ("![x](<img/photo.png> 'a title')", "img/photo.png"),
        ("![](img/photo.png?v=2)", "img/photo.png"),  # a query names no file
    ],
)
def test_every_form_of_a_link_to_one_picture_names_one_entity(text: str, written: str) -> None:
    name = "Photo.PNG" if "Photo" in text else "photo.png"  # the file name as the link writes it
    assert _entity_rows(f"# N\n\nSee {text} here.\n") == [("photo.png", name, written)]


def test_a_pdf_page_a_percent_encoded_path_and_a_frontmatter_link_name_the_file() -> None:
    text = (
        '---\ncover: "[[img/Cover.jpg]]"\n---\n'
        "![[doc.pdf#page=3]] [p](files/doc.pdf#page=4) ![](my%20photo.png)\n"
        "![](files/My%20Photo.png)\n"
    )
    assert _entity_rows(text) == [
        ("cover.jpg", "Cover.jpg", "img/Cover.jpg"),
        ("doc.pdf", "doc.pdf", "doc.pdf"),  # the fragment is no part of the file
        ("doc.pdf", "doc.pdf", "files/doc.pdf"),
        ("my photo.png", "my photo.png", "my photo.png"),
        ("my photo.png", "My Photo.png", "files/My Photo.png"),
    ]


def test_a_decomposed_file_name_is_keyed_composed() -> None:
    """A macOS file name is decomposed: the key and the name are composed, the link's path is
    the note's."""
    nfd = unicodedata.normalize("NFD", "Café.png")
    [(key, name, written)] = _entity_rows(f"![[pics/{nfd}]]\n")
    assert (key, name) == ("café.png", "Café.png") and written == f"pics/{nfd}"


def test_the_revision_key_is_the_files_and_reads_back_from_the_stored_relationship() -> None:
    """Two spellings of one file on one line are one fact for history, as two spellings of one
    note are; a frontmatter link to it is recorded as a link (``[[key]]``)."""
    [a] = structural_facts(parse_note("N.md", "![[photo.png]]\n"), [])
    [b] = structural_facts(parse_note("N.md", "![](a/Photo.PNG)\n"), [])
    assert canonical(a) == canonical(b) == "EMBEDS||photo.png|wikilink|1||"
    [fm] = structural_facts(parse_note("N.md", '---\ncover: "[[a/p.png]]"\n---\n'), [])
    stored = {"relation": fm.relation, "subject": None, "target": "p.png", "extractor":
              "frontmatter", "line": 2, "predicate": "cover", "chunk_id": None,
              "target_text": "a/p.png"}  # fmt: skip
    assert (
        canonical(fm) == stored_fact_key(stored) == f"{fm.relation}||[[p.png]]|frontmatter|2|cover|"
    )


def test_other_entity_facts_keep_no_spelling() -> None:
    """A plain frontmatter value that happens to be a file name is no link: keyed whole."""
    value = Fact("HAS_PROPERTY", "img/photo.png", "entity", "frontmatter", 2, predicate="file")
    [row] = fact_rows([value], "N.md")[1]
    assert row["props"]["target"] == "img/photo.png" and "target_text" not in row["props"]
