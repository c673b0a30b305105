"""A probe of Ollama, for the health check: its version and the models it has pulled, over its
HTTP API (``/api/version``, ``/api/tags``), without LlamaIndex; and whether a wanted model is
among them (``model_names.model_present``).
"""

from __future__ import annotations

from dataclasses import dataclass

from knotwork.errors import ModelUnavailableError


@dataclass(frozen=True)
class OllamaStatus:
    version: str
    models: frozenset[str]


async def probe_ollama(base_url: str, timeout_s: float = 5.0) -> OllamaStatus:
    """Ollama's version and pulled models; ModelUnavailableError when it does not answer."""
    import httpx

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
