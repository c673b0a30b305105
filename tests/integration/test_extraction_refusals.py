"""Model extraction refused, on the real Neo4j and the fake Ollama: a request the model refuses
itself (a prompt longer than its context, HTTP 400) fails its chunk at its first refusal, the
reason kept where the other failures are; a model that is busy, broken or refuses everything
blames no chunk, and its chunks stay pending for `knotwork retry`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from knotwork.cli import app as cli
from knotwork.core import Core
from knotwork.ingest import retry
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.rows import FACTS_VERSION
from knotwork.ingest.sync import sync_vault
from tests.fakes.ollama import ChatRefusal, FakeOllama
from tests.integration.conftest import ad_hoc, put

LONG = "Appendix of every measurement"  # what the model is told is too long for its context
TOO_LONG = "the input length exceeds the context length"
EMPTY = json.dumps({"entities": [], "triples": []})


def _refuse_long(body: dict[str, Any]) -> str:
    if LONG in json.dumps(body):
        raise ChatRefusal(400, TOO_LONG)
    return EMPTY


def _notes(vault: Path) -> None:
    put(vault, "Long.md", f"# Long\n\n{LONG}, taken every hour.\n")
    put(vault, "Short.md", "# Short\n\nAnn works with Ben.\n")


async def _states(core: Core) -> dict[str, tuple[str, str | None]]:
    rows = await ad_hoc(
        core,
        "MATCH (c:Chunk {vault: 't'}) RETURN c.note_path AS path, "
        "c.extraction_state AS state, c.extraction_error AS error",
    )
    return {r["path"]: (r["state"], r["error"]) for r in rows}


def _asked_about(fake: FakeOllama, text: str) -> int:
    return sum(text in json.dumps(call.body) for call in fake.calls_to("/api/chat"))


async def test_a_refused_chunk_fails_at_its_first_refusal_in_a_retry(
    core: Core, vault: Path, fake_ollama: FakeOllama
) -> None:
    """Before, `knotwork retry` left it pending (and exited 1) up to three times; a retry whose
    first chunk was the refused one, before the model had answered any, never blamed it."""
    _notes(vault)
    fake_ollama.down = True
    await sync_vault(Ingestor(core, root=vault, vault="t", extract_enabled=True))
    assert {s for s, _ in (await _states(core)).values()} == {"pending"}
    fake_ollama.down = False
    fake_ollama.chat_script = _refuse_long

    # A process of its own, as `knotwork retry` is: the model has answered nothing yet.
    retried = await retry.retry_all(
        Ingestor(core, root=vault, vault="t", extract_enabled=True).models
    )
    assert (retried.pending, retried.extracted, retried.failed) == (0, 1, 1)
    states = await _states(core)
    assert states["Short.md"] == ("done", None)
    assert states["Long.md"][0] == "error" and TOO_LONG in (states["Long.md"][1] or "")
    assert _asked_about(fake_ollama, LONG) == 1, "a refused request is not asked again"
    assert any("Long.md: extraction failed" in w and TOO_LONG in w for w in retried.warnings)

    # The note rewritten under the same model (a new chunker, say) keeps the failure, as it
    # keeps an answer that could not be read; `retry --errors` asks again.
    await ad_hoc(
        core,
        "MATCH (n:Note {vault: 't'}) SET n.facts_version = $old",
        {"old": FACTS_VERSION - 1},
        write=True,
    )
    ingestor = Ingestor(core, root=vault, vault="t", extract_enabled=True)
    assert (await sync_vault(ingestor)).written == 2
    assert (await _states(core))["Long.md"][0] == "error"
    assert _asked_about(fake_ollama, LONG) == 1
    fake_ollama.chat_script = None  # a model with a larger context
    assert await retry.errors_pending(ingestor.models) == 1
    assert (await retry.retry_all(ingestor.models)).pending == 0
    assert (await _states(core))["Long.md"] == ("done", None)


def test_retry_names_a_refused_chunk_and_exits_1(
    env: None, tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    """A chunk `retry` was asked to do and that failed for good is no success: said, exit 1."""
    vault = tmp_path / "v"
    _notes(vault)
    fake_ollama.down = True
    assert CliRunner().invoke(cli, ["ingest", str(vault)]).exit_code == 0
    fake_ollama.down = False
    fake_ollama.chat_script = _refuse_long
    result = CliRunner().invoke(cli, ["retry"])
    assert result.exit_code == 1, result.output
    assert "extracted 1" in result.output and "still pending" not in result.output
    assert "1 chunk failed extraction for good" in result.output
    assert "`knotwork retry --errors`" in result.output
    assert "warning: Long.md: extraction failed for a chunk, the model refused it" in result.output
    assert TOO_LONG in result.output
    summary = CliRunner().invoke(cli, ["ingest", str(vault)])
    assert "model extraction failed for good on 1 chunk (" in summary.output, summary.output


async def test_a_refused_chunk_in_a_sync_lets_the_others_be_extracted(
    core: Core, vault: Path, fake_ollama: FakeOllama
) -> None:
    _notes(vault)
    fake_ollama.chat_script = _refuse_long
    report = await sync_vault(Ingestor(core, root=vault, vault="t", extract_enabled=True))
    assert report.extracted == 1
    assert not any("postponed" in w for w in report.warnings), report.warnings
    assert any("Long.md: extraction failed" in w for w in report.warnings), report.warnings
    states = await _states(core)
    assert (states["Long.md"][0], states["Short.md"][0]) == ("error", "done")


@pytest.mark.parametrize(
    ("status", "message"),
    [
        (429, "too many requests"),
        (500, "model runner has unexpectedly stopped"),
        (400, "this model does not support chat"),  # every request: a setting to fix
    ],
)
async def test_a_busy_broken_or_unusable_model_blames_no_chunk(
    core: Core, vault: Path, fake_ollama: FakeOllama, status: int, message: str
) -> None:
    _notes(vault)

    def refuse(body: dict[str, Any]) -> str:
        raise ChatRefusal(status, message)

    fake_ollama.chat_script = refuse
    ingestor = Ingestor(core, root=vault, vault="t", extract_enabled=True)
    await sync_vault(ingestor)
    for _ in range(3):
        retried = await retry.retry_all(ingestor.models)
        assert (retried.pending, retried.model_down) == (2, True)
    assert {s for s, _ in (await _states(core)).values()} == {"pending"}
    tries = await ad_hoc(core, "MATCH (c:Chunk {vault: 't'}) RETURN c.extraction_tries AS n")
    assert {row["n"] for row in tries} == {0}
