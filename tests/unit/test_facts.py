"""Structural facts from parsed notes: links with inferred relations, frontmatter, tags."""

from __future__ import annotations

import functools
import unicodedata

import pytest

from knotwork.errors import KnotworkError
from knotwork.ingest.chunk import chunk_note
from knotwork.ingest.draft import entity_rows
from knotwork.ingest.extract import Extraction
from knotwork.ingest.facts import note_keys, structural_facts
from knotwork.ingest.parse import parse_note
from knotwork.ingest.rows import canonical, fact_rows, note_props
from knotwork.models import Fact
from knotwork.text.keys import folded, link_key, nfc

_nfd = functools.partial(unicodedata.normalize, "NFD")


def facts_of(text: str, path: str = "N.md") -> list[Fact]:
    note = parse_note(path, text)
    return structural_facts(note, chunk_note(note, "v", 1200))


def test_link_keys_and_note_keys() -> None:
    assert link_key(" People/Alice.md ") == "people/alice"
    assert link_key("./a//B") == "a/b"
    assert note_keys("a/b/Bob.md") == ["bob", "b/bob", "a/b/bob"]


def test_link_rows_keep_the_link_as_written_beside_its_key() -> None:
    """The placeholder of a missing note is shared; each link keeps its own spelling."""
    links, _ = fact_rows(facts_of("N works with [[People/BEN.md|the boss]].\n"), "N.md")
    [row] = links
    assert row["props"]["target"] == "people/ben" and "stem" not in row
    assert row["props"]["target_text"] == "People/BEN"
    assert "target_name" not in row["props"]  # the spelling names the path itself


def test_a_relative_link_keeps_the_link_as_written_and_the_path_it_names() -> None:
    """A relative link is keyed by the path it names from the note's folder, and keeps both
    its own spelling and that path's (the name a missing note's placeholder takes)."""
    text = '---\nparent: "[[../Team/Lead]]"\n---\n'
    text += "[[../People/Alice|Al]] [B](../People/Bob%20B.md) [[./Sub/Note]] [[../../Out]]\n"
    links, _ = fact_rows(facts_of(text, "Projects/X.md"), "Projects/X.md")
    got = [(r["props"]["target"], r["props"]["target_text"], r["props"].get("target_name"))
           for r in links]  # fmt: skip
    assert got == [
        ("team/lead", "../Team/Lead", "Team/Lead"),
        ("people/alice", "../People/Alice", "People/Alice"),
        ("people/bob b", "../People/Bob B", "People/Bob B"),
        ("projects/sub/note", "./Sub/Note", "Projects/Sub/Note"),
        ("../../out", "../../Out", None),  # climbs out of the vault: kept as written
    ]
    # A revision's key is the fact's, as before: the key of the note it names.
    [fact] = facts_of("[[../People/Alice]]\n", "Projects/X.md")
    assert fact.object == "People/Alice" and fact.written == "../People/Alice"
    assert canonical(fact) == canonical(Fact("LINKS_TO", "People/Alice", "note", "wikilink", 1,
                                              fact.chunk_id))  # fmt: skip


def test_a_relation_outside_the_vocabulary_is_refused_at_the_write_boundary() -> None:
    """The write queries make the relation the relationship's type: whatever made the fact,
    a name from input never reaches them."""
    for relation in ("KNOWS]->(x) DETACH DELETE x //", "not_upper", "MADE_UP"):
        bad = Fact(relation, "Ben", "entity", "llm", 1)
        with pytest.raises(KnotworkError, match="not in the vocabulary"):
            fact_rows([bad], "N.md")
    assert fact_rows([Fact("KNOWS", "Ben", "entity", "llm", 1)], "N.md")[1]


def test_links_get_relations_lines_and_chunks() -> None:
    facts = facts_of(
        "# N\n\nN works with [[Alice]] and [[Bob]], reports to [[Carol]].\n"
        "Embeds ![[Diagram]] and ![[photo.png]]; see [[#Local]].\n"
    )
    got = [(f.relation, f.object, f.object_kind, f.line) for f in facts]
    assert ("WORKS_WITH", "Alice", "note", 3) in got
    assert ("WORKS_WITH", "Bob", "note", 3) in got
    assert ("REPORTS_TO", "Carol", "note", 3) in got
    assert ("EMBEDS", "Diagram", "note", 4) in got
    assert ("EMBEDS", "photo.png", "entity", 4) in got, "attachments are not notes"
    assert all(f.object != "" for f in facts), "[[#heading]] is not a fact about another note"
    assert all(f.chunk_id for f in facts if f.extractor == "wikilink")


@pytest.mark.parametrize(
    "name", ["IMG_0001.HEIC", "scan.tiff", "Tasks.base", "clip.ogv", "voice.3gp", "plan.odt"]
)
def test_an_embedded_phone_photo_scan_or_base_is_an_attachment_not_a_missing_note(
    name: str,
) -> None:
    """A vault holds these beside its notes; a link to one is no unresolved note."""
    facts = facts_of(f"# N\n\nHere: ![[{name}]] and [[{name}|it]].\n")
    assert [(f.relation, f.object, f.object_kind) for f in facts] == [
        ("EMBEDS", name, "entity"),
        ("LINKS_TO", name, "entity"),
    ]


def test_a_markdown_link_to_a_picture_or_a_pdf_is_an_attachment_and_one_without_md_a_note() -> None:
    facts = facts_of(
        "# N\n\nHere: ![](photo.png) and [r](files/report.pdf) and [o](Other%20Note).\n"
    )
    assert [(f.relation, f.object, f.object_kind) for f in facts] == [
        ("EMBEDS", "photo.png", "entity"),
        ("LINKS_TO", "report.pdf", "entity"),  # a file by its name (test_attachment_keys)
        ("LINKS_TO", "Other Note", "note"),
    ]


def test_a_note_whose_name_ends_like_a_file_is_still_a_note() -> None:
    facts = facts_of("# N\n\nHere: [[Node.js]], [[v1.2]] and [[Dr. Who]].\n")
    assert [(f.object, f.object_kind) for f in facts] == [
        ("Node.js", "note"),
        ("v1.2", "note"),
        ("Dr. Who", "note"),
    ]


def test_frontmatter_aliases_tags() -> None:
    facts = facts_of(
        "---\nrole: engineer\nruolo: capo\nparticipants: [Ann, Ben]\n"
        'parent: "[[Hub]]"\naliases: [Al]\ntags: [x]\ncolour: blue\n---\nBody #y\n'
    )
    got = {(f.relation, f.object, f.extractor) for f in facts}
    assert {
        ("HAS_ROLE", "engineer", "frontmatter"),
        ("HAS_ROLE", "capo", "frontmatter"),
        ("HAS_PARTICIPANT", "Ann", "frontmatter"),
        ("HAS_PARTICIPANT", "Ben", "frontmatter"),
        ("HAS_PARENT", "Hub", "frontmatter"),
        ("HAS_ALIAS", "Al", "alias"),
        ("HAS_TAG", "#x", "tag"),
        ("HAS_TAG", "#y", "tag"),
        ("HAS_PROPERTY", "blue", "frontmatter"),
    } <= got
    role = next(f for f in facts if f.relation == "HAS_ROLE" and f.object == "engineer")
    assert role.line == 2 and role.predicate == "role"


def test_keys_that_describe_the_note_are_never_facts_nor_relations() -> None:
    """One list of such keys serves the property facts and the relation lookup alike, in the
    case users write them ("Title", "Tags")."""
    from knotwork.text import vocab

    facts = facts_of(
        "---\nTitle: T\ncssclasses: wide\nposition: 3\nPublish: true\nTags: x\n"
        "status: draft\n---\nBody\n"
    )
    assert sorted((f.relation, f.predicate or "", f.object) for f in facts) == [
        ("HAS_STATUS", "status", "draft"),
        ("HAS_TAG", "", "#x"),
    ]
    for key in ("title", "Aliases", "cssclass", "position", "permalink"):
        assert vocab.describes_note(key)
        assert vocab.frontmatter_relation(key) is None
    assert vocab.describes_note("Tags") and vocab.frontmatter_relation("tags") == "HAS_TAG"
    assert not vocab.describes_note("status")


def test_a_tag_fact_points_at_its_use_outside_code_else_at_the_frontmatter() -> None:
    text = "---\ntags: [python]\n---\n# T\n\n```bash\n#python is a comment\n```\nSee #go.\n"
    note = parse_note("T.md", text)
    lines = {
        f.object: f.line
        for f in structural_facts(note, chunk_note(note, "v", 1200))
        if f.extractor == "tag"
    }
    assert lines == {"#python": 2, "#go": 9}


def test_a_frontmatter_fact_points_at_the_line_its_value_is_written_on() -> None:
    """An item of a block list sits on its own line, which a provenance check or a citation
    needs; a flow list's items share their key's line."""
    text = (
        "---\n"
        "aliases:\n  - Off\n  - Site\n"  # lines 2-4
        "tags:\n  - one\n  - '#two'\n"  # 5-7
        "participants:\n  - '[[Alice]]'\n  - '[[Karin]]'\n"  # 8-10
        "owner:\n  Bob\n"  # 11-12
        "topics: [x, y]\n"  # 13
        "---\n# Offsite\n"
    )
    lines = {(f.relation, f.object): f.line for f in facts_of(text)}
    assert lines == {
        ("HAS_ALIAS", "Off"): 3,
        ("HAS_ALIAS", "Site"): 4,
        ("HAS_TAG", "#one"): 6,
        ("HAS_TAG", "#two"): 7,
        ("HAS_PARTICIPANT", "Alice"): 9,
        ("HAS_PARTICIPANT", "Karin"): 10,
        ("HAS_OWNER", "Bob"): 12,
        ("HAS_PROPERTY", "x"): 13,
        ("HAS_PROPERTY", "y"): 13,
    }


def test_names_are_stored_composed_and_the_path_as_the_file_has_it() -> None:
    """A decomposed file name (macOS), title, alias, tag or heading is stored NFC, as the
    full-text index and the note search are searched; the path stays the file's."""
    path = _nfd("Notes/Caf\u00e9.md")
    text = (
        _nfd("---\ntitle: Se\u00f1or\ntags: [caf\u00e9]\naliases: [Jalape\u00f1o, ")
        + "Jalape\u00f1o]\n---\n"
        + _nfd("# Cr\u00e8me\n")
    )
    note = parse_note(path, text)
    props = note_props(note, None)
    assert note.path == path and note.title == _nfd("Se\u00f1or")  # the parse: the file's
    assert props["title"] == props["name"] == "Se\u00f1or"
    assert props["aliases"] == ["Jalape\u00f1o"]  # one per composed spelling
    assert (props["tags"], props["headings"]) == (["caf\u00e9"], ["Cr\u00e8me"])
    assert (props["stem"], props["lpath"]) == ("caf\u00e9", "notes/caf\u00e9")
    _, entities = fact_rows(structural_facts(note, []), path)
    assert {e["object_name"] for e in entities} == {"Jalape\u00f1o", "#caf\u00e9"}
    assert all(e["props"]["source"] == path for e in entities)
    triple = Fact("LEADS", _nfd("Jos\u00e9"), "entity", "llm", 1, subject=_nfd("Ren\u00e9"))
    [row] = fact_rows([triple], path)[1]
    assert (row["subject_name"], row["object_name"]) == ("Ren\u00e9", "Jos\u00e9")


def test_the_names_of_a_chunks_entities_are_stored_composed() -> None:
    extraction = Extraction.model_validate(
        {"entities": [{"name": _nfd("Z\u00fcrich")}], "triples": []}
    )
    [row] = entity_rows("c1", extraction)
    assert (row["key"], row["name"]) == ("z\u00fcrich", "Z\u00fcrich")
    assert nfc("plain") == "plain" and nfc("e\u0301") == "\u00e9"


def test_names_and_tags_are_kept_case_folded_for_the_note_search() -> None:
    """Cypher's toLower keeps "ß" and a final "ς", so a search for "GRÖSSE" (folded: "grösse")
    compares with the note's names and tags folded in Python (notes_search.cypher)."""
    text = "---\ntitle: Die Größe\naliases: [ΟΔΟΣ]\ntags: [Straße/Ost]\n---\n#" + _nfd("été\n")
    props = note_props(parse_note(_nfd("Deutsch/Größe.md"), text), None)
    assert props["fnames"] == ["die grösse", "grösse", "οδοσ"]
    assert props["ftags"] == ["strasse/ost", "\u00e9t\u00e9"]
    assert folded("GRÖSSE") == folded("Grösse") == "grösse" and folded("ABC") == "abc"
    assert folded(_nfd("ΐ")) == "\u0390"  # folded, then composed again
