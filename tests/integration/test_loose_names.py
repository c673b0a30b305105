"""Notes named loosely, on the real Neo4j: a question names a note by its title's content
words without its parenthetical parts, unless another note bears that name exactly."""

from __future__ import annotations

from pathlib import Path

from knotwork.core import Core
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from knotwork.retrieve import retrieve, search
from tests.integration.conftest import put

NOTES = {
    "multiplexer (MUX).md": "Sceglie uno fra più ingressi secondo i bit di selezione.\n",
    "demultiplexer (DEMUX).md": "Manda l'ingresso su una fra più uscite.\n",
    "flip-flop.md": "Elemento di memoria sincronizzato dal clock.\n",
    "flip-flop (JK).md": "Il flip-flop con ingressi J e K.\n",
    "proprietà e tipi di relazioni.md": "## equivalenza\n\nRiflessiva, simmetrica, transitiva.\n",
    "relazione.md": "Un sottoinsieme del prodotto cartesiano.\n",
    "funzione.md": "Associa a ogni argomento un valore.\n",
    "funzione calcolabile.md": "Una funzione che un algoritmo calcola.\n",
    "Il teorema.md": "Una nota dal titolo generico.\n",
}


async def _named(core: Core, question: str) -> list[str]:
    notes = await search.vault_notes(core.store, "t")
    return [n.path for n in await search.named_notes(core.store, "t", question, notes)]


async def test_a_question_names_notes_by_their_titles_content_words(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    for path, text in NOTES.items():
        put(vault, path, text)
    await sync_vault(ingestor)
    named = await _named(core, "Che differenza c'è tra multiplexer e demultiplexer?")
    assert sorted(named) == ["demultiplexer (DEMUX).md", "multiplexer (MUX).md"]
    # Stop words between the title's words do not break the name; the longer name comes first.
    named = await _named(core, "Tra le proprietà e i tipi di relazioni, quando è un'equivalenza?")
    assert named[0] == "proprietà e tipi di relazioni.md"
    # A name inside a longer one the question also holds does not count on its own.
    assert await _named(core, "Quando una funzione è calcolabile?") == ["funzione calcolabile.md"]
    # "flip-flop" is flip-flop.md's own name: flip-flop (JK) is not named by it too.
    assert await _named(core, "Che cosa sono i flip-flop?") == ["flip-flop.md"]
    # One content word left by dropping stop words is no name: "teorema" is everywhere.
    assert await _named(core, "Che cosa dice ogni teorema?") == []
    evidence = await retrieve(core, "t", "Che cosa fa il multiplexer?", top_k=3)
    assert "names" in evidence.hits[0].retrievers
    assert evidence.hits[0].path == "multiplexer (MUX).md"


async def test_a_new_title_replaces_the_loose_name(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    put(vault, "multiplexer (MUX).md", NOTES["multiplexer (MUX).md"])
    await sync_vault(ingestor)
    assert await _named(core, "Come funziona un multiplexer?") == ["multiplexer (MUX).md"]
    put(
        vault,
        "multiplexer (MUX).md",
        "---\ntitle: selettore\n---\n" + NOTES["multiplexer (MUX).md"],
    )
    await ingestor.upsert_path("multiplexer (MUX).md")
    assert await _named(core, "Come funziona un multiplexer?") == []
    assert await _named(core, "Come funziona un selettore?") == ["multiplexer (MUX).md"]
