"""A note's other name in parentheses, on the real Neo4j: "master-slave latch (o flip-flop SR
master-slave)" is named by "flip-flop SR master-slave", which flip-flop.md's shorter name
inside it does not take; a disambiguator such as "(città)" names nothing."""

from __future__ import annotations

from pathlib import Path

from knotwork.core import Core
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from knotwork.retrieve import retrieve, search
from tests.integration.conftest import put
from tests.integration.test_mentions import assert_fresh, mentions, pairs

LATCH = "master-slave latch (o flip-flop SR master-slave).md"


async def _vault(vault: Path, ingestor: Ingestor) -> None:
    put(
        vault,
        LATCH,
        "Due latch in cascata: il master segue l'ingresso mentre il clock è alto, lo slave "
        "copia il master quando il clock scende.\n",
    )
    put(vault, "flip-flop.md", "Un elemento di memoria sincronizzato dal clock.\n")
    put(vault, "Roma (città).md", "La capitale d'Italia.\n")
    put(vault, "Kubernetes (K8s).md", "Orchestra i container.\n")
    put(vault, "Appunti.md", "Ripasso il flip-flop SR master-slave e una città. Uso k8s.\n")
    await sync_vault(ingestor)


async def _named(core: Core, question: str) -> list[str]:
    notes = await search.vault_notes(core.store, "t")
    return [n.path for n in await search.named_notes(core.store, "t", question, notes)]


async def test_a_question_names_a_note_by_its_parenthesis(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    await _vault(vault, ingestor)
    question = "come funziona il flip-flop SR master-slave?"
    assert await _named(core, question) == [LATCH]  # not flip-flop.md, whose name is inside
    assert await _named(core, "che cos'è un flip-flop?") == ["flip-flop.md"]  # as before
    assert await _named(core, "a cosa serve K8s?") == ["Kubernetes (K8s).md"]
    assert await _named(core, "quale città visitare?") == []  # "(città)" is no name
    evidence = await retrieve(core, "t", question, top_k=3)
    assert evidence.hits[0].path == LATCH
    assert "names" in evidence.hits[0].retrievers
    assert all("names" not in h.retrievers for h in evidence.hits if h.path == "flip-flop.md")


async def test_a_parenthesis_is_mentioned_as_an_alias_is(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    await _vault(vault, ingestor)
    assert {t for s, t in pairs(await mentions(core)) if s == "Appunti.md"} == {
        "Kubernetes (K8s).md",
        LATCH,
        "flip-flop.md",
    }  # not Roma (città).md: "città" is no name of it
    await assert_fresh(ingestor)
