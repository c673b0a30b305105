"""Model trouble met during ingest is said once while it stands, not once a try: the embedding
model answering vectors that cannot be stored (a watcher's passes, a one-shot sync's units),
the chat model down (the notes whose chunks wait for extraction, all of them counted). Each
line names what waits, and one line says when the model answers well again; nothing is lost:
the chunks wait, and are done once it does."""

from __future__ import annotations

import dataclasses
import logging
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from knotwork import outage
from knotwork.core import Core
from knotwork.ingest import modelcalls
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from tests.fakes.ollama import ChatRefusal, FakeOllama
from tests.integration.conftest import ad_hoc
from tests.integration.test_watcher import watched
from tests.integration.test_watcher_extraction import ANSWER, _until

NOTES = ("Alpha", "Beta", "Gamma", "Delta")
# Four notes waiting, counted, the first three by path named.
FOUR_NAMED = r"(\d+) chunks? of 4 notes \(Alpha\.md, Beta\.md, Delta\.md and 1 more\)"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    root.mkdir()
    for name in NOTES:
        (root / f"{name}.md").write_text(f"# {name}\n\n{name} works with Ann.\n")
    return root


def _too_long(texts: list[str], dimension: int) -> list[list[float]]:
    """A model answering vectors of another size than the graph's (another model pulled under
    the name, a proxy rewriting the answer)."""
    return [[0.5] * (dimension + 1) for _ in texts]


def _said(caplog: pytest.LogCaptureFixture, part: str, level: int = logging.WARNING) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == level and part in r.getMessage()]


async def _states(core: Core, vault: str, state: str) -> dict[str, int]:
    rows = await ad_hoc(
        core,
        f"MATCH (c:Chunk {{vault: $vault}}) RETURN c.{state} AS state, count(c) AS chunks",
        {"vault": vault},
    )
    return {r["state"]: r["chunks"] for r in rows}


async def test_vectors_that_cannot_be_stored_are_said_once_while_the_watcher_tries_again(
    core: Core, vault: Path, fake_ollama: FakeOllama, caplog: pytest.LogCaptureFixture
) -> None:
    """The start-up sync meets the answer first, then a pass every period and a new note's
    write meet it again: one warning (what is wrong, which model, the notes waiting, what to
    do), one line once good vectors come, and every chunk embedded then."""
    fake_ollama.embed_script = _too_long
    caplog.set_level(logging.DEBUG, logger="knotwork")
    async with watched(core, vault, watch_debounce_ms=100, watch_rescan_s=0) as running:
        running.retry_s = 0.2  # a pass every 0.2 s
        await _until(_asked_again(fake_ollama, 3))  # a few periods' passes
        (vault / "Epsilon.md").write_text("# Epsilon\n\nEpsilon works with Ann.\n")
        await _until(lambda: _written(core, "Epsilon.md"))
        await _until(_asked_again(fake_ollama, 3))  # the pass after the write, and the next
        said = _said(caplog, "size 769")
        assert len(said) == 1, said
        # The write's own warning says why its chunks wait (news: a change each), and that
        # the watcher embeds them: `knotwork retry` is refused while it holds the vault.
        assert _said(
            caplog,
            "Epsilon.md: embedding model answered vectors that cannot be stored; 1 chunk "
            "waits: the watcher embeds it once the model answers",
        )
        assert not _said(caplog, "knotwork retry")
        assert said[0].startswith(
            "the embedding model answers vectors that cannot be stored (nomic-embed-text "
            "returned a vector of size 769, not KNOTWORK_EMBED_DIMENSION=768)"
        ), said[0]
        waits = re.search("waiting for an embedding, out of vector search: " + FOUR_NAMED, said[0])
        assert waits and waits.group(1) == "4", said[0]  # the start-up sync's, one each
        assert "KNOTWORK_EMBED_DIMENSION" in said[0].partition(")")[2]  # what to do
        assert "knotwork reembed" in said[0], said[0]
        assert set(await _states(core, "w", "embedding_state")) == {"pending"}

        fake_ollama.embed_script = None  # good vectors again

        async def embedded() -> bool:
            return set(await _states(core, "w", "embedding_state")) == {"done"}

        await _until(embedded)
        (vault / "Zeta.md").write_text("# Zeta\n\nZeta works with Ann.\n")
        await _until(lambda: _written(core, "Zeta.md"))
        await _until(embedded)
    back = _said(caplog, "good vectors again", logging.INFO)
    assert len(back) == 1 and back[0].startswith("the embedding model answers good vectors"), back
    assert len(_said(caplog, "size 769")) == 1
    assert (await _states(core, "w", "embedding_state")) == {"done": 6}


async def test_vectors_that_cannot_be_stored_are_said_once_by_a_one_shot_sync(
    core: Core, vault: Path, fake_ollama: FakeOllama, caplog: pytest.LogCaptureFixture
) -> None:
    """A sync asks the model once a unit (here a note): said once a run, the notes it already
    wrote counted with the unit that met it; `knotwork retry` embeds them once it answers."""
    fake_ollama.embed_script = _too_long
    caplog.set_level(logging.INFO, logger="knotwork")
    tuned = dataclasses.replace(core, settings=core.settings.model_copy(update={"ingest_batch": 1}))
    report = await sync_vault(Ingestor(tuned, root=vault, vault="w", extract_enabled=False))
    assert len(fake_ollama.calls_to("/api/embed")) >= len(NOTES)  # each unit asked it
    said = _said(caplog, "size 769")
    assert len(said) == 1, said
    first = r"out of vector search: 1 chunk of 1 note \(\w+\.md\) so far,"  # the sync's end: all
    assert re.search(first, said[0]), said[0]
    assert report.written == len(NOTES)
    fake_ollama.embed_script = None
    again = Ingestor(tuned, root=vault, vault="w", extract_enabled=False)
    assert await again.retry_pending() == (len(NOTES), 0)
    assert (await _states(core, "w", "embedding_state")) == {"done": len(NOTES)}


class _Down:
    """The chat model refusing every request with 503 while ``down``."""

    def __init__(self) -> None:
        self.down, self.asked = True, 0

    def __call__(self, body: dict[str, Any]) -> str:
        self.asked += 1
        if self.down:
            raise ChatRefusal(503, "model overloaded")
        return ANSWER


async def test_a_chat_model_down_names_every_note_whose_chunks_wait(
    core: Core,
    vault: Path,
    fake_ollama: FakeOllama,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A pass stops at the first chunk the model refuses: the warning still counts all the
    notes whose chunks wait for extraction, not only the one that pass tried."""
    monkeypatch.setattr(modelcalls, "MODEL_BACKOFF_S", 0.1)  # every period asks it again
    model = _Down()
    fake_ollama.chat_script = model
    caplog.set_level(logging.INFO, logger="knotwork")
    caplog.set_level(logging.DEBUG, logger=outage.__name__)
    async with watched(core, vault, extract=True, watch_rescan_s=0) as running:
        running.retry_s = 0.2

        async def periods() -> bool:  # the first pass, then a few periods' passes
            return len(_said(caplog, "still unavailable", logging.DEBUG)) >= 3

        await _until(periods)
        said = _said(caplog, "chat model")
        assert len(said) == 1, said
        assert said[0].startswith("the chat model unavailable (model call failed: "), said[0]
        assert "model overloaded" in said[0], said[0]
        found = re.search("waiting for extraction: " + FOUR_NAMED, said[0])
        assert found, said[0]
        pending = (await _states(core, "w", "extraction_state"))["pending"]
        assert int(found.group(1)) == pending, said[0]
        model.down = False

        async def extracted() -> bool:  # said as the pass that extracted the chunks ends
            return bool(_said(caplog, "reachable again", logging.INFO))

        await _until(extracted)
        assert set(await _states(core, "w", "extraction_state")) == {"done"}
    back = _said(caplog, "reachable again", logging.INFO)
    assert len(back) == 1 and back[0].startswith("the chat model reachable again"), back
    assert len(_said(caplog, "chat model")) == 1


def _asked_again(fake: FakeOllama, times: int) -> Callable[[], Awaitable[bool]]:
    """Whether the embedding model was asked ``times`` more times since this was made."""
    asked = len(fake.calls_to("/api/embed"))

    async def check() -> bool:
        return len(fake.calls_to("/api/embed")) >= asked + times

    return check


async def _written(core: Core, path: str) -> bool:
    rows = await ad_hoc(
        core, "MATCH (c:Chunk {vault: 'w', note_path: $path}) RETURN count(c) AS n", {"path": path}
    )
    return bool(rows[0]["n"])
