"""The model boundary: LlamaIndex's model clients, and a probe of what Ollama has pulled."""

from __future__ import annotations

from dataclasses import dataclass

import httpx
from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.embeddings.ollama import OllamaEmbedding
from llama_index.llms.ollama import Ollama

from knotwork.embed_local import build_local_embedder
from knotwork.errors import ModelUnavailableError
from knotwork.settings import Settings


def build_llm(settings: Settings) -> Ollama:
    return Ollama(
        model=settings.llm_model,
        base_url=settings.ollama_base_url,
        request_timeout=settings.ollama_timeout_s,
        context_window=settings.llm_context_window,
        temperature=0.0,
    )


def build_embedder(settings: Settings) -> BaseEmbedding:
    """The configured provider's client; callers only use BaseEmbedding's methods."""
    if settings.embed_provider == "sentence-transformers":
        return build_local_embedder(settings)
    ollama: BaseEmbedding = OllamaEmbedding(  # untyped package: name the type it has
        model_name=settings.embed_model,
        base_url=settings.ollama_base_url,
        embed_batch_size=settings.embed_batch_size,
        client_kwargs={"timeout": settings.ollama_timeout_s},
    )
    return ollama


def model_present(wanted: str, available: set[str]) -> bool:
    """Ollama names models ``name:tag``; a wanted name without a tag means ``:latest``."""
    return (wanted if ":" in wanted else f"{wanted}:latest") in available or wanted in available


@dataclass(frozen=True)
class OllamaStatus:
    version: str
    models: frozenset[str]


async def probe_ollama(base_url: str, timeout_s: float = 5.0) -> OllamaStatus:
    """Ollama's version and pulled models; ModelUnavailableError when it does not answer."""
    try:
        async with httpx.AsyncClient(base_url=base_url, timeout=timeout_s) as client:
            version = (await client.get("/api/version")).raise_for_status().json()["version"]
            tags = (await client.get("/api/tags")).raise_for_status().json()
    except (httpx.HTTPError, KeyError, ValueError) as exc:
        raise ModelUnavailableError(
            f"Ollama at {base_url} did not answer ({type(exc).__name__}: {exc}). Start it with "
            "`ollama serve`, or set KNOTWORK_OLLAMA_BASE_URL."
        ) from exc
    names = frozenset(str(m.get("name") or m.get("model")) for m in tags.get("models", []))
    return OllamaStatus(version=str(version), models=names)
