"""Model names, one rule for every place that compares them. Ollama's: a name without a tag
is ``name:latest`` (Ollama reads it so), so the two spellings name one model. Stored
manifests and calibrations, and the health check's list of pulled models, all compare by it.
A manifest records the provider that embedded its graph; one written before it did has only the
model's name, which tells the provider as best it can (``embed_provider_of``).
"""

from __future__ import annotations

import os
import re

LATEST = ":latest"
# KNOTWORK_EMBED_PROVIDER=use-multilingual embeds with this one model, under this name.
USE_MODEL = "use-multilingual-v3"
# KNOTWORK_EMBED_PROVIDER=sentence-transformers: MiniLM (its weights packaged), or a folder.
MINILM = "all-MiniLM-L6-v2"
MINILM_NAMES = {MINILM.lower(), f"sentence-transformers/{MINILM}".lower()}
# A Windows path: a drive (C:\ or C:/); a backslash (.\x, \\server\share) is in no Ollama name.
_WINDOWS_PATH = re.compile(r"^[A-Za-z]:[\\/]")


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


def embed_provider_of(model: str) -> str:
    """The KNOTWORK_EMBED_PROVIDER that embeds with ``model``, guessed from its name for a
    manifest that records none: USE's name is use-multilingual's; MiniLM's, a path (an Ollama
    name never starts with /, ~ or ., nor holds a backslash or a drive) or an existing folder
    (``mymodel-folder`` in the working directory) sentence-transformers'; any other Ollama's."""
    if model == USE_MODEL:
        return "use-multilingual"
    if model.lower() in MINILM_NAMES or model.startswith(("/", "~", ".")):
        return "sentence-transformers"
    if "\\" in model or _WINDOWS_PATH.match(model) or os.path.isdir(model):
        return "sentence-transformers"
    return "ollama"


def embed_settings(
    model: str, dimension: int, provider: str, stored_provider: str | None = None
) -> str:
    """The settings that embed with ``model`` for a process whose provider is ``provider``:
    the model and dimension, and the provider too when ``model`` needs another one (the model
    alone would be looked for where it is not, e.g. USE among Ollama's pulled models). The
    graph's manifest's ``stored_provider`` says which; guessed from the name when it has none."""
    needed = stored_provider or embed_provider_of(model)
    named = f"KNOTWORK_EMBED_MODEL={model} and KNOTWORK_EMBED_DIMENSION={dimension}"
    return named if needed == provider else f"KNOTWORK_EMBED_PROVIDER={needed}, {named}"
