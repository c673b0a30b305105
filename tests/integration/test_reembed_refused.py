"""`knotwork reembed` with a new model that answers garbage (NaN) for one text only: the run
completes, every other chunk has the new model's vector, the refused chunk keeps neither the
old model's vector nor a garbage one and waits for `knotwork retry`, named in the command's
output, stamped as refused; a retry once the model answers it embeds it. A model that
refuses every text still stops the run, even asked one text at a time."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from knotwork.cli import app as cli
from knotwork.core import open_core
from knotwork.settings import get_settings
from tests.fakes.ollama import FakeOllama
from tests.integration.conftest import ad_hoc, put
from tests.integration.test_one_bad_text import MARK, _poison

NEW_MODEL, NEW_SIZE = "all-minilm", 384


async def _graph(query: str) -> list[dict[str, Any]]:
    async with open_core(get_settings()) as core:
        return await ad_hoc(core, query, {}, write=False)


def _chunks() -> dict[str, list[tuple[str, int | None]]]:
    """Each note's chunks as (embedding_state, size of the vector or None), in order."""
    rows = asyncio.run(
        _graph(
            "MATCH (c:Chunk) RETURN c.note_path AS path, c.embedding_state AS state, "
            "size(c.embedding) AS size ORDER BY path, c.ord"
        )
    )
    found: dict[str, list[tuple[str, int | None]]] = {}
    for r in rows:
        found.setdefault(r["path"], []).append((r["state"], r["size"]))
    return found


def _note_sizes() -> dict[str, int | None]:
    rows = asyncio.run(_graph("MATCH (n:Note) RETURN n.path AS path, size(n.embedding) AS size"))
    return {r["path"]: r["size"] for r in rows}


def _switch(monkeypatch: pytest.MonkeyPatch, fake_ollama: FakeOllama, batch: int) -> None:
    """The settings of the new model, served by the fake, in pages of ``batch`` chunks."""
    fake_ollama.models[f"{NEW_MODEL}:latest"] = NEW_SIZE
    monkeypatch.setenv("KNOTWORK_EMBED_MODEL", NEW_MODEL)
    monkeypatch.setenv("KNOTWORK_EMBED_DIMENSION", str(NEW_SIZE))
    monkeypatch.setenv("KNOTWORK_EMBED_BATCH_SIZE", str(batch))
    get_settings.cache_clear()


def _ingest(vault: Path) -> None:
    put(vault, "A.md", "# A\n\nA first note about kites.\n")
    put(vault, "C.md", "# C\n\nA third note about gliders.\n")
    put(vault, "D.md", "# D\n\nA fourth note about balloons.\n")
    put(vault, f"{MARK}.md", f"# Bad\n\nThe {MARK} note about nothing.\n")
    result = CliRunner().invoke(cli, ["ingest", str(vault), "--no-extract"])
    assert result.exit_code == 0, result.output


def test_one_refused_text_waits_for_retry_and_reembed_completes(
    env: None, vault: Path, fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    """B.md's second section is refused alone, beside its good first one: B keeps a note
    vector of the new size, summed from the good one; Poison.md, refused whole, has none."""
    put(
        vault,
        "B.md",
        "# B\n\nB is about kites and their strings, which are long.\n\n"
        f"## Later\n\nThe {MARK} part of B, about ropes.\n",
    )
    _ingest(vault)
    before = _chunks()
    assert len(before["B.md"]) == 2 and all(s == ("done", 768) for c in before.values() for s in c)

    _switch(monkeypatch, fake_ollama, batch=2)
    fake_ollama.embed_script = _poison
    result = CliRunner().invoke(cli, ["reembed"])
    assert result.exit_code == 0, result.output
    assert f"re-embedded 4 chunks; the manifest now names {NEW_MODEL}" in result.output
    assert (
        f"2 chunks of 2 notes (B.md, {MARK}.md) were refused by {NEW_MODEL} and wait for "
        "`knotwork retry`"
    ) in result.output, result.output
    assert _chunks() == {
        "A.md": [("done", NEW_SIZE)],
        "B.md": [("done", NEW_SIZE), ("pending", None)],
        "C.md": [("done", NEW_SIZE)],
        "D.md": [("done", NEW_SIZE)],
        f"{MARK}.md": [("pending", None)],
    }
    stamps = asyncio.run(
        _graph(
            "MATCH (c:Chunk {embedding_state: 'pending'}) "
            "RETURN c.embedding_refused_at IS NOT NULL AS stamped"
        )
    )
    assert [r["stamped"] for r in stamps] == [True, True]  # a background pass waits its back-off
    notes = _note_sizes()
    assert notes.pop(f"{MARK}.md") is None and set(notes.values()) == {NEW_SIZE}
    [b] = asyncio.run(
        _graph(
            "MATCH (n:Note {path: 'B.md'})-[:HAS_CHUNK]->(c:Chunk) WHERE c.embedding IS NOT NULL "
            "RETURN n.embedding = c.embedding AS same"
        )
    )
    assert b["same"], "B's note vector is its good chunk's alone"
    [manifest] = asyncio.run(_graph("MATCH (m:Manifest) RETURN m.embed_model AS model"))
    assert manifest["model"] == NEW_MODEL

    fake_ollama.embed_script = None  # the model mended: a retry embeds what waits
    retried = CliRunner().invoke(cli, ["retry"])
    assert retried.exit_code == 0, retried.output
    assert "embedded 2 chunks" in retried.output, retried.output
    assert all(s == ("done", NEW_SIZE) for c in _chunks().values() for s in c)
    assert set(_note_sizes().values()) == {NEW_SIZE}


def test_a_model_refusing_every_text_still_stops_reembed_one_text_at_a_time(
    env: None, vault: Path, fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pages of one text are not asked apart: the probe text refused too, the run stops at
    the first page with the model's refusal, and no chunk is left pending."""
    _ingest(vault)
    _switch(monkeypatch, fake_ollama, batch=1)
    fake_ollama.embed_script = lambda texts, dim: [[float("nan")] * dim for _ in texts]
    result = CliRunner().invoke(cli, ["reembed"])
    assert result.exit_code == 1, result.output
    assert f"{NEW_MODEL} returned a vector holding NaN or infinity" in result.output
    assert "0 of 4 chunks re-embedded so far" in result.output, result.output
    assert "refused by" not in result.output
    assert {s for c in _chunks().values() for s, _ in c} == {"done"}
    [manifest] = asyncio.run(_graph("MATCH (m:Manifest) RETURN m.embed_model AS model"))
    assert manifest["model"] == "nomic-embed-text"
