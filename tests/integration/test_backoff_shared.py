"""A model's back-off is the vault's for the whole process, as its trouble is: the API server
makes model calls for each REST write, and a write after one that found the model down must
not ask it again (and wait for its time-out) before the back-off ends. The server's periodic
pass waits it out too; an explicit retry asks at once."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from knotwork.api import create_app
from knotwork.core import Core
from knotwork.ingest.ingestor import Ingestor
from knotwork.serving import extraction as api_extraction
from knotwork.settings import Settings
from tests.fakes.ollama import FakeOllama
from tests.integration.test_api_extraction import _DownModel, _nothing_pending, _pending
from tests.integration.test_watcher_extraction import _until

MARKDOWN = {"Content-Type": "text/markdown"}


@pytest.fixture(autouse=True)
def _no_periods(monkeypatch: pytest.MonkeyPatch) -> None:
    """The server's periodic passes: only when a test runs one (``_a_pass``)."""
    monkeypatch.setattr(api_extraction, "EXTRACT_EVERY_S", 3600.0)


@asynccontextmanager
async def _server(
    settings: Settings, vault: Path, state: Path, *, extract: bool
) -> AsyncIterator[tuple[FastAPI, httpx.AsyncClient]]:
    """The real app and its lifespan."""
    app = create_app(
        settings.model_copy(update={"vault_path": vault, "extract": extract, "state_dir": state})
    )
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=True)
        async with httpx.AsyncClient(transport=transport, base_url="http://knotwork.test") as c:
            yield app, c


async def _a_pass(app: FastAPI) -> None:
    """One of the server's periodic passes over the pending chunks, run to its end."""
    extraction: api_extraction.Extraction = app.state.writers.extraction
    extraction.wanted()

    async def ended() -> bool:
        return not extraction.running

    await _until(ended)


async def test_rest_writes_wait_out_the_back_off_an_earlier_write_began(
    core: Core, settings: Settings, vault: Path, tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    """The embedding model down: the first PUT asks it; a second PUT and a /sync of a note
    new on disk, each with model calls of its own, do not, nor does a periodic pass; their
    chunks wait all the same. ``knotwork retry``'s way asks at once."""
    fake_ollama.down = True
    async with _server(settings, vault, tmp_path / "state", extract=False) as (app, client):
        first = await client.put("/notes/A.md", content="# A\n\nAnn works.\n", headers=MARKDOWN)
        assert first.status_code == 200, first.text
        asked = len(fake_ollama.calls_to("/api/embed"))
        assert asked >= 1
        second = await client.put("/notes/B.md", content="# B\n\nBen works.\n", headers=MARKDOWN)
        assert second.status_code == 200, second.text
        assert any(
            w.startswith("B.md: embedding model unavailable") for w in second.json()["warnings"]
        )
        (vault / "C.md").write_text("# C\n\nCai works.\n")
        synced = await client.post("/sync")
        assert synced.status_code == 200, synced.text
        await _a_pass(app)
        assert len(fake_ollama.calls_to("/api/embed")) == asked
        assert await _pending(core) == ["A.md", "B.md", "C.md"]

        fake_ollama.down = False
        assert (await Ingestor(core).retry_pending())[0] == 3  # asked again at once
    assert await _nothing_pending(core)


async def test_a_sync_waits_out_the_chat_models_back_off_an_earlier_sync_began(
    core: Core, settings: Settings, vault: Path, tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    """The chat model down (503): the first /sync asks it; the next /sync and a periodic pass
    do not, within its back-off. ``knotwork retry``'s way asks at once."""
    model = _DownModel("model loading")
    fake_ollama.chat_script = model
    async with _server(settings, vault, tmp_path / "state", extract=True) as (app, client):
        (vault / "A.md").write_text("# A\n\nAnn works with Ben.\n")
        assert (await client.post("/sync")).status_code == 200
        asked = len(model.asked)
        assert asked >= 1
        (vault / "B.md").write_text("# B\n\nBen works with Cai.\n")
        assert (await client.post("/sync")).status_code == 200
        await _a_pass(app)
        assert len(model.asked) == asked
        assert await _pending(core) == ["A.md", "B.md"]

        model.down = False
        assert (await Ingestor(core).retry_pending())[1] == 2  # asked again at once
    assert await _nothing_pending(core)
