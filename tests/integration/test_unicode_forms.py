"""Notes written in either Unicode form on the real Neo4j: a note typed or pasted decomposed
(NFD: macOS, Vietnamese or pointed Hebrew in keyboard order) is searched, linked and mentioned
as the composed words a question or another note writes, while its lines and its file hash
stay the file's."""

from __future__ import annotations

import hashlib
import unicodedata
from pathlib import Path

from knotwork.check.verify import snapshot, verify_vault
from knotwork.core import Core
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.rows import FACTS_VERSION
from knotwork.ingest.sync import sync_vault
from knotwork.retrieve import search
from knotwork.retrieve.graphrank import entity_seeds
from knotwork.retrieve.notes import search_notes
from knotwork.retrieve.pipeline import retrieve
from knotwork.retrieve.types import Filters
from tests.integration.conftest import ad_hoc, put

# Written decomposed: each accent a combining mark after its letter.
DECOMPOSED = unicodedata.normalize(
    "NFD",
    "# Caf\u00e9 notes\n\nOur na\u00efve barista keeps a r\u00e9sum\u00e9 of every roast.\n",
)
COMPOSED = "# Desserts\n\nThe cr\u00e8me br\u00fbl\u00e9e is caramelised with a torch.\n"


async def _top(core: Core, question: str) -> list[str]:
    """The note paths of the full-text hits of ``question``, best first."""
    hits = await search.fulltext(core.store, "t", question, 5)
    rows = await ad_hoc(
        core,
        "UNWIND $ids AS id MATCH (c:Chunk {id: id}) RETURN c.note_path AS path",
        {"ids": [h for h, _ in hits]},
    )
    return [r["path"] for r in rows]


async def test_a_decomposed_note_is_found_by_a_composed_question_and_the_reverse(
    core: Core, vault: Path
) -> None:
    assert not unicodedata.is_normalized("NFC", DECOMPOSED)
    put(vault, "Barista.md", DECOMPOSED)
    put(vault, "Desserts.md", COMPOSED)
    ingestor = Ingestor(core, root=vault, vault="t", extract_enabled=False)
    await sync_vault(ingestor)

    assert (await _top(core, "the na\u00efve r\u00e9sum\u00e9"))[:1] == ["Barista.md"]
    assert (await _top(core, "caf\u00e9"))[:1] == ["Barista.md"]  # its heading, composed
    decomposed_question = unicodedata.normalize("NFD", "cr\u00e8me br\u00fbl\u00e9e")
    assert (await _top(core, decomposed_question))[:1] == ["Desserts.md"]

    # What is indexed is composed; the lines and the note's hash are the file's.
    [chunk] = await ad_hoc(
        core,
        "MATCH (n:Note {vault: 't', path: 'Barista.md'})-[:HAS_CHUNK]->(c) "
        "RETURN c.text AS text, c.heading_path AS heading, c.line_start AS first, "
        "c.line_end AS last, n.content_hash AS hash",
    )
    assert chunk["text"] == unicodedata.normalize("NFC", DECOMPOSED).strip()
    assert (chunk["heading"], chunk["first"], chunk["last"]) == ("Caf\u00e9 notes", 1, 3)
    raw = (vault / "Barista.md").read_bytes()
    assert chunk["hash"] == hashlib.sha256(raw).hexdigest()
    again = await sync_vault(ingestor)
    assert (again.written, again.unchanged) == (0, 2)
    assert await verify_vault(ingestor) == []


async def test_a_decomposed_link_or_mention_names_a_composed_note_and_the_reverse(
    core: Core, vault: Path
) -> None:
    """Links and names are keyed composed (text/keys.py): a link or a name written in either
    form names the note whose file name is in the other."""
    brulee = "Cr\u00e8me br\u00fbl\u00e9e"
    flan = unicodedata.normalize("NFD", "Fl\u00e0n")
    put(vault, f"{brulee}.md", COMPOSED)  # a composed file name, as Linux and Windows write it
    put(vault, f"{flan}.md", "# Flan\n\nEggs and milk.\n")  # decomposed, as macOS writes it
    nfd = unicodedata.normalize("NFD", brulee)
    put(vault, "Menu.md", f"# Menu\n\nWe serve [[{nfd}]].\n\nAsk about the {nfd} first.\n")
    put(vault, "Cart.md", "# Cart\n\nTonight: [[Fl\u00e0n]].\n\nThe fl\u00e0n sold out.\n")
    await sync_vault(Ingestor(core, root=vault, vault="t", extract_enabled=False))

    facts = (await snapshot(core.store, "t"))["facts"]
    for source, target in (("Menu.md", f"{brulee}.md"), ("Cart.md", f"{flan}.md")):
        named = [f for f in facts if f"|note:{source}|note:{target}|" in f]
        assert any("|wikilink|" in f for f in named), (source, facts)
        assert any("|mention|" in f for f in named), (source, facts)
    assert not any("unresolved:" in f for f in facts), facts


def _nfd(text: str) -> str:
    return unicodedata.normalize("NFD", text)


async def _names_vault(core: Core, vault: Path) -> Ingestor:
    """A decomposed file name (as macOS writes one), a decomposed frontmatter title and alias,
    and a composed file name: each found by a search in the other form."""
    put(vault, _nfd("Caf\u00e9.md"), "# Menu\n\nEspresso and tea.\n")
    frontmatter = (
        "---\ntitle: Se\u00f1or Ant\u00f3nio\naliases: [Jalape\u00f1o Poppers]\n"
        "tags: [caf\u00e9]\n---\n"
    )
    put(vault, "Barista.md", _nfd(frontmatter) + "# Barista\n\nHe roasts the beans on Mondays.\n")
    put(vault, "Cr\u00e8me.md", "# Cream\n\nWhipped, never boiled.\n")
    ingestor = Ingestor(core, root=vault, vault=core.settings.vault_name, extract_enabled=False)
    await sync_vault(ingestor)
    return ingestor


async def test_a_notes_names_are_searched_in_either_unicode_form(core: Core, vault: Path) -> None:
    """search_notes (the MCP tool ``search_notes``): names are stored composed, the search
    text is composed; the path stays the file's, byte for byte."""
    await _names_vault(core, vault)

    async def found(text: str | None = None, tag: str | None = None) -> list[str]:
        return [r["path"] for r in await search_notes(core, text, tag=tag)]

    assert await found("caf\u00e9") == [_nfd("Caf\u00e9.md")]  # a decomposed file name
    assert await found(_nfd("cr\u00e8me")) == ["Cr\u00e8me.md"]  # a decomposed search
    assert await found("se\u00f1or") == ["Barista.md"]  # a decomposed title
    assert await found("jalape\u00f1o") == ["Barista.md"]  # a decomposed alias
    assert await found(_nfd("JALAPE\u00d1O")) == ["Barista.md"]
    assert await found(tag="caf\u00e9") == ["Barista.md"]  # a decomposed tag
    [barista] = [r for r in await search_notes(core, "barista")]
    assert barista["title"] == "Se\u00f1or Ant\u00f3nio"  # shown composed: it looks the same
    assert barista["aliases"] == ["Jalape\u00f1o Poppers"]


async def test_a_question_names_a_decomposed_title_or_alias_written_composed(
    core: Core, vault: Path
) -> None:
    """The named-notes retriever and the entity-name full-text fallback, in either form."""
    ingestor = await _names_vault(core, vault)
    v = ingestor.vault

    async def named(question: str) -> list[str]:
        return [n.path for n in await search.named_notes(core.store, v, question, 3)]

    assert await named("What does Se\u00f1or Ant\u00f3nio roast?") == ["Barista.md"]
    assert await named("Who makes the jalape\u00f1o poppers?") == ["Barista.md"]
    assert await named(_nfd("What is in the cr\u00e8me?")) == ["Cr\u00e8me.md"]
    assert await named("What is served at the caf\u00e9?") == [_nfd("Caf\u00e9.md")]
    # A keyword that is no entity's whole name: only the full-text index finds the alias.
    for keyword in ("jalape\u00f1o", _nfd("jalape\u00f1o")):
        seeds = await entity_seeds(core, v, "Who keeps it?", [keyword])
        assert "entity:jalape\u00f1o poppers" in seeds.values(), keyword
    [entity] = await ad_hoc(
        core, "MATCH (e:Entity {key: 'jalape\u00f1o poppers'}) RETURN e.name AS name"
    )
    assert entity["name"] == "Jalape\u00f1o Poppers"
    assert await verify_vault(ingestor) == []


async def test_a_question_typed_decomposed_retrieves_what_the_composed_one_does(
    core: Core, vault: Path
) -> None:
    """A question pasted decomposed (a name copied from a macOS file name) is embedded and
    scored as the composed question: the chunks are stored composed, so the decomposed bytes
    embedded as they came scored another cosine, and a question answerable composed could be
    turned away as insufficient."""
    ingestor = await _names_vault(core, vault)
    question = "Who is Se\u00f1or Ant\u00f3nio, and when does he roast the beans?"
    composed = await retrieve(core, ingestor.vault, question, top_k=3)
    decomposed = await retrieve(core, ingestor.vault, _nfd(question), top_k=3)
    assert composed.hits and "vector" in composed.hits[0].retrievers
    assert [(h.id, h.retrievers) for h in decomposed.hits] == [
        (h.id, h.retrievers) for h in composed.hits
    ]
    assert decomposed.relevance == composed.relevance


async def test_names_stored_decomposed_before_are_composed_on_the_next_sync(
    core: Core, vault: Path
) -> None:
    """A graph written before names were stored NFC (an older FACTS_VERSION): the next sync
    rewrites every note, and an entity keeps its first name, so its write composes it."""
    ingestor = await _names_vault(core, vault)
    [old] = await ad_hoc(
        core,
        "MATCH (n:Note) WHERE n.content_hash IS NOT NULL "
        "SET n.facts_version = $old, n.title = $title, n.aliases = [$alias] "
        "REMOVE n.fnames, n.ftags "  # kept since FACTS_RULES 15
        "WITH count(n) AS notes MATCH (e:Entity {key: 'jalape\u00f1o poppers'}) "
        "SET e.name = $alias RETURN elementId(e) AS id",
        {
            "old": FACTS_VERSION - 1,
            "title": _nfd("Se\u00f1or"),
            "alias": _nfd("Jalape\u00f1o Poppers"),
        },
        write=True,
    )
    assert await search_notes(core, "jalape\u00f1o") == []  # as the old graph held them
    report = await sync_vault(ingestor)
    assert report.written == 3
    assert [r["path"] for r in await search_notes(core, "jalape\u00f1o")] == ["Barista.md"]
    [entity] = await ad_hoc(
        core,
        "MATCH (e:Entity {key: 'jalape\u00f1o poppers'}) RETURN e.name AS name, elementId(e) AS id",
    )
    assert entity == {"name": "Jalape\u00f1o Poppers", "id": old["id"]}  # composed in place


async def test_a_folder_filter_finds_a_decomposed_folder_typed_composed_and_the_reverse(
    core: Core, vault: Path
) -> None:
    """macOS may store a folder's name decomposed; a user types it composed (or the reverse).
    Note search and the retrieval filters compare both composed; the path stays the file's."""
    folder = _nfd("Caf\u00e9")
    put(vault, f"{folder}/Menu.md", "# Menu\n\nEspresso and a croissant every morning.\n")
    put(vault, "Cafeteria/Menu.md", "# Menu\n\nEspresso from the machine at noon.\n")
    v = core.settings.vault_name
    await sync_vault(Ingestor(core, root=vault, vault=v, extract_enabled=False))

    for typed in ("Caf\u00e9", folder, "Caf\u00e9/"):
        found = [r["path"] for r in await search_notes(core, folder=typed)]
        assert found == [f"{folder}/Menu.md"], typed  # the stored path, as the file's
        evidence = await retrieve(core, v, "espresso morning", 5, filters=Filters(folder=typed))
        assert {h.path for h in evidence.hits} == {f"{folder}/Menu.md"}, typed
