"""A relevance calibration the watcher's first sync could not make is made by the running
watcher once the embedding model answers: it warned "the next sync calibrates", and a watcher
running for days never did. Tried at most every ``retry_s`` while the model stays down, not at
every event, and no more once made."""

from __future__ import annotations

import asyncio
import itertools
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from knotwork.cli.synced import calibrate_once, sync_summary
from knotwork.core import Core
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from knotwork.retrieve.calibrate import calibrate_vault, is_calibrated
from knotwork.watch.watcher import VaultWatcher
from tests.fakes.ollama import ChatRefusal, FakeOllama, hash_embedding
from tests.integration.conftest import put
from tests.integration.test_watcher import started

RETRY_S = 1.0  # the watcher's least time between tries, in these tests
NOTES = {
    "Alice.md": "# Alice\n\nAlice works with Bob on the graph database at Acme.\n",
    "Garden.md": "# Garden\n\nThe tomatoes in the garden ripen in August.\n",
}


class Probes:
    """The embedding model's answers to the probe questions (each ends with "?"): refused
    while ``down``; the times they were asked."""

    def __init__(self) -> None:
        self.down = True
        self.asked: list[float] = []
        self.lock = threading.Lock()

    def __call__(self, texts: list[str], dimension: int) -> list[list[float]]:
        if any(text.endswith("?") for text in texts):
            with self.lock:
                self.asked.append(time.monotonic())
            if self.down:
                raise ChatRefusal(500, "llama runner process has terminated: signal: killed")
        return [hash_embedding(text, dimension) for text in texts]

    def tries(self) -> list[float]:
        """When each try began: a try's requests (the client's retries too) come together."""
        with self.lock:
            asked = list(self.asked)
        return [t for i, t in enumerate(asked) if i == 0 or t - asked[i - 1] > RETRY_S / 2]


async def _until(check: Callable[[], Awaitable[bool]], limit_s: float) -> None:
    deadline = time.monotonic() + limit_s
    while not await check():
        assert time.monotonic() < deadline, f"not true after {limit_s} s"
        await asyncio.sleep(0.1)


async def _first_calibration(running: VaultWatcher) -> None:
    """What `knotwork watch` does after its start-up sync, its misses owed to the watcher."""
    core, report = running.ingestor.core, running.last_report
    assert report is not None
    summary = await sync_summary(core, report, "w")
    made = await calibrate_once(core, "w", summary, owed=running.calibration.owe)
    assert made is None


async def test_a_calibration_the_model_refused_is_made_once_it_answers(
    core: Core, vault: Path, fake_ollama: FakeOllama
) -> None:
    for path, text in NOTES.items():
        put(vault, path, text)
    probes = Probes()
    fake_ollama.embed_script = probes
    running, task = await started(core, vault, vault_name="w", watch_debounce_ms=50)
    try:
        running.calibration.retry_s = RETRY_S
        await _first_calibration(running)  # refused: the warning, and the watcher owes it
        assert running.calibration.owed and probes.tries()
        # Changes keep coming while the model is down: tried again, but not at each of them.
        deadline, n = time.monotonic() + 90, 0
        while len(probes.tries()) < 3:
            assert time.monotonic() < deadline, "not tried again while the model was down"
            put(vault, f"Note {n % 5}.md", f"# Note\n\nA line about tomatoes {n}.\n")
            n += 1
            await asyncio.sleep(0.2)
        tries = probes.tries()
        gaps = [later - earlier for earlier, later in itertools.pairwise(tries)]
        assert all(gap >= RETRY_S * 0.9 for gap in gaps), gaps
        assert not await is_calibrated(running.ingestor.core, "w")

        probes.down = False  # the model answers: the next try makes it
        await _until(lambda: is_calibrated(running.ingestor.core, "w"), 30)
        await _until(lambda: _not_running(running), 30)
        assert not running.calibration.owed
        made = len(probes.asked)
        await asyncio.sleep(RETRY_S * 2.5)
        assert len(probes.asked) == made, "tried again once made"
    finally:
        running.stop()
        await asyncio.wait_for(task, 30)


async def test_a_calibration_left_to_chunks_waiting_for_the_embedder_is_made_after_them(
    core: Core, vault: Path, fake_ollama: FakeOllama
) -> None:
    """The embedder down at the watcher's start: its sync left every chunk pending, so no
    calibration was tried; once the watcher's pass embeds them, the calibration follows."""
    for path, text in NOTES.items():
        put(vault, path, text)
    fake_ollama.down = True
    running, task = await started(core, vault, vault_name="w", watch_debounce_ms=50)
    try:
        running.retry_s = RETRY_S  # the pending chunks asked for again this often
        running.calibration.retry_s = RETRY_S
        await _first_calibration(running)
        assert running.calibration.owed
        fake_ollama.down = False
        await _until(lambda: is_calibrated(running.ingestor.core, "w"), 60)
        assert not running.calibration.owed
    finally:
        running.stop()
        await asyncio.wait_for(task, 30)


async def test_a_vault_without_text_or_calibrated_meanwhile_owes_no_calibration(
    core: Core, vault: Path, fake_ollama: FakeOllama
) -> None:
    """The tries that end the debt without a floor of their own: a vault with no text to
    calibrate on (none made, as by the first sync), and one another process calibrated
    meanwhile (`knotwork calibrate`: not calibrated again, no probe asked)."""
    import knotwork.watch.calibration as calibration

    for path, text in NOTES.items():
        put(vault, path, text)
    probes = Probes()
    probes.down = False
    fake_ollama.embed_script = probes
    await sync_vault(Ingestor(core, root=vault, vault="w", extract_enabled=False))
    await calibrate_vault(core, "w")
    asked = len(probes.asked)
    for name in ("never-written", "w"):
        owed = calibration.OwedCalibration(core, name)
        owed.retry_s = 0.0
        owed.owe()
        owed.poll()
        assert owed.running
        await _until(lambda owed=owed: asyncio.sleep(0, not owed.running), 10)
        assert not owed.owed, name
        await owed.stop()
    assert len(probes.asked) == asked, "probes asked again"
    assert not await is_calibrated(core, "never-written")


async def _not_running(running: VaultWatcher) -> bool:
    return not running.calibration.running


async def test_a_calibration_that_fails_unexpectedly_is_said_once_and_not_retried(
    core: Core, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A failure that is no outage (a bug) killed the try's task unread: the watcher logged
    "Task exception was never retrieved" with a trace at every retry, for as long as it ran."""
    import knotwork.retrieve.calibrate as calibrate
    import knotwork.watch.calibration as calibration

    async def broken(*_: object, **__: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(calibrate, "calibrate_vault", broken)  # the step both callers share
    owed = calibration.OwedCalibration(core, "never-written")
    owed.retry_s = 0.0
    owed.owe()
    owed.poll()
    assert owed.running
    await _until(lambda: asyncio.sleep(0, not owed.running), 10)
    assert not owed.owed
    owed.poll()
    assert not owed.running
    failed = [r for r in caplog.records if r.name == calibration.__name__ and r.exc_info]
    assert len(failed) == 1 and "knotwork calibrate" in failed[0].getMessage()
    await owed.stop()
