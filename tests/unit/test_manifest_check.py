"""Core.check_manifest: the graph's manifest read again at most every MANIFEST_RECHECK_S, one
read shared by concurrent callers, and a switch under a running process refused with advice
to restart (a `knotwork reembed` run while `serve`, `mcp` or `watch` ran)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from knotwork import core as core_module
from knotwork.core import MANIFEST_RECHECK_S, Core
from knotwork.errors import ManifestMismatchError
from knotwork.graph import schema
from knotwork.model_names import embed_provider_of
from tests.conftest import make_settings

NOMIC = {"embed_model": "nomic-embed-text", "embed_dimension": 768, "schema_version": 2}
USE = {"embed_model": "use-multilingual-v3", "embed_dimension": 512, "schema_version": 2}


class Store:
    """A graph whose manifest the test sets, counting the reads of it."""

    def __init__(self, manifest: dict[str, Any] | None) -> None:
        self.manifest, self.reads = manifest, 0

    async def get_manifest(self) -> dict[str, Any] | None:
        self.reads += 1
        await asyncio.sleep(0.01)  # long enough for concurrent callers to overlap
        return self.manifest


def _core(store: Store) -> Core:
    settings = make_settings(embed_model="nomic-embed-text", embed_dimension=768)
    return Core(settings, cast(Any, None), cast(Any, store), cast(Any, None))


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The core's clock alone (the event loop keeps its own), moved by the test."""
    now = [1000.0]
    monkeypatch.setattr(core_module, "time", SimpleNamespace(monotonic=lambda: now[0]))
    return now


async def test_concurrent_checks_share_one_read_and_reads_are_bounded(clock: list[float]) -> None:
    store = Store(NOMIC)
    core = _core(store)
    found = await asyncio.gather(*(core.check_manifest() for _ in range(20)))
    assert store.reads == 1 and all(m == NOMIC for m in found)
    clock[0] += MANIFEST_RECHECK_S - 0.1
    await core.check_manifest()
    assert store.reads == 1, "read again before the period was over"
    clock[0] += 0.2
    await core.check_manifest()
    assert store.reads == 2


async def test_a_switch_under_a_running_process_is_refused_once_seen(clock: list[float]) -> None:
    store = Store(NOMIC)
    core = _core(store)
    await core.check_manifest()
    store.manifest = USE  # `knotwork reembed` with USE, elsewhere
    assert await core.check_manifest() == NOMIC  # within the period: the reading it has
    clock[0] += MANIFEST_RECHECK_S
    for _ in range(3):  # refused on every call, from one read
        with pytest.raises(ManifestMismatchError) as info:
            await core.check_manifest()
    assert store.reads == 2
    said = str(info.value)
    assert "'use-multilingual-v3' (512 dimensions)" in said
    assert "'nomic-embed-text' (768 dimensions)" in said
    assert "Restart it" in said and "KNOTWORK_EMBED_MODEL=use-multilingual-v3" in said
    store.manifest = NOMIC  # re-embedded back with this process's model: served again
    clock[0] += MANIFEST_RECHECK_S
    assert await core.check_manifest() == NOMIC


async def test_a_graph_of_another_model_from_the_start_says_to_reembed(
    clock: list[float],
) -> None:
    """Never matched in this process: the start-up advice (set the model, or reembed)."""
    core = _core(Store(USE))
    with pytest.raises(ManifestMismatchError) as info:
        await core.check_manifest()
    assert "`knotwork reembed`" in str(info.value) and "Restart" not in str(info.value)


def test_the_advice_names_the_provider_when_the_graphs_model_needs_another() -> None:
    """A graph embedded in-process, settings on Ollama: the advice named the model and
    dimension alone, and set so, the model was looked for among Ollama's ("not pulled")."""
    ollama = make_settings(embed_model="nomic-embed-text", embed_dimension=768)
    use = make_settings(
        embed_provider="use-multilingual", embed_model="use-multilingual-v3", embed_dimension=512
    )
    to_use = "KNOTWORK_EMBED_PROVIDER=use-multilingual, KNOTWORK_EMBED_MODEL=use-multilingual-v3"
    assert f"set {to_use} and KNOTWORK_EMBED_DIMENSION=512," in str(schema.mismatch(USE, ollama))
    assert to_use in str(schema.mismatch(USE, ollama, changed=True))  # the restart's advice
    back = "KNOTWORK_EMBED_PROVIDER=ollama, KNOTWORK_EMBED_MODEL=nomic-embed-text and"
    assert back in str(schema.mismatch(NOMIC, use))
    # One Ollama model for another: the provider is right already, and not named.
    mxbai = {"embed_model": "mxbai-embed-large", "embed_dimension": 1024, "schema_version": 2}
    assert "KNOTWORK_EMBED_PROVIDER" not in str(schema.mismatch(mxbai, ollama))


@pytest.mark.parametrize(
    ("model", "provider"),
    [
        ("use-multilingual-v3", "use-multilingual"),
        ("all-MiniLM-L6-v2", "sentence-transformers"),
        ("sentence-transformers/all-MiniLM-L6-v2", "sentence-transformers"),
        ("/models/e5-small", "sentence-transformers"),
        ("~/models/e5-small", "sentence-transformers"),
        ("nomic-embed-text", "ollama"),
        ("nomic-embed-text:latest", "ollama"),
        ("hf.co/someone/some-embedder:Q8_0", "ollama"),
        # Windows paths: read as Ollama names, the advice sent a folder to `ollama pull`.
        ("C:\\models\\minilm", "sentence-transformers"),
        ("c:/models/minilm", "sentence-transformers"),
        (".\\models\\x", "sentence-transformers"),
        ("\\\\server\\share\\m", "sentence-transformers"),
        ("models\\minilm", "sentence-transformers"),
    ],
)
def test_a_models_provider_is_told_from_its_name(model: str, provider: str) -> None:
    assert embed_provider_of(model) == provider


def test_a_folder_named_without_a_slash_is_sentence_transformers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """KNOTWORK_EMBED_MODEL=mymodel-folder, a folder in the working directory: not Ollama's."""
    monkeypatch.chdir(tmp_path)
    assert embed_provider_of("mymodel-folder") == "ollama"  # no such folder: a name
    (tmp_path / "mymodel-folder").mkdir()
    assert embed_provider_of("mymodel-folder") == "sentence-transformers"


def test_the_provider_the_manifest_records_is_named_not_guessed() -> None:
    """A folder's name the guess reads as Ollama's, recorded as sentence-transformers'."""
    ollama = make_settings(embed_model="nomic-embed-text", embed_dimension=768)
    folder = {**USE, "embed_model": "e5", "embed_provider": "sentence-transformers"}
    refused = schema.mismatch(folder, ollama)
    assert "set KNOTWORK_EMBED_PROVIDER=sentence-transformers, KNOTWORK_EMBED_MODEL=e5" in str(
        refused
    )
    assert "KNOTWORK_EMBED_PROVIDER" not in str(
        schema.mismatch({**folder, "embed_provider": None}, ollama)
    )
