"""The request bodies' own rules, apart from any route."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from knotwork.api.schemas import QueryRequest, RetrieveRequest


@pytest.mark.parametrize(
    "question", ["   ", "\u200b\ufeff", "\u00a0\u2003\n", "\u200d\u2060\x00", "\u2028"]
)
def test_a_question_of_spaces_controls_or_invisible_characters_is_blank(question: str) -> None:
    """str.strip() keeps zero-width spaces and the byte-order mark: such a question asked the
    model about nothing, and was answered."""
    for model in (RetrieveRequest, QueryRequest):
        with pytest.raises(ValidationError, match="question is blank"):
            model(question=question)


@pytest.mark.parametrize("question", ["?", "???", "…", "🤔🤔?", "🎉", "-- ! --", "___", "\u200b?"])
def test_a_question_of_punctuation_symbols_or_emoji_alone_holds_no_words(question: str) -> None:
    """Such a question is about nothing, yet it has an embedding, whose cosine passed the
    relevance gate: the model was asked about nothing and answered from the best chunks."""
    for model in (RetrieveRequest, QueryRequest):
        with pytest.raises(ValidationError, match="question holds no words"):
            model(question=question)


@pytest.mark.parametrize(
    "question", ["Who is Alice?", "\u200bAlice", "日本", "C#?", "2+2?", "🎉 Ally?", "Ⅻ?"]
)
def test_a_question_with_a_letter_or_a_digit_is_asked(question: str) -> None:
    assert QueryRequest(question=question).question == question


@pytest.mark.parametrize("tag", ["#", " # ", "##", "\t#"])
def test_an_empty_tag_is_refused_alike_by_the_filters_and_the_note_search(tag: str) -> None:
    """``bare_tag`` is the one check: /retrieve's filters and the note search (GET /notes,
    ``knotwork search``, MCP ``search_notes``) refuse a tag of ``#`` alone, which found no note
    in the search and so seemed to say none is tagged."""
    from knotwork.retrieve.types import bare_tag

    with pytest.raises(ValueError, match="a tag is empty"):
        bare_tag(tag)
    with pytest.raises(ValidationError, match="a tag is empty"):
        RetrieveRequest.model_validate({"question": "who?", "filters": {"tags": ["ok", tag]}})
    with pytest.raises(ValueError, match="a tag is empty"):
        bare_tag("")
    assert bare_tag(" #team/graph ") == "team/graph"
