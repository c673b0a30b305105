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
from knotwork.ingest.sync import sync_vault
from knotwork.retrieve import search
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
