"""A direct REST write answers before the chat model extracts its chunks: the API process
extracts them in the background, a few chunks at a time under its shared lease (never starving
another writer, never making a sync wait), again every period for chunks a model outage left
pending, and a stop leaves what it had not done pending (serving/extraction.py); the MCP server's
write tools alike."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from knotwork import outage
from knotwork.api import create_app
from knotwork.check.verify import snapshot
from knotwork.core import Core
from knotwork.errors import LeaseHeldError
from knotwork.graph.lease import Lease, lease_status
from knotwork.graph.queries.writes import CHUNKS_PENDING
from knotwork.ingest import modelcalls
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from knotwork.serving import extraction as api_extraction
from knotwork.serving.writers import VaultWriters
from knotwork.settings import Settings
from tests.fakes.ollama import ChatRefusal, FakeOllama
from tests.integration.conftest import ad_hoc
from tests.integration.test_mcp import call, connected
from tests.integration.test_watcher_extraction import ANSWER, HeldModel, _until, held  # noqa: F401

TEAM = "# Team\n\nIntro.\n\n## Work\n\nAnn works with Ben.\n"
MARKDOWN = {"content-type": "text/markdown"}


def _long(sections: int) -> str:
    return "# Long\n\n" + "".join(
        f"## Part {i}\n\nAnn works with Ben, part {i}.\n\n" for i in range(sections)
    )


@asynccontextmanager
async def _api(
    settings: Settings, vault: Path, state: Path
) -> AsyncIterator[tuple[FastAPI, httpx.AsyncClient]]:
    app = create_app(
        settings.model_copy(
            update={"vault_path": vault, "extract": True, "state_dir": state, "lease_ttl_s": 6}
        )
    )
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=True)
        async with httpx.AsyncClient(transport=transport, base_url="http://knotwork.test") as c:
            yield app, c


async def _pending(core: Core) -> list[str]:
    rows = await core.store.read(
        CHUNKS_PENDING,
        vault="default",
        extract=True,
        limit=100,
        asked_before=int(time.time() * 1000),
    )
    return sorted(r["note_path"] for r in rows)


async def _nothing_pending(core: Core) -> bool:
    return not await _pending(core)


async def _model_facts(core: Core) -> list[dict[str, Any]]:
    return await ad_hoc(
        core,
        "MATCH (:Entity {vault: 'default', key: 'ann'})-[r:WORKS_WITH]->(:Entity {key: 'ben'}) "
        "RETURN r.source AS source, r.extractor AS extractor",
        {},
        write=False,
    )


async def _as_fresh(core: Core, vault: Path) -> list[str]:
    """What differs between the graph and a fresh ingest of the folder, the model's facts
    included."""
    try:
        await sync_vault(Ingestor(core, root=vault, vault="fresh", extract_enabled=True))
        want, have = await snapshot(core.store, "fresh"), await snapshot(core.store, "default")
    finally:
        await core.store.drop_vault("fresh")
    return [
        f"{part}: fresh {want[part]}, here {have[part]}"
        for part in want
        if want[part] != have[part]
    ]


class _DownModel:
    """A chat script refusing with 503 (``why``) while ``down``; ``asked`` records each call
    with whether the model was down then."""

    def __init__(self, why: str) -> None:
        self.why, self.down, self.asked = why, True, list[bool]()

    def __call__(self, body: dict[str, Any]) -> str:
        self.asked.append(self.down)
        if self.down:
            raise ChatRefusal(503, self.why)
        # Only the facts a chunk states (ingest/grounding.py drops others, with a warning).
        return ANSWER if "Ann works" in json.dumps(body) else '{"entities": [], "triples": []}'


async def _put(client: httpx.AsyncClient, path: str, text: str) -> dict[str, Any]:
    # Under the minute the held model keeps its answer: the write must not wait for it.
    response = await asyncio.wait_for(
        client.put(f"/notes/{path}", content=text, headers=MARKDOWN), 45
    )
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def test_a_put_answers_while_the_model_holds_its_answer_and_its_facts_follow(
    core: Core,
    settings: Settings,
    vault: Path,
    tmp_path: Path,
    held: HeldModel,  # noqa: F811
) -> None:
    async with _api(settings, vault, tmp_path / "state") as (_, client):
        body = await _put(client, "Team.md", TEAM)
        assert body["status"] == "written" and body["chunks"] == 2
        assert body["pending_extractions"] == 2 and "llm" not in body["facts"], body
        await asyncio.to_thread(held.asked.wait, 30)  # the background pass asks the model
        assert await _pending(core) == ["Team.md", "Team.md"] and not held.go.is_set()
        # A pass of the model's work is no direct write: a sync does not wait behind it.
        synced = await asyncio.wait_for(client.post("/sync"), 45)
        assert synced.status_code == 200, synced.text

        held.go.set()
        await _until(lambda: _nothing_pending(core))
        assert {"source": "Team.md", "extractor": "llm"} in await _model_facts(core)
        detail = (await client.get("/notes/Team.md")).json()
        assert {c["extraction_state"] for c in detail["chunks"]} == {"done"}
        assert await _as_fresh(core, vault) == []
        again = await _put(client, "Team.md", TEAM)
        assert again["status"] == "unchanged" and again["pending_extractions"] == 0


async def test_a_cli_writer_takes_the_lease_between_two_passes(
    core: Core,
    settings: Settings,
    vault: Path,
    tmp_path: Path,
    held: HeldModel,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(api_extraction, "EXTRACT_EVERY_S", 0.3)
    async with _api(settings, vault, tmp_path / "state") as (app, client):
        writers: VaultWriters = app.state.writers
        body = await _put(client, "Long.md", _long(6))
        assert body["chunks"] > api_extraction.EXTRACT_PASS, body
        await asyncio.to_thread(held.asked.wait, 30)

        async def extracting() -> bool:
            row = await lease_status(core.store, "default")
            assert row is not None and row["holder"] == writers.holder
            return bool(row["mode"] == "rest-extract")

        # The pass says its mode as it takes the lease and at each beat; the write before it
        # may have said its own last on a loaded machine (the two share the holder).
        await _until(extracting, 10)
        cli = Lease(core.store, "default", 6, "cli-ingest")
        with pytest.raises(LeaseHeldError):
            await cli.acquire({"mode": "ingest", "watches": False})

        held.go.set()  # the first pass ends; the lease is free before the next

        async def taken() -> bool:
            try:
                await cli.acquire({"mode": "ingest", "watches": False})
            except LeaseHeldError:
                return False
            return True

        await _until(taken, 20)
        try:
            left = len(await _pending(core))
            assert 0 < left <= body["chunks"] - api_extraction.EXTRACT_PASS
            await asyncio.sleep(1.0)  # periods come and go: none writes beside the CLI
            assert len(await _pending(core)) == left
        finally:
            await cli.release()
        await _until(lambda: _nothing_pending(core))  # the next period does the rest
        assert await _as_fresh(core, vault) == []


async def test_chunks_a_model_outage_left_pending_are_extracted_once_it_answers(
    core: Core,
    settings: Settings,
    vault: Path,
    tmp_path: Path,
    fake_ollama: FakeOllama,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(api_extraction, "EXTRACT_EVERY_S", 0.3)
    monkeypatch.setattr(modelcalls, "MODEL_BACKOFF_S", 0.5)
    model = _DownModel("model loading")
    fake_ollama.chat_script = model
    async with _api(settings, vault, tmp_path / "state") as (_, client):
        body = await _put(client, "Team.md", TEAM)
        assert body["pending_extractions"] == 2

        async def tried() -> bool:
            return bool(model.asked)

        await _until(tried)  # the pass after the write met the model down
        assert await _pending(core) == ["Team.md", "Team.md"]
        model.down = False
        await _until(lambda: _nothing_pending(core))
        assert {"source": "Team.md", "extractor": "llm"} in await _model_facts(core)
        assert await _as_fresh(core, vault) == []


async def test_a_chat_model_that_stays_down_is_logged_once_not_every_period(
    core: Core,
    settings: Settings,
    vault: Path,
    tmp_path: Path,
    fake_ollama: FakeOllama,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The real passes (ingest/model_work.py pending_work) meeting a refusing model period
    after period: one warning naming the note that waits and why, one line once it answers."""
    monkeypatch.setattr(api_extraction, "EXTRACT_EVERY_S", 0.3)
    monkeypatch.setattr(modelcalls, "MODEL_BACKOFF_S", 0.1)  # every period asks it again
    model = _DownModel("model overloaded")
    fake_ollama.chat_script = model
    with caplog.at_level(logging.INFO), caplog.at_level(logging.DEBUG, logger=outage.__name__):
        async with _api(settings, vault, tmp_path / "state") as (_, client):
            await _put(client, "Team.md", TEAM)

            async def periods() -> bool:  # the pass after the write, then two periods' passes
                again = [r for r in caplog.records if "still unavailable" in r.getMessage()]
                return len(again) >= 2

            await _until(periods)
            said = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
            assert len(said) == 1, said
            assert "chat model unavailable" in said[0] and "model overloaded" in said[0]
            assert "Team.md" in said[0], said
            model.down = False

            async def back() -> bool:  # said as the pass that extracted the chunks ends
                return any("reachable again" in r.getMessage() for r in caplog.records)

            await _until(back)
    assert await _pending(core) == []
    again = [r.getMessage() for r in caplog.records if "reachable again" in r.getMessage()]
    assert len(again) == 1 and again[0].startswith("the chat model"), again
    assert len([r for r in caplog.records if r.levelno >= logging.WARNING]) == 1


async def test_a_stop_while_the_model_extracts_leaves_the_chunks_pending(
    core: Core,
    settings: Settings,
    vault: Path,
    tmp_path: Path,
    held: HeldModel,  # noqa: F811
) -> None:
    async def stopped() -> None:
        async with _api(settings, vault, tmp_path / "state") as (_, client):
            await _put(client, "Team.md", TEAM)
            await asyncio.to_thread(held.asked.wait, 30)

    await asyncio.wait_for(stopped(), 40)  # the stop does not wait for the model's answer
    assert not held.go.is_set()
    assert await _pending(core) == ["Team.md", "Team.md"]
    row = await lease_status(core.store, "default")
    assert row is None or not row["live"], row  # given back


async def test_the_mcp_server_extracts_its_writes_in_the_background_and_stops_without_the_model(
    core: Core,
    settings: Settings,
    vault: Path,
    tmp_path: Path,
    held: HeldModel,  # noqa: F811
) -> None:
    served = settings.model_copy(
        update={"vault_path": vault, "extract": True, "state_dir": tmp_path / "state"}
    )

    async def upserted() -> dict[str, Any]:
        async with connected(served, allow_writes=True) as client:
            written = await call(client, "upsert_note", path="Team.md", content=TEAM)
            await asyncio.to_thread(held.asked.wait, 30)
            return written

    written = await asyncio.wait_for(upserted(), 40)  # neither answer nor stop waits for it
    assert written["status"] == "done" and written["outcome"]["pending_extractions"] == 2
    assert "2 chunks pending extraction" in written["detail"]
    assert await _pending(core) == ["Team.md", "Team.md"]

    held.go.set()
    async with connected(served, allow_writes=True):  # a server started later does them
        await _until(lambda: _nothing_pending(core))
    assert await _as_fresh(core, vault) == []
