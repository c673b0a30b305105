"""Ctrl-C stops `knotwork watch` within the promised time, also during its start-up sync (which
it cancels: the next start's rescan does the rest), and a second one ends it at once."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO

from knotwork.check.verify import verify_vault
from knotwork.core import Core, open_core
from knotwork.graph.lease import lease_status
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from knotwork.settings import Settings
from tests.fakes.ollama import FakeOllama, hash_embedding
from tests.integration.conftest import put
from tests.integration.test_watch_summary import _env

HELD_S = 90.0  # the slow embedder holds a note's texts this long at most


def _slow_embedder(fake_ollama: FakeOllama) -> tuple[threading.Event, threading.Event]:
    """Texts of notes about herons held until released (the model's probes answer at once):
    whether such a call came, and the release."""
    entered, released = threading.Event(), threading.Event()

    def embed(texts: list[str], dim: int) -> list[list[float]]:
        if any("heron" in text for text in texts):
            entered.set()
            released.wait(HELD_S)
        return [hash_embedding(text, dim) for text in texts]

    fake_ollama.embed_script = embed
    return entered, released


def _watch(
    settings: Settings, tmp_path: Path, vault: Path, env: dict[str, str] | None = None
) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "knotwork.cli", "watch", str(vault)],
        env={**_env(settings), "KNOTWORK_EXTRACT": "false", **(env or {})},
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )


def _ended(watcher: subprocess.Popen[str], within: float) -> float | None:
    """Seconds until the watcher ended, or None when it did not within ``within``."""
    began = time.monotonic()
    try:
        watcher.wait(timeout=within)
    except subprocess.TimeoutExpired:
        return None
    return time.monotonic() - began


def until_watching(watcher: subprocess.Popen[str]) -> IO[str]:
    """Until the watcher says it watches (its start-up sync done), for at most 90 s; its
    stdout, to read on."""
    assert watcher.stdout is not None
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and not watcher.stdout.readline().startswith("watching"):
        assert watcher.poll() is None, "the watcher ended before it watched"
    return watcher.stdout


async def test_ctrl_c_during_the_start_up_sync_cancels_it(
    core: Core, settings: Settings, tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    """SIGINT while the first sync waited for a slow embedder: the watcher finished the sync,
    calibrated and said "watching" before it stopped, a minute later."""
    entered, released = _slow_embedder(fake_ollama)
    vault = tmp_path / "vault"
    put(vault, "Lake.md", "# Lake\n\nA note with no bird.\n")
    for n in range(3):
        put(vault, f"Heron {n}.md", f"# Heron {n}\n\nA heron by the lake.\n")
    watcher = _watch(settings, tmp_path, vault)
    try:
        assert entered.wait(90), f"the sync never embedded (exit {watcher.poll()})"
        watcher.send_signal(signal.SIGINT)
        took = _ended(watcher, 20)
        assert took is not None, "the watcher did not stop within 20 s of Ctrl-C"
        assert not released.is_set()  # the embedder still held the sync's texts
        said = watcher.stdout.read() if watcher.stdout else ""
    finally:
        released.set()
        if watcher.poll() is None:
            watcher.kill()
            watcher.wait()
    assert watcher.returncode == 0, said
    assert "watching" not in said.replace("stopped watching", "") and "relevance floor" not in (
        said
    ), said
    assert f"stopped watching {vault}" in said, said
    # Nothing half-written: the next sync finishes what the cancelled one left.
    fake_ollama.embed_script = None
    ingestor = Ingestor(core, root=vault, vault="s", extract_enabled=False)
    report = await sync_vault(ingestor)
    assert not report.errors and report.written + report.unchanged == 4, report
    assert await verify_vault(ingestor) == []


def _waiting_said(settings: Settings, limit_s: float = 60) -> None:
    """Until the watcher's lease (renewed every TTL/3) says a change waits: its event was read.
    A fixed pause lost that race on a busy machine, and the stop then had nothing to apply."""

    async def waiting() -> None:
        async with open_core(settings) as core:
            deadline = time.monotonic() + limit_s
            while not ((await lease_status(core.store, "s")) or {}).get("queue"):
                assert time.monotonic() < deadline, f"no change waiting after {limit_s} s"
                await asyncio.sleep(0.2)

    asyncio.run(waiting())


def test_a_second_ctrl_c_ends_the_watcher_at_once(
    settings: Settings, tmp_path: Path, fake_ollama: FakeOllama, empty_db: object
) -> None:
    """The first stop applies what waits, for at most STOP_FLUSH_S, here a change the slow
    embedder holds; a second Ctrl-C does not wait for it."""
    entered, released = _slow_embedder(fake_ollama)
    vault = tmp_path / "vault"
    put(vault, "Lake.md", "# Lake\n\nA note with no bird.\n")
    # The change waits out a minute's debounce: only the stop applies it.
    watcher = _watch(settings, tmp_path, vault, {"KNOTWORK_WATCH_DEBOUNCE_MS": "60000"})
    try:
        until_watching(watcher)
        put(vault, "Heron.md", "# Heron\n\nA heron by the lake.\n")
        _waiting_said(settings)
        assert not entered.is_set(), "applied before the stop"
        watcher.send_signal(signal.SIGINT)
        assert entered.wait(30), "the stop did not apply the waiting change"
        assert _ended(watcher, 2) is None  # the first stop waits for the change
        watcher.send_signal(signal.SIGINT)
        took = _ended(watcher, 5)
        assert took is not None, "a second Ctrl-C did not end the watcher"
        assert not released.is_set()
    finally:
        released.set()
        if watcher.poll() is None:
            watcher.kill()
            watcher.wait()
    assert watcher.returncode == -signal.SIGINT


def test_ctrl_c_during_a_periodic_rescan_cancels_it_and_applies_what_waited(
    settings: Settings, tmp_path: Path, fake_ollama: FakeOllama, empty_db: object
) -> None:
    """A rescan minutes long on a large vault must not hold a stop: it is cancelled as the
    start-up sync is, and the change it had taken off the queue is applied by the stop."""
    calls = 0
    entered, released = threading.Event(), threading.Event()

    def embed(texts: list[str], dim: int) -> list[list[float]]:
        nonlocal calls
        if any("heron" in text for text in texts):
            calls += 1
            if calls == 1:  # the rescan's: held; the stop's own write is answered at once
                entered.set()
                released.wait(HELD_S)
        return [hash_embedding(text, dim) for text in texts]

    fake_ollama.embed_script = embed
    vault = tmp_path / "vault"
    put(vault, "Lake.md", "# Lake\n\nA note with no bird.\n")
    # The change waits out a minute's debounce, so the rescan due every 3 s is what takes it.
    watcher = _watch(
        settings,
        tmp_path,
        vault,
        {"KNOTWORK_WATCH_DEBOUNCE_MS": "60000", "KNOTWORK_WATCH_RESCAN_S": "3"},
    )
    try:
        out = until_watching(watcher)
        put(vault, "Heron.md", "# Heron\n\nA heron by the lake.\n")
        assert entered.wait(60), "no rescan embedded the new note"
        watcher.send_signal(signal.SIGINT)
        took = _ended(watcher, 20)
        assert took is not None, "the watcher did not stop within 20 s of Ctrl-C"
        assert not released.is_set()  # the rescan's embedding was still held
        said = out.read()
    finally:
        released.set()
        if watcher.poll() is None:
            watcher.kill()
            watcher.wait()
    assert watcher.returncode == 0, said
    assert calls == 2, f"the stop did not apply the change the rescan took ({calls} calls)"

    fake_ollama.embed_script = None

    async def differences() -> list[object]:
        async with open_core(settings) as core:
            ingestor = Ingestor(core, root=vault, vault="s", extract_enabled=False)
            return list(await verify_vault(ingestor))

    assert asyncio.run(differences()) == []  # Heron.md is in the graph as on disk
