"""A watcher killed (`kill -9`) keeps its lease until it lapses; a writer started meanwhile on
the same machine waits for that lapse, saying why, instead of being refused and told that the
watcher — a process that no longer exists — does its work."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from knotwork.graph.lease_gone import process_ns
from knotwork.settings import Settings
from tests.fakes.ollama import FakeOllama
from tests.integration.conftest import put
from tests.integration.test_watch_stop import _watch, until_watching
from tests.integration.test_watch_summary import _env

pytestmark = pytest.mark.skipif(process_ns() is None, reason="no /proc to tell pid namespaces")


TTL = {"KNOTWORK_LEASE_TTL_S": "30"}  # longer than a loaded machine takes to start `ingest`


def _lake_watched(settings: Settings, tmp_path: Path) -> tuple[Path, subprocess.Popen[str]]:
    """A one-note vault, and a watcher of it that says it watches."""
    vault = tmp_path / "vault"
    put(vault, "Lake.md", "# Lake\n\nA note.\n")
    watcher = _watch(settings, tmp_path, vault, TTL)
    until_watching(watcher)
    return vault, watcher


def _ingest(settings: Settings, tmp_path: Path, vault: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "knotwork.cli", "ingest", str(vault), "--no-extract"],
        # Another TTL than the watcher's: the wait is for the watcher's own lapse.
        env={**_env(settings), "KNOTWORK_EXTRACT": "false", "KNOTWORK_LEASE_TTL_S": "45"},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_writer_waits_out_the_lease_of_a_killed_watcher(
    settings: Settings, tmp_path: Path, fake_ollama: FakeOllama, empty_db: object
) -> None:
    vault, watcher = _lake_watched(settings, tmp_path)
    watcher.send_signal(signal.SIGKILL)
    watcher.wait()
    put(vault, "Heron.md", "# Heron\n\nWritten while no watcher ran.\n")
    began = time.monotonic()
    done = _ingest(settings, tmp_path, vault)
    took = time.monotonic() - began
    assert done.returncode == 0, done.stderr
    assert f"(pid {watcher.pid} on this machine), which is no longer running" in done.stderr
    assert "its lease lapses 30 s after its last heartbeat" in done.stderr, done.stderr
    assert "written 1" in done.stdout, done.stdout
    assert took < 30 + 5 + 30, took  # the TTL, its slack, the start-up


def test_a_writer_is_still_refused_by_a_watcher_that_runs(
    settings: Settings, tmp_path: Path, fake_ollama: FakeOllama, empty_db: object
) -> None:
    vault, watcher = _lake_watched(settings, tmp_path)
    try:
        done = _ingest(settings, tmp_path, vault)
    finally:
        watcher.terminate()
        watcher.wait(60)
    assert done.returncode != 0
    assert "no longer running" not in done.stderr
    assert "is being written by the watcher" in done.stderr, done.stderr
