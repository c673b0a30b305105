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


REFUSAL = None  # insufficient_context, with the fixed sentence
ANSWER = ""  # ok, with an answer other than the refusal's sentence
CITED = "[Alice.md#Work]"  # ok, and the answer keeps its citation


@pytest.mark.parametrize(
    ("raw", "holds"),
    [
        # The refusal's sentence however worded: insufficient_context with the fixed sentence.
        (INSUFFICIENT, REFUSAL),
        ("Your notes don't contain enough to answer this.", REFUSAL),
        ("Your notes don\u2019t contain enough information to answer this question.", REFUSAL),
        ("The notes do not contain enough to answer this.", REFUSAL),
        ("Your notes do not contain enough to answer this. [S1]", REFUSAL),  # a refusal that cites
        ("Your notes do not contain enough to answer this yet.", REFUSAL),
        ("Your notes do not contain enough to answer this, but you could add one.", REFUSAL),
        ("Tus notas no contienen suficiente información, sin fechas.", REFUSAL),
        ("As notas não contêm informação suficiente; adicione mais notas.", REFUSAL),
        ("Le tue note non contengono abbastanza informazioni per rispondere.", REFUSAL),
        ("Deine Notizen enthalten nicht genug, um das zu beantworten.", REFUSAL),
        ("Vos notes ne contiennent pas assez d'informations pour répondre.", REFUSAL),
        ("Tus notas no contienen suficiente información para responder.", REFUSAL),
        ("As tuas notas não contêm informação suficiente para responder.", REFUSAL),
        # After an apology or a label, and as the sentence is commonly translated.
        ("Sorry, your notes do not contain enough to answer this.", REFUSAL),
        ("I'm sorry, but your notes don't have enough information to answer this.", REFUSAL),
        ("Answer: Your notes do not contain enough to answer this.", REFUSAL),
        ("Purtroppo le tue note non contengono abbastanza informazioni per rispondere.", REFUSAL),
        (
            "Leider enthalten deine Notizen nicht genug Informationen, um das zu beantworten.",
            REFUSAL,
        ),
        (
            "Deine Notizen enthalten nicht ausreichend Informationen, um dies zu beantworten.",
            REFUSAL,
        ),
        (
            "Vos notes ne contiennent pas suffisamment d'informations pour répondre à cette "
            "question.",
            REFUSAL,
        ),
        ("Désolé, vos notes ne contiennent pas d'informations suffisantes pour répondre.", REFUSAL),
        ("Tus notas no contienen lo suficiente para responder a esto.", REFUSAL),
        ("Lo siento, tus notas no contienen suficiente información.", REFUSAL),
        ("Suas notas não contêm informações suficientes para responder a isso.", REFUSAL),
        # An answer that says what is missing is not a refusal.
        ("Bob [S1]. The notes don't contain enough about when.", ANSWER),
        ("Alice works with Bob. Your notes do not contain enough to say since when.", ANSWER),
        ("Las notas no contienen la fecha; fue el lunes [S1].", ANSWER),
        ("Le note non contengono altro: Alice lavora con Bob.", ANSWER),
        ("The notes do not contain enough detail, but Alice joined Acme in 2020 [S1].", ANSWER),
        (
            "Le note non contengono abbastanza dettagli, ma Alice è entrata in Acme nel 2020 [S1].",
            ANSWER,
        ),
        ("Sorry for the wait: Alice works with Bob [S1].", ANSWER),
        ("Your notes do not contain the date; Alice joined in spring [S1].", ANSWER),
        ("Leider enthalten deine Notizen das Datum nicht, aber Alice kam 2020 [S1].", ANSWER),
        # Not enough of something the notes are about: an answer, not the refusal.
        ("The notes do not have enough sustain in the second bar [S1].", ANSWER),
        (
            "Answer: the notes do not include sufficient collateral; the loan was refused [S1].",
            ANSWER,
        ),
        ("Sorry, but the notes do not hold enough ink to print [S1].", ANSWER),
        # A reply that cites nothing and says it cannot answer is a refusal.
        ("I cannot help with that.", REFUSAL),
        ("I'm sorry, I can't assist with that request.", REFUSAL),
        ("I don't know.", REFUSAL),
        ("I am unable to answer that from the notes.", REFUSAL),
        ("The context does not contain enough information to answer this question.", REFUSAL),
        ("There is no information about this in your notes.", REFUSAL),
        ("The provided context does not mention where Alice works.", REFUSAL),
        ("I don't have enough information to answer.", REFUSAL),
        ("Mi dispiace, non lo so.", REFUSAL),
        ("Non ci sono informazioni su questo nelle tue note.", REFUSAL),
        ("Ich weiß es nicht.", REFUSAL),
        ("Es tut mir leid, ich kann das nicht beantworten.", REFUSAL),
        ("Je ne sais pas.", REFUSAL),
        ("Il n'y a aucune information à ce sujet.", REFUSAL),
        ("No lo sé.", REFUSAL),
        ("No hay información sobre esto en tus notas.", REFUSAL),
        ("Não sei.", REFUSAL),
        ("Não há informações sobre isso nas suas notas.", REFUSAL),
        # A reply that answers is no refusal for saying what it does not know.
        ("I don't know all of it, but Alice works with Bob [S1].", ANSWER),
        ("The notes do not mention a date; Alice works with Bob [S1].", ANSWER),
        ("There is no information about the date, yet Alice works with Bob [S1].", ANSWER),
        ("Nothing in the notes covers that, but Alice works with Bob [S1].", ANSWER),
        # Where the model looked, then an answer: no refusal, cited or not.
        ("Based on the notes, Alice works with Bob.", ANSWER),
        ("According to the context, Alice works with Bob [S1].", CITED),
        ("Based on the context, Alice cannot determine the budget alone; Bob signs off.", ANSWER),
        ("In the notes, the budget is 400 euros.", ANSWER),
        ("Nothing in the notes contradicts it: Alice works with Bob.", ANSWER),
        ("Nothing is cheaper than the old coffee machine.", ANSWER),
        # Cited or not, the same words that do not open the reply are an answer.
        ("Alice works with Bob; I don't know since when.", ANSWER),
        ("Nobody knows more than Bob [S1].", ANSWER),
        # A cited answer after the sentence of what is missing is an answer, its citation kept.
        ("Your notes do not contain enough to say when. Alice works with Bob [S1].", CITED),
        ("Your notes do not contain enough to say when, yet Alice works with Bob [S1].", CITED),
        ("Your notes do not contain enough to say when; Alice works with Bob [S1].", CITED),
        (
            "Vos notes ne contiennent pas assez de détails, pourtant Alice travaille avec "
            "Bob [S1].",
            CITED,
        ),
        ("Deine Notizen enthalten nicht genug dazu. Alice arbeitet mit Bob [S1].", CITED),
    ],
)
def test_a_reply_is_a_refusal_or_an_answer_however_worded(raw: str, holds: str | None) -> None:
    status, answer, _ = reply(raw)
    if holds is REFUSAL:
        assert (status, answer) == ("insufficient_context", INSUFFICIENT)
    else:
        assert status == "ok" and answer is not None and answer != INSUFFICIENT
        assert holds in answer


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
