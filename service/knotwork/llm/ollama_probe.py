"""A probe of Ollama, for the health check: its version and the models it has pulled, over its
HTTP API (``/api/version``, ``/api/tags``), without LlamaIndex; and whether a wanted model is
among them (``model_names.model_present``). A model not pulled is said one way wherever it is
found, by the probe or by a call Ollama answered "not found" (``not_pulled``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from knotwork.errors import ModelUnavailableError

# Ollama's words for a model it has not pulled; a 404 without them is a page not found (a wrong
# KNOTWORK_OLLAMA_BASE_URL, a proxy), not a model to pull.
_NOT_FOUND = re.compile(r"\bmodel\b.*\bnot found\b", re.IGNORECASE | re.DOTALL)


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


def pull_command(model: str) -> str:
    return f"ollama pull {model}"


def not_pulled(model: str) -> str:
    """A model Ollama has not pulled, with the command that pulls it, as doctor prints it."""
    return f"model {model} is not pulled; run: {pull_command(model)}"


def model_not_found(exc: BaseException) -> bool:
    """Whether a failed call is Ollama's answer for a model it has not pulled: 404, 'model
    "…" not found, try pulling it first' (a server that is up, with nothing wrong between)."""
    response = getattr(exc, "response", None)  # httpx's error holds the status there
    status = getattr(exc, "status_code", getattr(response, "status_code", None))  # ollama's
    return status == 404 and _NOT_FOUND.search(str(exc)) is not None
