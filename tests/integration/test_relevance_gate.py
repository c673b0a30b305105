"""The relevance gate on calibrated vaults, with the fake Ollama's hashing embedder: a question
is judged by the words that name its subject — a note's alias names it as its title does, the
words a language asks with (German "Wann fand … statt?", English "take place") are not asked
of the notes — and off-topic questions are still refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from knotwork.answer.respond import answer
from knotwork.core import Core
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from knotwork.retrieve import retrieve
from knotwork.retrieve.calibrate import calibrate_vault
from tests.fakes.ollama import FakeOllama, schema_instance
from tests.integration.conftest import put

PEOPLE = {
    "Alice Baker.md": "---\naliases: [Ally]\n---\n# Alice Baker\n\nShe bakes sourdough bread "
    "every Sunday morning and sells it at the market.\n",
    "Bob.md": "# Bob\n\nBob maintains the Neo4j cluster and checks the nightly backups.\n",
    "Garden.md": "# Garden\n\nThe tomatoes in the garden ripen in August; the beans in July.\n",
    "Holidays.md": "# Holidays\n\nWe drove to the lakes in the north and rented a boat there.\n",
}
# The same notes in German and in English: the meeting's date, and what else a vault holds.
MEETING = {
    "de": {
        "Vorstand.md": "# Vorstand\n\nDas Treffen mit dem Vorstand war am 2026-03-04 in Berlin. "
        "Besprochen wurden der Haushalt für das nächste Jahr, zwei neue Stellen im Vertrieb "
        "und der Umzug des Lagers nach Potsdam; die Entscheidung über das Lager fällt im Mai.\n",
        "Garten.md": "# Garten\n\nDie Tomaten im Garten werden im August reif, die Bohnen im "
        "Juli.\n",
        "Urlaub.md": "# Urlaub\n\nWir sind an die Seen im Norden gefahren und haben dort ein "
        "Boot gemietet.\n",
    },
    "en": {
        "Board.md": "# Board\n\nThe meeting with the board was on 2026-03-04 in London. "
        "Discussed were the budget for the next year, two new positions in sales and moving "
        "the warehouse to Reading; the decision on the warehouse is due in May.\n",
        "Garden.md": "# Garden\n\nThe tomatoes in the garden ripen in August, the beans in July.\n",
        "Holidays.md": "# Holidays\n\nWe drove to the lakes in the north and rented a boat "
        "there.\n",
    },
}


async def _calibrated(core: Core, root: Path, vault: str, notes: dict[str, str]) -> None:
    for path, text in notes.items():
        put(root / vault, path, text)
    await sync_vault(Ingestor(core, root=root / vault, vault=vault, extract_enabled=False))
    await calibrate_vault(core, vault)


def _answering(fake: FakeOllama) -> None:
    """A chat model that answers every question, citing the first source."""

    def script(body: dict[str, Any]) -> str:
        if isinstance(body.get("format"), dict):
            return json.dumps(schema_instance(body["format"]))
        return "From the notes [S1]."

    fake.chat_script = script


async def test_a_note_named_by_its_alias_answers_a_question_that_names_the_alias(
    core: Core, tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    """The note's alias "Ally" (frontmatter ``aliases``) names the note as its title does, so
    the question is about the note, not about a word found in passing."""
    await _calibrated(core, tmp_path, "t", PEOPLE)
    threshold = core.settings.min_relevance
    evidence = await retrieve(core, "t", "What does Ally bake?", mode="retrieve")
    assert evidence.hits[0].path == "Alice Baker.md"
    assert evidence.relevance >= threshold, evidence.relevance
    assert evidence.hits[0].aliases == ("Ally",)
    _answering(fake_ollama)
    result = await answer(core, "What does Ally bake?", mode="fast", vault="t")
    assert result.status == "ok", result
    # An alias that is not the note's names nothing here, and a question off the notes' topics
    # is still turned away.
    for question in ("What does Zelda bake?", "What is the capital of Mongolia?"):
        off = await retrieve(core, "t", question, mode="retrieve")
        assert off.relevance < threshold, (question, off.relevance)


@pytest.mark.parametrize(
    ("language", "questions", "off_topic"),
    [
        (
            "en",
            ["When was the meeting?", "When did the meeting take place?"],
            ["When did the French Revolution take place?", "When was the Eiffel Tower built?"],
        ),
        (
            "de",
            ["Wann war das Treffen?", "Wann fand das Treffen statt?", "Wann ist das Treffen "
             "gewesen?", "Wann hat das Treffen stattgefunden?"],
            ["Wann fand die Französische Revolution statt?", "Wann wurde der Eiffelturm "
             "gebaut?"],
        ),
    ],
)  # fmt: skip
async def test_when_a_meeting_was_is_answered_in_either_language(
    core: Core,
    tmp_path: Path,
    fake_ollama: FakeOllama,
    language: str,
    questions: list[str],
    off_topic: list[str],
) -> None:
    """The notes say when the meeting was; every way each language asks it passes the gate,
    and questions about other events are still refused."""
    await _calibrated(core, tmp_path, language, MEETING[language])
    threshold = core.settings.min_relevance
    _answering(fake_ollama)
    for question in questions:
        evidence = await retrieve(core, language, question, mode="retrieve")
        assert evidence.hits[0].path in ("Vorstand.md", "Board.md"), question
        assert evidence.relevance >= threshold, (question, evidence.relevance)
        result = await answer(core, question, mode="fast", vault=language)
        assert result.status == "ok", (question, result)
    for question in off_topic:
        evidence = await retrieve(core, language, question, mode="retrieve")
        assert evidence.relevance < threshold, (question, evidence.relevance)
