"""A model that misbehaves, against the real Neo4j and the fake Ollama: a question the embedder
did not embed never sets the relevance floor; a server that drips bytes is cut at
KNOTWORK_OLLAMA_TIMEOUT_S for the whole call; a failed call names its model, server and
setting; an answer whose stream stops after its first words keeps them."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from knotwork.answer.respond import answer
from knotwork.cli import app as cli
from knotwork.core import Core, open_core
from knotwork.errors import ModelUnavailableError
from knotwork.ingest import extract
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from knotwork.llm.clients import build_embedder, build_llm
from knotwork.llm.vectors import embed_batch
from knotwork.retrieve import relevance, retrieve
from knotwork.retrieve.calibrate import calibrate_vault
from knotwork.settings import Settings
from tests.fakes.ollama import DRIP_FOR_S, ChatRefusal, FakeOllama, hash_embedding
from tests.integration.conftest import Neo4jTarget, put

NOTES = {
    "alice.md": "# Alice\n\nAlice works with Bob on the graph database at Acme.\n",
    "garden.md": "# Garden\n\nThe tomatoes in the garden ripen in August, the basil in July.\n",
    "trains.md": "# Trains\n\nThe night train leaves the central station at eleven.\n",
}
QUICK = 1.0  # KNOTWORK_OLLAMA_TIMEOUT_S of these tests
SETTING = f"no reply within {QUICK:g} s (KNOTWORK_OLLAMA_TIMEOUT_S)"


@pytest.fixture
def quick(settings: Settings) -> Settings:
    return settings.model_copy(update={"ollama_timeout_s": QUICK, "extract": False})


async def synced(core: Core, vault: Path) -> None:
    for path, text in NOTES.items():
        put(vault, path, text)
    await core.ensure_ready()
    await sync_vault(Ingestor(core, root=vault, vault=core.settings.vault_name))


def probes_fail(texts: list[str], dimension: int) -> list[list[float]]:
    """The embedding model dies once the notes are embedded: every probe question fails."""
    if any("?" in text for text in texts):
        raise ChatRefusal(500, "llama runner process has terminated: signal: killed")
    return [hash_embedding(text, dimension) for text in texts]


async def test_a_probe_not_embedded_stops_calibration_and_keeps_the_floor(
    quick: Settings, vault: Path, empty_db: Neo4jTarget, fake_ollama: FakeOllama
) -> None:
    async with open_core(quick) as core:
        await synced(core, vault)
        name = quick.vault_name
        calibrated = await calibrate_vault(core, name)
        fake_ollama.down = True
        with pytest.raises(ModelUnavailableError) as raised:
            await calibrate_vault(core, name)
        said = str(raised.value)
        assert "nomic-embed-text" in said and "floor is left as it was" in said, said
        assert "vector retrieval skipped" in said, said
        scale = await relevance.scale(core.store, name, quick.embed_model)
        assert scale == (calibrated.floor, calibrated.probe_mean)


def test_ingest_with_the_embedder_dying_before_the_probes_calibrates_next_time(
    env: None, tmp_path: Path, fake_ollama: FakeOllama, settings: Settings
) -> None:
    vault = tmp_path / "v"
    for path, text in NOTES.items():
        put(vault, path, text)
    fake_ollama.embed_script = probes_fail
    first = CliRunner().invoke(cli, ["ingest", str(vault), "--no-extract"])
    assert first.exit_code == 0, first.output
    assert "relevance floor" not in first.output, first.output
    assert "warning: relevance gate not calibrated: the embedding model" in first.output
    fake_ollama.embed_script = None
    again = CliRunner().invoke(cli, ["ingest", str(vault), "--no-extract"])
    assert again.exit_code == 0, again.output
    assert "relevance floor" in again.output, again.output


async def test_an_extraction_from_a_dripping_server_is_cut_and_named(
    quick: Settings, fake_ollama: FakeOllama
) -> None:
    fake_ollama.drip = frozenset({"/api/chat"})
    started = time.monotonic()
    result = await extract.extract_chunk(build_llm(quick), "Alice", "Alice works with Bob.")
    # Two attempts, each cut at the bound, not the drip's whole DRIP_FOR_S each.
    assert time.monotonic() - started < DRIP_FOR_S / 2
    assert result.extraction is None and result.error is not None
    assert result.error.startswith(f"model call failed: NoReply: {SETTING}"), result.error
    assert f"'llama3.1:8b', Ollama at {fake_ollama.base_url}" in result.error, result.error


async def test_an_embedding_from_a_dripping_server_is_cut_and_named(
    quick: Settings, fake_ollama: FakeOllama
) -> None:
    fake_ollama.drip = frozenset({"/api/embed"})
    started = time.monotonic()
    with pytest.raises(ModelUnavailableError) as raised:
        await embed_batch(build_embedder(quick), ["Alice works with Bob."], 768)
    assert time.monotonic() - started < DRIP_FOR_S / 2  # two attempts, each cut
    said = str(raised.value)
    assert SETTING in said and "'nomic-embed-text'" in said and fake_ollama.base_url in said


async def test_a_question_whose_embedding_drips_or_times_out_is_answered_named(
    quick: Settings, vault: Path, empty_db: Neo4jTarget, fake_ollama: FakeOllama
) -> None:
    async with open_core(quick) as core:
        await synced(core, vault)
        await retrieve(core, quick.vault_name, "Who works with Bob?", mode="retrieve")  # warm
        fake_ollama.drip = frozenset({"/api/embed"})
        started = time.monotonic()
        evidence = await retrieve(core, quick.vault_name, "Who works with Bob?", mode="retrieve")
        # Not the drip's whole DRIP_FOR_S, after which the embedding would have come.
        assert time.monotonic() - started < DRIP_FOR_S / 2 and evidence.dense_down
        [said] = [w for w in evidence.warnings if w.startswith("vector retrieval skipped")]
        assert SETTING in said and f"'nomic-embed-text', Ollama at {fake_ollama.base_url}" in said

        fake_ollama.drip = frozenset()

        def slow(texts: list[str], dimension: int) -> list[list[float]]:
            time.sleep(QUICK + 0.5)
            return [hash_embedding(text, dimension) for text in texts]

        fake_ollama.embed_script = slow
        evidence = await retrieve(core, quick.vault_name, "Who works with Bob?", mode="retrieve")
        [said] = [w for w in evidence.warnings if w.startswith("vector retrieval skipped")]
        assert SETTING in said and "'nomic-embed-text'" in said, said


async def test_keywords_that_time_out_name_the_model_and_setting(
    quick: Settings, fake_ollama: FakeOllama
) -> None:
    from knotwork.retrieve.keywords import propose

    def slow(body: dict[str, Any]) -> str:
        time.sleep(QUICK + 0.5)
        return '{"keywords": []}'

    fake_ollama.chat_script = slow
    words, said = await propose(build_llm(quick), "Who works with Bob?")
    assert words == [] and said is not None
    # httpx's ReadTimeout or the call's bound, whichever comes first: both at the setting.
    assert said.startswith("keywords skipped: model call failed: ") and SETTING in said, said
    assert f"'llama3.1:8b', Ollama at {fake_ollama.base_url}" in said, said


@pytest.mark.parametrize("stop", ["stall", "drop"])
async def test_a_stream_that_stops_after_words_keeps_them(
    quick: Settings, vault: Path, empty_db: Neo4jTarget, fake_ollama: FakeOllama, stop: str
) -> None:
    async with open_core(quick) as core:
        await synced(core, vault)
        fake_ollama.chat_script = lambda body: "Alice works with Bob on the graph database."
        fake_ollama.stream_stop = stop
        result = await answer(core, "Who does Alice work with?", mode="fast")
    assert result.status == "ok" and result.answer == "Alice works with", result
    [said] = [w for w in result.warnings if w.startswith("the model stopped after")]
    assert said.startswith("the model stopped after 16 characters ("), said
    assert said.endswith("the answer so far is kept"), said
    if stop == "stall":
        assert f"ReadTimeout: {SETTING}" in said, said


async def test_a_stream_that_stops_before_any_word_is_unavailable(
    quick: Settings, vault: Path, empty_db: Neo4jTarget, fake_ollama: FakeOllama
) -> None:
    async with open_core(quick) as core:
        await synced(core, vault)
        fake_ollama.chat_script = lambda body: ""
        fake_ollama.stream_stop = "stall"
        result = await answer(core, "Who does Alice work with?", mode="fast")
    assert result.status == "model_unavailable" and result.citations, result
    assert any(SETTING in w for w in result.warnings), result.warnings
