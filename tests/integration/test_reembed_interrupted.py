"""A `knotwork reembed` to a model of another dimension cut off midway — its vector indexes
rebuilt for the new size, some chunks of each model — is said as such by every command and by
a server already running (doctor, ingest, watch, ask, retrieve, the API), whatever model their
settings name, and `knotwork reembed` run again completes it."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from knotwork import core as core_module
from knotwork.api import create_app
from knotwork.cli import app as cli
from knotwork.cli.stopped import ReembedStopped
from knotwork.core import Core, open_core
from knotwork.errors import ModelUnavailableError, ReembedInterruptedError, SchemaError
from knotwork.graph import schema
from knotwork.settings import Settings, get_settings
from tests.fakes.ollama import FakeOllama, hash_embedding
from tests.integration.conftest import ad_hoc, put

OLD_MODEL, NEW_MODEL, NEW_SIZE = "nomic-embed-text", "all-minilm", 384
CUT = (
    "a re-embedding to 'all-minilm' (384 dimensions) was interrupted: run `knotwork reembed` again"
)


async def _graph(query: str) -> list[dict[str, Any]]:
    async with open_core(get_settings()) as core:
        return await ad_hoc(core, query, {}, write=False)


def _sizes() -> list[int | None]:
    rows = asyncio.run(_graph("MATCH (c:Chunk) RETURN size(c.embedding) AS n ORDER BY c.id"))
    return [r["n"] for r in rows]


async def _cut_off(settings: Settings, after: int) -> None:
    """`knotwork reembed`'s work to the new model, its embedder out of reach after ``after``
    pages of one chunk: the run ends as a Ctrl-C or a crash midway would leave it."""
    calls: list[int] = []

    async def embed(texts: list[str]) -> Sequence[Sequence[float] | None]:
        calls.append(len(texts))
        if len(calls) > after:
            raise ModelUnavailableError("the embedding server went away")
        return [hash_embedding(t, NEW_SIZE) for t in texts]

    new = settings.model_copy(
        update={"embed_model": NEW_MODEL, "embed_dimension": NEW_SIZE, "embed_batch_size": 1}
    )
    async with open_core(new) as core:
        with pytest.raises(ModelUnavailableError, match="2 of 4 chunks re-embedded so far"):
            await schema.reembed(core.store, new, embed)


def _use(monkeypatch: pytest.MonkeyPatch, model: str, size: int) -> None:
    monkeypatch.setenv("KNOTWORK_EMBED_MODEL", model)
    monkeypatch.setenv("KNOTWORK_EMBED_DIMENSION", str(size))
    get_settings.cache_clear()


def _said(args: list[str]) -> tuple[int, str]:
    result = CliRunner().invoke(cli, args)
    return result.exit_code, " ".join(result.output.split())


def test_an_interrupted_reembed_is_said_everywhere_and_a_run_again_completes_it(
    env: None,
    vault: Path,
    settings: Settings,
    fake_ollama: FakeOllama,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in "ABCD":
        put(vault, f"{name}.md", f"# {name}\n\nNote {name} is about kites and gliders.\n")
    assert _said(["ingest", str(vault), "--no-extract"])[0] == 0
    fake_ollama.models[f"{NEW_MODEL}:latest"] = NEW_SIZE
    monkeypatch.setattr(core_module, "MANIFEST_RECHECK_S", 0.0)  # a server sees it at once
    with TestClient(
        create_app(settings.model_copy(update={"vault_path": vault, "extract": False})),
        raise_server_exceptions=False,
    ) as client:
        asyncio.run(_cut_off(get_settings(), after=2))
        assert sorted(_sizes(), key=str) == [384, 384, 768, 768]  # both models' vectors
        asked = client.post("/retrieve", json={"question": "kites?"})
        assert asked.status_code == 409, asked.text
        assert CUT in asked.json()["detail"], asked.text

    # Whichever model the settings name, the old one or the new, the same plain word.
    for model, size in ((OLD_MODEL, 768), (NEW_MODEL, NEW_SIZE)):
        _use(monkeypatch, model, size)
        code, doctor = _said(["doctor"])
        assert code == 1 and CUT in doctor, doctor
        assert "fix: run `knotwork reembed` again" in doctor, doctor
        for args in (
            ["ingest", str(vault), "--no-extract"],
            ["watch", str(vault)],
            ["ask", "what about kites?"],
            ["retrieve", "kites"],
        ):
            code, said = _said(args)
            assert code == 1 and CUT in said, (args, said)
            assert "ProcedureCallFailed" not in said and OLD_MODEL not in said, (args, said)

    # Run again with the new model's settings: it completes, and the graph is whole again.
    code, said = _said(["reembed"])
    assert code == 0, said
    assert f"re-embedded 4 chunks; the manifest now names {NEW_MODEL}" in said
    assert _sizes() == [NEW_SIZE] * 4
    [manifest] = asyncio.run(_graph("MATCH (m:Manifest) RETURN properties(m) AS m"))
    assert manifest["m"]["embed_model"] == NEW_MODEL
    assert "reembedding_model" not in manifest["m"], manifest
    code, doctor = _said(["doctor"])
    assert "interrupted" not in doctor and "manifest" in doctor, doctor
    assert _said(["ingest", str(vault), "--no-extract"])[0] == 0
    code, said = _said(["retrieve", "kites"])
    assert code == 0 and "A.md" in said, said


FOUR = "UNWIND range(1, 4) AS i CREATE (:Chunk {id: 'c' + i, hash: 'h' + i, text: 't' + i})"


async def test_a_stop_says_what_the_reembed_changed(core: Core, settings: Settings) -> None:
    """Stopped before the mark, it says nothing changed; after, it counts the chunks given the
    new model's vector, not those the model refused."""
    await ad_hoc(core, FOUR, write=True)
    calls: list[int] = []

    async def embed(texts: list[str]) -> Sequence[Sequence[float] | None]:
        calls.append(len(texts))
        if len(calls) == 4:
            raise ModelUnavailableError("the embedding server went away")
        if len(calls) == 2:
            return [None]  # refused alone: pending for `knotwork retry`
        return [hash_embedding(t, settings.embed_dimension) for t in texts]

    newer = "MATCH (m:Manifest) SET m.schema_version = 99"
    await ad_hoc(core, newer, write=True)  # refused before anything is written
    stage = ReembedStopped()
    with pytest.raises(SchemaError, match="newer Knotwork"):
        await stage.reembed(core, embed, lambda *_: None, "h")
    assert stage.said() == "stopped before re-embedding began: nothing was changed"
    await ad_hoc(core, "MATCH (m:Manifest) SET m.schema_version = 3", write=True)

    one = settings.model_copy(update={"embed_batch_size": 1})
    async with open_core(one) as pages:
        stage = ReembedStopped()
        with pytest.raises(ModelUnavailableError):
            await stage.reembed(pages, embed, lambda *_: None, "h")
    assert stage.said().startswith("stopped: 2 of 4 chunks re-embedded; the graph stays refused")


async def test_readers_see_the_mark_before_the_vector_indexes_go(
    core: Core, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server reads the manifest again only every MANIFEST_RECHECK_S: the re-embedding waits
    that long after its mark, so a reader's first search past the indexes dropped is refused
    plainly rather than failing on a missing index."""
    await ad_hoc(core, FOUR, write=True)
    monkeypatch.setattr(core_module, "MANIFEST_RECHECK_S", 4.0)  # the reader's
    monkeypatch.setattr(schema, "MANIFEST_RECHECK_S", 4.0)  # the re-embedding's wait
    told: list[ReembedInterruptedError] = []
    async with open_core(settings) as reader:
        await reader.check_manifest()  # read before the mark, kept for MANIFEST_RECHECK_S

        async def embed(texts: list[str]) -> Sequence[Sequence[float] | None]:
            if not told:  # the indexes are dropped and rebuilt by now
                with pytest.raises(ReembedInterruptedError) as refused:
                    await reader.check_manifest()
                told.append(refused.value)
            return [hash_embedding(t, settings.embed_dimension) for t in texts]

        await schema.reembed(core.store, settings, embed)
    assert told
