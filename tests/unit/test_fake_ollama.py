"""The fake Ollama speaks the API well enough for the real LlamaIndex clients, unchanged."""

from __future__ import annotations

import json
import math

import pytest
from llama_index.core.llms import ChatMessage

from knotwork.errors import ModelUnavailableError
from knotwork.llm.clients import build_embedder, build_llm
from knotwork.llm.ollama_probe import probe_ollama
from knotwork.model_names import model_present
from tests.conftest import make_settings
from tests.fakes.ollama import _TOKEN, FakeOllama, _slot, hash_embedding


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def test_hash_embedding_is_deterministic_normalised_and_similarity_preserving() -> None:
    a = hash_embedding("Alice works with Bob on the graph", 64)
    assert a == hash_embedding("Alice works with Bob on the graph", 64)
    assert math.isclose(sum(v * v for v in a), 1.0)
    near = hash_embedding("Bob works with Alice", 64)
    far = hash_embedding("a lasagna recipe with basil", 64)
    assert cosine(a, near) > cosine(a, far)


def by_definition(text: str, dimension: int) -> list[float]:
    """The hashing embedder feature by feature, in text order, as its docstring defines it."""
    vec = [0.0] * dimension
    words = [w.lower() for w in _TOKEN.findall(text)]
    features = [(f"w:{w}", 1.0) for w in words]
    for w in words:
        padded = f"#{w}#"
        features += [(f"t:{padded[i : i + 3]}", 0.5) for i in range(len(padded) - 2)]
    for feature, weight in features:
        index, sign = _slot(feature, dimension)
        vec[index] += weight * sign
    norm = math.sqrt(sum(v * v for v in vec))
    if norm == 0.0:
        vec[0], norm = 1.0, 1.0
    return [v / norm for v in vec]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "  !? ",
        "a",
        "Alice works with Bob, and Bob with Alice.",
        "Straße ÉCOLE naïve 2026",
        "x " * 500,
    ],
)
@pytest.mark.parametrize("dimension", [8, 768])
def test_hash_embedding_is_its_definition_to_the_bit(text: str, dimension: int) -> None:
    assert hash_embedding(text, dimension) == by_definition(text, dimension)


async def test_embedder_batches_through_api_embed(fake_ollama: FakeOllama) -> None:
    embedder = build_embedder(
        make_settings(ollama_base_url=fake_ollama.base_url, embed_batch_size=2)
    )
    vectors = await embedder.aget_text_embedding_batch(["one", "two", "three"])
    assert [len(v) for v in vectors] == [768, 768, 768]
    assert vectors[0] == hash_embedding("one", 768)
    assert len(fake_ollama.calls_to("/api/embed")) == 2
    # Batches are sent concurrently, so only the set of texts is fixed, not their order.
    assert sorted(fake_ollama.embedded_texts()) == ["one", "three", "two"]


async def test_chat_plain_json_and_schema_formats(fake_ollama: FakeOllama) -> None:
    llm = build_llm(make_settings(ollama_base_url=fake_ollama.base_url))
    messages = [ChatMessage(role="user", content="hello")]
    assert (await llm.achat(messages)).message.content == "ok"
    assert (await llm.achat(messages, format="json")).message.content == "{}"
    schema = {
        "type": "object",
        "required": ["triples"],
        "properties": {"triples": {"type": "array"}},
    }
    answer = await llm.achat(messages, format=schema)
    assert json.loads(answer.message.content or "") == {"triples": []}
    fake_ollama.chat_script = lambda body: f"echo {body['messages'][-1]['content']}"
    assert (await llm.achat(messages)).message.content == "echo hello"
    streamed = [r.delta async for r in await llm.astream_chat(messages)]
    assert "".join(d or "" for d in streamed) == "echo hello"
    assert fake_ollama.calls_to("/api/chat")[-1].body["stream"] is True


async def test_missing_model_and_down_server_are_errors(fake_ollama: FakeOllama) -> None:
    del fake_ollama.models["llama3.1:8b"]
    llm = build_llm(make_settings(ollama_base_url=fake_ollama.base_url))
    with pytest.raises(Exception, match="not found"):
        await llm.achat([ChatMessage(role="user", content="hi")])
    fake_ollama.down = True
    with pytest.raises(ModelUnavailableError, match="did not answer"):
        await probe_ollama(fake_ollama.base_url)


async def test_probe_lists_models(fake_ollama: FakeOllama) -> None:
    status = await probe_ollama(fake_ollama.base_url)
    assert status.version == fake_ollama.version
    assert model_present("nomic-embed-text", set(status.models))
    assert model_present("llama3.1:8b", set(status.models))
    assert not model_present("llama3.1", set(status.models))  # means llama3.1:latest
