"""The embedding model's trouble is the process's, not one writer's: every note write of a
server (an ingestor each) meets the same one, said once and counted once. Vectors refused for
some texts only (a zero vector) are over once good vectors come for every chunk that waits,
not at the next text the model answers well; the count said as the trouble begins is what
waits so far, and a sync that met it says the total at its end."""

from __future__ import annotations

import dataclasses
import logging
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from knotwork.api import create_app
from knotwork.core import Core
from knotwork.ingest import waiting
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from knotwork.serving import extraction as api_extraction
from knotwork.settings import Settings
from tests.fakes.ollama import FakeOllama
from tests.integration.test_answer import Api, api  # noqa: F401  (fixture)
from tests.integration.test_model_trouble_said import _states
from tests.integration.test_watcher_extraction import _until

REFUSED = "answers vectors that cannot be stored"
AFTER = f"{REFUSED}: after the sync, "  # what waits at the end of a sync that met it (info)
BACK = "good vectors again"
NONE_LEFT = "no chunk waiting for good vectors any more"
MARKDOWN = {"Content-Type": "text/markdown"}


def _too_long(texts: list[str], dimension: int) -> list[list[float]]:
    """Vectors of another size than the graph's, for every text."""
    return [[0.5] * (dimension + 1) for _ in texts]


def _poison(texts: list[str], dimension: int) -> list[list[float]]:
    """A zero vector for the texts that say "Poison", good ones for the others."""
    return [[0.0] * dimension if "Poison" in t else [0.5] * dimension for t in texts]


def _said(caplog: pytest.LogCaptureFixture, part: str, level: int = logging.WARNING) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == level and part in r.getMessage()]


def _counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The steps whose waiting chunks were counted (the real count, read from the graph)."""
    steps: list[str] = []
    read = waiting.read

    async def counting(*args: Any, **kwargs: Any) -> waiting.Waiting | None:
        steps.append(args[2])
        return await read(*args, **kwargs)

    monkeypatch.setattr(waiting, "read", counting)
    return steps


async def test_a_servers_note_writes_say_the_trouble_once_and_count_it_once(
    api: Api,  # noqa: F811
    fake_ollama: FakeOllama,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Three PUTs, each its own ingestor, meet vectors of another size: one warning, one
    count; each answer still says its note's chunks wait. The server's background pass that
    embeds them once good vectors come says so once."""
    counted = _counted(monkeypatch)
    fake_ollama.embed_script = _too_long
    caplog.set_level(logging.DEBUG, logger="knotwork")
    for i in range(3):
        answer = await api.client.put(
            f"/notes/W{i}.md", content=f"# W{i}\n\nW{i} works with Ann.\n", headers=MARKDOWN
        )
        assert answer.status_code == 200, answer.text
        assert any(
            w.startswith(f"W{i}.md: embedding model answered vectors that cannot be stored")
            for w in answer.json()["warnings"]
        ), answer.json()
    said = _said(caplog, REFUSED)
    assert len(said) == 1, said
    assert "out of vector search: 1 chunk of 1 note (W0.md) so far," in said[0], said[0]
    assert counted == ["embedding"]  # as the trouble began, not once a write
    assert len(_said(caplog, f"still {REFUSED}", logging.DEBUG)) == 2

    fake_ollama.embed_script = None
    api.app.state.writers.extraction.wanted()  # as its next period would
    await _until(lambda: _done(caplog, BACK))
    assert (await _states(api.core, api.core.settings.vault_name, "embedding_state")) == {"done": 6}
    back = _said(caplog, BACK, logging.INFO)
    assert len(back) == 1 and back[0].startswith(f"the embedding model answers {BACK}"), back


async def _done(caplog: pytest.LogCaptureFixture, part: str) -> bool:
    return bool(_said(caplog, part, logging.INFO))


async def test_a_server_with_nothing_left_waiting_says_a_new_trouble_again(
    core: Core,  # an empty graph
    settings: Settings,
    vault: Path,
    tmp_path: Path,
    fake_ollama: FakeOllama,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Extraction off, the refused note edited: nothing is pending, so no pass runs; the
    periods that find nothing pending end the trouble (the second: a write refused just before
    the first may not have stored its chunks yet), and the next refusal is said."""
    monkeypatch.setattr(api_extraction, "EXTRACT_EVERY_S", 3600.0)  # its periods: here
    fake_ollama.embed_script = _poison
    caplog.set_level(logging.INFO, logger="knotwork")
    update = {"vault_path": vault, "extract": False, "state_dir": tmp_path / "state"}
    app = create_app(settings.model_copy(update=update))
    transport = httpx.ASGITransport(app=app)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url="http://knotwork.test") as client,
    ):
        extraction = app.state.writers.extraction

        async def put(path: str, text: str) -> None:
            answer = await client.put(f"/notes/{path}", content=text, headers=MARKDOWN)
            assert answer.status_code == 200, answer.text

        await put("A.md", "# A\n\nA Poison works with Ann.\n")
        assert len(_said(caplog, REFUSED)) == 1
        assert await extraction._due()  # a period: A's chunk waits, a pass is due
        await put("A.md", "# A\n\nA works with Ann.\n")  # embedded: none waits
        assert not await extraction._due()
        assert not _said(caplog, NONE_LEFT, logging.INFO)
        assert not await extraction._due()
        ended = _said(caplog, NONE_LEFT, logging.INFO)
        assert len(ended) == 1 and ended[0].startswith("the embedding model has no chunk"), ended
        await put("B.md", "# B\n\nB Poison works with Ann.\n")
    said = _said(caplog, REFUSED)
    assert len(said) == 2 and "1 chunk of 1 note (B.md) so far" in said[1], said


def _poisoned_vault(tmp_path: Path, names: list[str]) -> Path:
    """Notes whose every other one ("Poison") the model answers a zero vector for."""
    root = tmp_path / "poisoned"
    root.mkdir()
    for i, name in enumerate(names):
        word = "Poison" if i % 2 == 0 else "Fine"
        (root / f"{name}.md").write_text(f"# {name}\n\n{name} {word} works with Ann.\n")
    return root


async def test_good_vectors_for_other_texts_do_not_end_the_trouble(
    core: Core, tmp_path: Path, fake_ollama: FakeOllama, caplog: pytest.LogCaptureFixture
) -> None:
    """A sync of a note a unit, every other note refused: one warning, no line saying the
    model is back while the refused chunks wait. A pass that reads only some of them proves
    nothing of the rest; the one that has good vectors for all of them says it, once."""
    root = _poisoned_vault(tmp_path, ["A1", "B2", "C3", "D4", "E5", "F6"])
    fake_ollama.embed_script = _poison
    caplog.set_level(logging.INFO, logger="knotwork")
    tuned = dataclasses.replace(core, settings=core.settings.model_copy(update={"ingest_batch": 1}))
    ingestor = Ingestor(tuned, root=root, vault="w", extract_enabled=False)
    await sync_vault(ingestor)
    assert len(fake_ollama.calls_to("/api/embed")) >= 6  # each note's unit asked it
    assert len(_said(caplog, REFUSED)) == 1, _said(caplog, REFUSED)
    assert _said(caplog, AFTER, logging.INFO) == [
        f"the embedding model {AFTER}3 chunks of 3 notes (A1.md, C3.md, E5.md) wait for an "
        "embedding, out of vector search"
    ]
    assert not _said(caplog, BACK, logging.INFO)
    assert (await _states(core, "w", "embedding_state")) == {"done": 3, "pending": 3}

    assert await ingestor.retry_pending(ask_again=False) == (0, 0)  # refused again: said
    fake_ollama.embed_script = None
    # Stamped refused, the three wait out the back-off in a background pass; asked at once here.
    assert await ingestor.retry_pending(1, ask_again=True) == (1, 0)  # one of three
    assert not _said(caplog, BACK, logging.INFO)
    assert await ingestor.retry_pending(ask_again=True) == (2, 0)  # the rest
    back = _said(caplog, BACK, logging.INFO)
    assert len(back) == 1 and back[0].startswith(f"the embedding model answers {BACK}"), back
    assert len(_said(caplog, REFUSED)) == 1
    assert (await _states(core, "w", "embedding_state")) == {"done": 6}


async def test_the_trouble_ends_when_no_chunk_waits_for_it_any_more(
    core: Core, tmp_path: Path, fake_ollama: FakeOllama, caplog: pytest.LogCaptureFixture
) -> None:
    """The refused note edited: its new text is embedded, nothing waits, and the second pass
    that finds none says so (the model was not asked again for what it refused, so it is not
    said back)."""
    root = _poisoned_vault(tmp_path, ["A1", "B2"])
    fake_ollama.embed_script = _poison
    caplog.set_level(logging.INFO, logger="knotwork")
    tuned = dataclasses.replace(core, settings=core.settings.model_copy(update={"ingest_batch": 1}))
    ingestor = Ingestor(tuned, root=root, vault="w", extract_enabled=False)  # A1 refused alone
    await sync_vault(ingestor)
    assert len(_said(caplog, REFUSED)) == 1
    assert _said(caplog, AFTER, logging.INFO)[0].endswith(
        "1 chunk of 1 note (A1.md) waits for an embedding, out of vector search"
    )
    (root / "A1.md").write_text("# A1\n\nA1 Fine works with Ann.\n")
    await ingestor.upsert_path("A1.md")
    assert not _said(caplog, NONE_LEFT, logging.INFO)  # a write proves nothing of the rest
    assert await ingestor.retry_pending(ask_again=False) == (0, 0)
    # Not yet: a write refused just before this read may not have stored its chunks.
    assert not _said(caplog, NONE_LEFT, logging.INFO)
    assert await ingestor.retry_pending(ask_again=False) == (0, 0)
    ended = _said(caplog, NONE_LEFT, logging.INFO)
    assert len(ended) == 1 and ended[0].startswith("the embedding model has no chunk"), ended
    assert not _said(caplog, BACK, logging.INFO)
    assert (await _states(core, "w", "embedding_state")) == {"done": 2}


async def test_a_sync_says_what_waited_so_far_then_the_total_at_its_end(
    core: Core, tmp_path: Path, fake_ollama: FakeOllama, caplog: pytest.LogCaptureFixture
) -> None:
    """The trouble begins at the sync's first unit of 32 notes, before any is written: its
    count is what waits so far; the sync's end says all 70."""
    root = tmp_path / "many"
    root.mkdir()
    for i in range(70):
        (root / f"N{i:03}.md").write_text(f"# N{i}\n\nN{i} works with Ann.\n")
    fake_ollama.embed_script = _too_long
    caplog.set_level(logging.INFO, logger="knotwork")
    report = await sync_vault(Ingestor(core, root=root, vault="w", extract_enabled=False))
    assert report.written == 70
    said = _said(caplog, REFUSED)
    assert len(said) == 1, said  # one warning: the total is no trouble of its own
    assert re.search(r"out of vector search: 32 chunks of 32 notes \(.*\) so far,", said[0]), said
    assert _said(caplog, AFTER, logging.INFO) == [
        f"the embedding model {AFTER}70 chunks of 70 notes "
        "(N000.md, N001.md, N002.md and 67 more) wait for an embedding, out of vector search"
    ]
    assert (await _states(core, "w", "embedding_state")) == {"pending": 70}
    # A sync under a trouble said before it (the next one here) adds no line.
    (root / "N070.md").write_text("# N70\n\nN70 works with Ann.\n")
    await sync_vault(Ingestor(core, root=root, vault="w", extract_enabled=False))
    assert len(_said(caplog, REFUSED)) == 1 and len(_said(caplog, AFTER, logging.INFO)) == 1
