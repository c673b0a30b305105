"""The model's reply → the answer, without a database or a model: a refusal however the model
words it, and a reply with no answer in it, are not passed off as answers."""

from __future__ import annotations

import time

import pytest

from knotwork.answer.prompt import build_prompt
from knotwork.answer.refusal import INSUFFICIENT, says_insufficient
from knotwork.answer.respond import finish
from knotwork.retrieve import Evidence
from tests.conftest import hit

EVIDENCE = Evidence(hits=[hit("Alice.md", "Work", "Alice works with Bob.")], timings_ms={})


def reply(raw: str) -> tuple[str, str | None, list[str]]:
    prompt = build_prompt("Who does Alice work with?", EVIDENCE, 8192)
    result = finish(EVIDENCE, raw, time.perf_counter(), prompt)
    return result.status, result.answer, result.warnings


@pytest.mark.parametrize(
    "raw",
    [
        INSUFFICIENT,
        "Your notes don't contain enough to answer this.",
        "Your notes don\u2019t contain enough information to answer this question.",
        "The notes do not contain enough to answer this.",
        "Your notes do not contain enough to answer this. [S1]",  # a refusal that cites
        "Your notes do not contain enough to answer this yet.",
        "Your notes do not contain enough to answer this, but you could add one.",
        "Tus notas no contienen suficiente información, sin fechas.",
        "As notas não contêm informação suficiente; adicione mais notas.",
        "Le tue note non contengono abbastanza informazioni per rispondere.",
        "Deine Notizen enthalten nicht genug, um das zu beantworten.",
        "Vos notes ne contiennent pas assez d'informations pour répondre.",
        "Tus notas no contienen suficiente información para responder.",
        "As tuas notas não contêm informação suficiente para responder.",
        # After an apology or a label, and as the sentence is commonly translated.
        "Sorry, your notes do not contain enough to answer this.",
        "I'm sorry, but your notes don't have enough information to answer this.",
        "Answer: Your notes do not contain enough to answer this.",
        "Purtroppo le tue note non contengono abbastanza informazioni per rispondere.",
        "Leider enthalten deine Notizen nicht genug Informationen, um das zu beantworten.",
        "Deine Notizen enthalten nicht ausreichend Informationen, um dies zu beantworten.",
        "Vos notes ne contiennent pas suffisamment d'informations pour répondre à cette question.",
        "Désolé, vos notes ne contiennent pas d'informations suffisantes pour répondre.",
        "Tus notas no contienen lo suficiente para responder a esto.",
        "Lo siento, tus notas no contienen suficiente información.",
        "Suas notas não contêm informações suficientes para responder a isso.",
    ],
)
def test_a_refusal_however_worded_is_insufficient_context(raw: str) -> None:
    status, answer, _ = reply(raw)
    assert (status, answer) == ("insufficient_context", INSUFFICIENT)


def test_a_cited_answer_that_says_part_is_missing_is_an_answer() -> None:
    raw = (
        "Alice works with Bob [S1]. Your notes do not contain enough to say since when, nor "
        "on which of the projects they share or who leads them."
    )
    status, answer, _ = reply(raw)
    assert status == "ok" and answer is not None and answer.startswith("Alice works with Bob")
    assert not says_insufficient(raw)


@pytest.mark.parametrize(
    "raw",
    [
        "Bob [S1]. The notes don't contain enough about when.",
        "Alice works with Bob. Your notes do not contain enough to say since when.",
        "Las notas no contienen la fecha; fue el lunes [S1].",
        "Le note non contengono altro: Alice lavora con Bob.",
        "The notes do not contain enough detail, but Alice joined Acme in 2020 [S1].",
        "Le note non contengono abbastanza dettagli, ma Alice è entrata in Acme nel 2020 [S1].",
        "Sorry for the wait: Alice works with Bob [S1].",
        "Your notes do not contain the date; Alice joined in spring [S1].",
        "Leider enthalten deine Notizen das Datum nicht, aber Alice kam 2020 [S1].",
        # Not enough of something the notes are about: an answer, not the refusal.
        "The notes do not have enough sustain in the second bar [S1].",
        "Answer: the notes do not include sufficient collateral; the loan was refused [S1].",
        "Sorry, but the notes do not hold enough ink to print [S1].",
    ],
)
def test_an_answer_that_says_what_is_missing_is_not_a_refusal(raw: str) -> None:
    status, answer, _ = reply(raw)
    assert status == "ok" and answer is not None and answer != INSUFFICIENT


@pytest.mark.parametrize(
    "raw",
    [
        "I cannot help with that.",
        "I'm sorry, I can't assist with that request.",
        "I don't know.",
        "I am unable to answer that from the notes.",
        "The context does not contain enough information to answer this question.",
        "There is no information about this in your notes.",
        "The provided context does not mention where Alice works.",
        "I don't have enough information to answer.",
        "Mi dispiace, non lo so.",
        "Non ci sono informazioni su questo nelle tue note.",
        "Ich weiß es nicht.",
        "Es tut mir leid, ich kann das nicht beantworten.",
        "Je ne sais pas.",
        "Il n'y a aucune information à ce sujet.",
        "No lo sé.",
        "No hay información sobre esto en tus notas.",
        "Não sei.",
        "Não há informações sobre isso nas suas notas.",
    ],
)
def test_a_reply_that_cites_nothing_and_says_it_cannot_answer_is_a_refusal(raw: str) -> None:
    status, answer, _ = reply(raw)
    assert (status, answer) == ("insufficient_context", INSUFFICIENT)


@pytest.mark.parametrize(
    "raw",
    [
        "I don't know all of it, but Alice works with Bob [S1].",
        "The notes do not mention a date; Alice works with Bob [S1].",
        "There is no information about the date, yet Alice works with Bob [S1].",
        # Cited or not, the same words that do not open the reply are an answer.
        "Alice works with Bob; I don't know since when.",
        "Nobody knows more than Bob [S1].",
    ],
)
def test_a_reply_that_answers_is_no_refusal_for_saying_what_it_does_not_know(raw: str) -> None:
    status, answer, _ = reply(raw)
    assert status == "ok" and answer is not None and answer != INSUFFICIENT


@pytest.mark.parametrize(
    "raw",
    [
        "Your notes do not contain enough to say when. Alice works with Bob [S1].",
        "Your notes do not contain enough to say when, yet Alice works with Bob [S1].",
        "Your notes do not contain enough to say when; Alice works with Bob [S1].",
        "Vos notes ne contiennent pas assez de détails, pourtant Alice travaille avec Bob [S1].",
        "Deine Notizen enthalten nicht genug dazu. Alice arbeitet mit Bob [S1].",
    ],
)
def test_a_cited_answer_after_the_sentence_of_what_is_missing_is_an_answer(raw: str) -> None:
    status, answer, _ = reply(raw)
    assert status == "ok" and answer is not None and "[Alice.md#Work]" in answer


@pytest.mark.parametrize(
    "raw",
    # Punctuation, a list's dashes or a closing mark around the citations are no words either.
    [
        "",
        "   \n",
        "[S1]",
        "[S7] [S1]",
        "[[S1]]",
        "[S1].",
        "- [S1]\n- [S1];",
        "\u201c[S1]\u201d \u2014 \u2026",
    ],
)
def test_a_reply_without_words_is_no_answer(raw: str) -> None:
    status, answer, warnings = reply(raw)
    assert (status, answer) == ("model_unavailable", None)
    assert any("held no answer" in w for w in warnings)
