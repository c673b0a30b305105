"""The in-process multilingual embedder (USE multilingual v3): the real model, in six languages."""

from __future__ import annotations

import math
from collections.abc import Iterator

import pytest

from knotwork.check.health import ollama_models
from knotwork.errors import ConfigError
from knotwork.llm.clients import USE_DIMENSION, USE_MODEL, build_embedder, check_embedder
from knotwork.llm.embed_use import UseEmbedding
from knotwork.settings import Settings
from tests.conftest import make_settings


def use_settings(**overrides: object) -> Settings:
    defaults: dict[str, object] = {
        "embed_provider": "use-multilingual",
        "embed_model": USE_MODEL,
        "embed_dimension": USE_DIMENSION,
    }
    return make_settings(**(defaults | overrides))


@pytest.fixture(scope="module")
def use() -> Iterator[UseEmbedding]:
    embedder = build_embedder(use_settings(embed_batch_size=2))
    assert isinstance(embedder, UseEmbedding)
    yield embedder


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


async def test_vectors_are_unit_length_in_order_across_concurrent_batches(
    use: UseEmbedding,
) -> None:
    texts = [
        "Alice and Bob are working together on the knowledge graph project.",
        "Bob collaborates with Alice to build the graph of notes.",
        "Preheat the oven to 200 degrees and bake the lasagna for forty minutes.",
    ]
    # Three texts with a batch size of 2: two batches, sent concurrently by LlamaIndex.
    vectors = await use.aget_text_embedding_batch(texts)
    assert [len(v) for v in vectors] == [USE_DIMENSION] * 3
    for v in vectors:
        assert math.isclose(math.sqrt(sum(x * x for x in v)), 1.0, abs_tol=1e-4)
    assert cosine(vectors[0], vectors[1]) > cosine(vectors[0], vectors[2]) + 0.3
    assert use.get_text_embedding_batch(texts[::-1])[2] == pytest.approx(vectors[0], abs=1e-5)


# One topic per row, a question and its answer in each of the six languages Knotwork indexes.
QUESTIONS = {
    "it": (
        "Che cosa dice il teorema di de l'Hôpital?",
        "Il teorema di de l'Hôpital calcola i "
        "limiti delle forme indeterminate 0/0 derivando numeratore e denominatore.",
    ),
    "de": (
        "Wann wurde die Berliner Mauer gebaut?",
        "Die Mauer teilte Berlin von 1961 bis 1989 in Ost und West.",
    ),
    "fr": (
        "Comment fonctionne la photosynthèse ?",
        "Les plantes transforment la lumière du "
        "soleil, l'eau et le dioxyde de carbone en sucre et en oxygène.",
    ),
    "es": ("¿Cuál es la capital de Perú?", "Lima es la ciudad más poblada y la capital del Perú."),
    "pt": (
        "Como se prepara um café coado?",
        "Passe a água quente pelo pó de café no filtro de papel, devagar, em círculos.",
    ),
    "en": (
        "How does a multiplexer work?",
        "A multiplexer selects one of several input signals "
        "and forwards it to a single output line.",
    ),
}


async def test_each_languages_question_is_nearest_its_own_answer(use: UseEmbedding) -> None:
    languages = list(QUESTIONS)
    answers = await use.aget_text_embedding_batch([QUESTIONS[lang][1] for lang in languages])
    for lang in languages:
        query = await use.aget_query_embedding(QUESTIONS[lang][0])
        nearest = max(languages, key=lambda other: cosine(query, answers[languages.index(other)]))
        assert nearest == lang, (lang, nearest)


def test_the_settings_must_name_the_model_and_its_size() -> None:
    with pytest.raises(ConfigError, match=f"KNOTWORK_EMBED_MODEL={USE_MODEL}"):
        check_embedder(use_settings(embed_model="nomic-embed-text"))
    with pytest.raises(ConfigError, match=f"KNOTWORK_EMBED_DIMENSION={USE_DIMENSION}"):
        build_embedder(use_settings(embed_dimension=768))
    check_embedder(use_settings())  # no error: the package comes with every install


def test_no_ollama_embedding_model_is_needed() -> None:
    assert ollama_models(use_settings()) == [("llm", "llama3.1:8b")]
