"""Ollama's model names, one rule for every place that compares them: a name without a tag
is ``name:latest`` (Ollama reads it so), so the two spellings name one model. Stored
manifests and calibrations, and the health check's list of pulled models, all compare by it.
"""

from __future__ import annotations

LATEST = ":latest"


def spellings(name: str) -> list[str]:
    """Every way of writing the model ``name`` names: itself, and with ``:latest`` added or
    taken off when it has no other tag."""
    if name.endswith(LATEST):
        return [name, name.removesuffix(LATEST)]
    return [name] if ":" in name else [name, name + LATEST]


def same_model(stored: str, wanted: str) -> bool:
    """Whether two model names are one model: ``nomic-embed-text`` and
    ``nomic-embed-text:latest`` embed alike."""
    return wanted in spellings(stored)


def model_present(wanted: str, available: set[str]) -> bool:
    """Whether Ollama has pulled ``wanted``, given the names it lists (always tagged)."""
    return any(name in available for name in spellings(wanted))
