"""llm.vectors.embed_batch: a model client's failure leaves it as a ModelUnavailableError
(the CLI's one-line error, REST's 503), whatever the client raised; an answer that cannot be
stored as a VectorsRejectedError, one of ours too."""

from __future__ import annotations

import json
from typing import Any, cast

import httpx
import pytest

from knotwork.errors import ConfigError, KnotworkError, ModelUnavailableError, VectorsRejectedError
from knotwork.llm import vectors
from knotwork.llm.vectors import embed_batch


class Embedder:
    """An embedder whose calls fail with ``failures`` in turn, then answer ``answer``."""

    model_name = ""  # as OllamaEmbedding names its model

    def __init__(self, failures: list[Exception], answer: list[list[float]]) -> None:
        self.failures, self.answer, self.calls = failures, answer, 0

    async def aget_text_embedding_batch(self, texts: list[str]) -> list[list[float]]:
        self.calls += 1
        if self.failures:
            raise self.failures.pop(0)
        return self.answer


@pytest.fixture(autouse=True)
def no_pause(monkeypatch: pytest.MonkeyPatch) -> None:
    async def instantly(_: float) -> None:
        return None

    monkeypatch.setattr(vectors.asyncio, "sleep", instantly)


async def test_a_client_failing_twice_is_a_model_unavailable_error_naming_its_cause() -> None:
    refused = httpx.ConnectError("[Errno 111] Connection refused")
    embedder = Embedder([refused, httpx.ConnectError("again")], [[1.0, 0.0]])
    with pytest.raises(ModelUnavailableError) as caught:
        await embed_batch(cast(Any, embedder), ["a"], 2)
    assert embedder.calls == 2 and caught.value.__cause__ is not None
    assert "ConnectError: again" in str(caught.value) and "running" in str(caught.value)


async def test_one_failure_is_asked_again() -> None:
    embedder = Embedder([httpx.ReadTimeout("")], [[1.0, 0.0]])
    assert await embed_batch(cast(Any, embedder), ["a"], 2) == [[1.0, 0.0]]


async def test_a_setting_to_fix_stays_a_config_error() -> None:
    wrong = ConfigError("the model cannot be loaded as configured")
    embedder = Embedder([wrong, ConfigError("the same")], [[1.0]])
    with pytest.raises(ConfigError, match="the same"):
        await embed_batch(cast(Any, embedder), ["a"], 1)


async def test_vectors_that_cannot_be_stored_are_refused_as_one_of_ours() -> None:
    embedder = Embedder([], [[0.0, 0.0]])
    with pytest.raises(VectorsRejectedError, match="zero vector") as caught:
        await embed_batch(cast(Any, embedder), ["a"], 2)
    # Not a bare ValueError any more: graph.schema catches it by name.
    assert isinstance(caught.value, KnotworkError) and not isinstance(caught.value, ValueError)


@pytest.mark.parametrize(
    "answer",
    [
        json.JSONDecodeError("Expecting value", '{"embeddings": [[1,2,', 21),
        KeyError("embeddings"),
        httpx.HTTPStatusError("404", request=httpx.Request("POST", "http://m"), response=None),  # type: ignore[arg-type]
    ],
)
async def test_an_answer_with_no_embeddings_is_not_said_as_a_server_down(answer: Exception) -> None:
    """A server that answered a body cut short or another model's page is up: the message
    sends the user to the model and what is between, not to start a running server."""
    embedder = Embedder([answer, answer], [[1.0]])
    with pytest.raises(ModelUnavailableError) as caught:
        await embed_batch(cast(Any, embedder), ["a"], 1)
    said = str(caught.value)
    assert "answered, but with no embeddings" in said and "running" not in said, said
    assert type(answer).__name__ in said


@pytest.mark.parametrize(
    ("answer", "fix"),
    [
        (
            [[1.0, 0.0, 0.0]],
            "set KNOTWORK_EMBED_DIMENSION to this model's size and run `knotwork reembed`",
        ),
        ([[float("nan"), 1.0]], "`knotwork doctor` checks the model"),
        ([[1.0, 0.0], [0.0, 1.0]], "`knotwork doctor` checks the model"),
    ],
)
async def test_vectors_refused_say_what_to_do(answer: list[list[float]], fix: str) -> None:
    """Another size is the model served or the dimension set, mended by a re-embedding; any
    other garbage is the model or a proxy to look at."""
    with pytest.raises(VectorsRejectedError) as caught:
        await embed_batch(cast(Any, Embedder([], answer)), ["a"], 2)
    assert fix in vectors.rejected_fix(caught.value)


def _missing(embedder: Embedder, model: str) -> Embedder:
    embedder.model_name = model
    return embedder


async def test_a_model_ollama_has_not_pulled_is_said_as_doctor_says_it() -> None:
    """Ollama's 404 for a model not pulled used to read as a proxy rewriting answers ("answered,
    but with no embeddings … nothing between rewrites its answers")."""
    from ollama import ResponseError

    missing = ResponseError('model "nomic-embed-text" not found, try pulling it first', 404)
    embedder = _missing(Embedder([missing, missing], [[1.0]]), "nomic-embed-text")
    with pytest.raises(ModelUnavailableError) as caught:
        await embed_batch(cast(Any, embedder), ["a"], 1)
    assert str(caught.value) == (
        "the embedding model nomic-embed-text is not pulled; run: ollama pull nomic-embed-text"
    )


async def test_a_page_not_found_is_no_model_to_pull() -> None:
    """A 404 without Ollama's words (a wrong base URL, a proxy's page) is no model to pull."""
    page = httpx.HTTPStatusError(
        "404 page not found",
        request=httpx.Request("POST", "http://m/api/embed"),
        response=httpx.Response(404, text="404 page not found"),
    )
    embedder = _missing(Embedder([page, page], [[1.0]]), "nomic-embed-text")
    with pytest.raises(ModelUnavailableError) as caught:
        await embed_batch(cast(Any, embedder), ["a"], 1)
    assert "answered, but with no embeddings" in str(caught.value)
    assert "ollama pull" not in str(caught.value)
