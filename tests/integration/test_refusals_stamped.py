"""A text the embedding model refuses alone is stamped where it is first met: a chunk in a
sync or a REST write is stored stamped, so the background pass right after leaves it to the
model's back-off instead of asking it again at once; an entity name refused by one write is
not asked again by the next within the back-off. An explicit retry asks both again at once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from knotwork.core import Core
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.retry import retry_all, retry_pending
from knotwork.ingest.sync import sync_vault
from knotwork.serving import extraction as api_extraction
from knotwork.settings import Settings
from tests.fakes.ollama import FakeOllama
from tests.integration.conftest import ad_hoc
from tests.integration.test_backoff_shared import MARKDOWN, _a_pass, _server
from tests.integration.test_one_bad_text import MARK, _poison, _tuned, _vault

BAD_NAME = f"{MARK} Corp"


@pytest.fixture(autouse=True)
def _no_periods(monkeypatch: pytest.MonkeyPatch) -> None:
    """The server's periodic passes: only the one a write asks for, and ``_a_pass``."""
    monkeypatch.setattr(api_extraction, "EXTRACT_EVERY_S", 3600.0)


def _asked_bad(fake_ollama: FakeOllama) -> int:
    """Texts with the marker sent to the embedding model so far."""
    return sum(MARK in t for t in fake_ollama.embedded_texts())


async def _chunks(core: Core, vault: str) -> dict[str, tuple[str, Any]]:
    """Each note's (one) chunk: its embedding state and refusal stamp."""
    rows = await ad_hoc(
        core,
        "MATCH (c:Chunk {vault: $vault}) RETURN c.note_path AS path, "
        "c.embedding_state AS state, c.embedding_refused_at AS at",
        {"vault": vault},
    )
    return {r["path"]: (r["state"], r["at"]) for r in rows}


async def test_a_chunk_refused_in_a_sync_is_stored_stamped_and_waits_out_the_back_off(
    core: Core, tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    """The sync asks the bad text (apart from the others) and stores its chunk stamped; a
    background pass right after does not ask it again; a retry does, and stamps it anew."""
    root = _vault(tmp_path, "Bad.md", count=5)
    ingestor = Ingestor(_tuned(core), root=root, vault="w", extract_enabled=False)
    fake_ollama.embed_script = _poison
    await sync_vault(ingestor)
    chunks = await _chunks(core, "w")
    state, stamp = chunks.pop("Bad.md")
    assert state == "pending" and isinstance(stamp, int), (state, stamp)
    assert set(chunks.values()) == {("done", None)}, chunks
    asked = _asked_bad(fake_ollama)
    assert asked >= 1

    models = ingestor.models
    assert await retry_pending(models, ask_again=False) == (0, 0)  # a background pass
    assert _asked_bad(fake_ollama) == asked  # left to the back-off

    out = await retry_all(models)  # `knotwork retry`: asked again at once
    assert (out.embedded, out.pending) == (0, 1)
    assert _asked_bad(fake_ollama) > asked
    [(state, again)] = [v for p, v in (await _chunks(core, "w")).items() if p == "Bad.md"]
    assert state == "pending" and again >= stamp

    fake_ollama.embed_script = None  # the model mended: the vector stored, the stamp gone
    assert (await retry_all(models)).embedded == 1
    assert set((await _chunks(core, "w")).values()) == {("done", None)}


async def test_a_chunk_refused_in_a_rest_write_is_not_asked_again_by_the_pass_after_it(
    core: Core, settings: Settings, vault: Path, tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    """A PUT leaving a chunk pending asks for a background pass at once: its refused section
    (the other embedded), stored stamped, is not asked again by it, nor by the next; a retry
    asks it again."""
    fake_ollama.embed_script = _poison
    text = f"# Bad\n\nA good first part.\n\n## Later\n\nThe {MARK} part.\n"
    async with _server(settings, vault, tmp_path / "state", extract=False) as (app, client):
        put = await client.put("/notes/Bad.md", content=text, headers=MARKDOWN)
        assert put.status_code == 200, put.text
        assert "the model refuses its text" in " ".join(put.json()["warnings"]), put.json()
        await _a_pass(app)  # after the one the PUT asked for
        assert _asked_bad(fake_ollama) == 2  # with the good part, then alone
        rows = await ad_hoc(
            core,
            "MATCH (c:Chunk) RETURN c.embedding_state AS state, c.embedding_refused_at AS at "
            "ORDER BY c.ord",
        )
        assert rows[0] == {"state": "done", "at": None}, rows
        assert rows[1]["state"] == "pending" and isinstance(rows[1]["at"], int), rows
        assert (await Ingestor(core).retry_pending())[0] == 0  # asked again at once
        assert _asked_bad(fake_ollama) == 3


async def test_an_entity_name_refused_by_one_write_is_not_asked_by_the_next(
    core: Core, tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    """Each write links new entities: the first asks the bad name and stamps it, the second
    (within the back-off) embeds its own new name but leaves the bad one; a retry asks it."""
    root = tmp_path / "vault"
    root.mkdir()
    ingestor = Ingestor(
        _tuned(core, similarity_threshold=0.55), root=root, vault="w", extract_enabled=False
    )
    fake_ollama.embed_script = _poison
    note = "---\ncompany: {}\n---\nWorks at a company.\n"
    await ingestor.upsert_text("P.md", note.format(BAD_NAME))
    assert fake_ollama.embedded_texts().count(BAD_NAME) == 1
    await ingestor.upsert_text("Z.md", note.format("Zebra Farm"))
    assert "Zebra Farm" in fake_ollama.embedded_texts()
    assert fake_ollama.embedded_texts().count(BAD_NAME) == 1  # left to the back-off
    rows = await ad_hoc(
        core,
        "MATCH (e:Entity {vault: 'w'}) RETURN e.key AS key, e.embedding_state AS state, "
        "e.embedding_refused_at IS NOT NULL AS stamped",
    )
    states = {r["key"]: (r["state"], r["stamped"]) for r in rows}
    assert states["poison corp"] == ("pending", True), states
    assert states["zebra farm"] == ("done", False), states

    await ingestor.retry_pending()  # `knotwork retry`'s way: asked again at once
    assert fake_ollama.embedded_texts().count(BAD_NAME) == 2
