"""The manifest records the KNOTWORK_EMBED_PROVIDER that embedded the graph, and a mismatch's
advice names that one: the model's name alone misread a sentence-transformers folder named
without a slash (`mymodel-folder`) as an Ollama model."""

from __future__ import annotations

from pathlib import Path

import pytest

from knotwork.core import Core, open_core
from knotwork.errors import ManifestMismatchError
from knotwork.graph import schema
from knotwork.settings import Settings
from tests.integration.conftest import Neo4jTarget, ad_hoc

FOLDER = {"embed_provider": "sentence-transformers", "embed_model": "mymodel-folder"}


async def test_a_mismatch_names_the_provider_the_manifest_records(
    empty_db: Neo4jTarget, settings: Settings, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # The folder is relative to where the graph was written; here, no such folder: only the
    # manifest can tell its provider.
    monkeypatch.chdir(tmp_path)
    folder = settings.model_copy(update={**FOLDER, "embed_dimension": 384})
    async with open_core(settings) as first:  # its store: sentence-transformers is not installed
        written = await schema.ensure_ready(first.store, folder)  # as `init` with ``folder``
    assert written["embed_provider"] == "sentence-transformers"
    async with open_core(settings) as second:
        with pytest.raises(ManifestMismatchError) as refused:
            await second.ensure_ready()
    said = str(refused.value)
    assert (
        "set KNOTWORK_EMBED_PROVIDER=sentence-transformers, KNOTWORK_EMBED_MODEL=mymodel-folder "
        "and KNOTWORK_EMBED_DIMENSION=384," in said
    ), said
    assert refused.value.stored_provider == "sentence-transformers"  # doctor's fix reads it


async def test_a_manifest_written_before_gets_its_provider_and_reembed_records_its_own(
    core: Core, settings: Settings
) -> None:
    await ad_hoc(core, "MATCH (m:Manifest) REMOVE m.embed_provider", write=True)
    assert "embed_provider" not in (await core.store.get_manifest() or {})
    assert (await core.ensure_ready())["embed_provider"] == "ollama"
    await ad_hoc(core, "MATCH (m:Manifest) SET m.embed_provider = 'use-multilingual'", write=True)
    await schema.reembed(core.store, settings, core.embedder.aget_text_embedding_batch)
    manifest = await core.store.get_manifest()
    assert manifest is not None and manifest["embed_provider"] == "ollama"
