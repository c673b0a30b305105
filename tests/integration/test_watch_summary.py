"""`knotwork watch`'s start-up: its summary says the chunks its first sync leaves to the model's
background work as such, never as a model that was not available (nor as `knotwork retry`'s,
which the watcher refuses), and its ready file comes once it holds the vault."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO

from knotwork.core import open_core
from knotwork.graph.lease import lease_status
from knotwork.settings import Settings
from tests.fakes.ollama import FakeOllama
from tests.integration.conftest import put


def _env(settings: Settings) -> dict[str, str]:
    return {
        **os.environ,
        "KNOTWORK_NEO4J_URI": settings.neo4j_uri,
        "KNOTWORK_NEO4J_PASSWORD": settings.password(),
        "KNOTWORK_OLLAMA_BASE_URL": settings.ollama_base_url,
        "KNOTWORK_VAULT_NAME": "s",
        "KNOTWORK_EXTRACT": "true",
        "KNOTWORK_LEASE_TTL_S": "5",
    }


def _watched_then_stopped(vault: Path, settings: Settings, cwd: Path, stderr: IO[str] | int) -> str:
    """What `knotwork watch` prints to stdout when stopped by SIGTERM once it says it is
    watching (or has ended by itself, or 90 s have passed)."""
    watcher = subprocess.Popen(
        [sys.executable, "-m", "knotwork.cli", "watch", str(vault)],
        env=_env(settings),
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
    )
    lines: list[str] = []
    try:
        assert watcher.stdout is not None
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and not any(x.startswith("watching") for x in lines):
            line = watcher.stdout.readline()
            if not line and watcher.poll() is not None:
                break
            lines.append(line)
        watcher.send_signal(signal.SIGTERM)
        lines.append(watcher.stdout.read())
        watcher.wait(timeout=60)
    finally:
        if watcher.poll() is None:
            watcher.kill()
            watcher.wait()
    return "".join(lines)


def test_the_start_up_summary_says_the_watcher_extracts_in_the_background(
    settings: Settings, tmp_path: Path, fake_ollama: FakeOllama, empty_db: object
) -> None:
    held = threading.Event()
    fake_ollama.chat_script = lambda body: (held.wait(60), '{"entities": [], "triples": []}')[1]
    vault = tmp_path / "vault"
    put(vault, "Ann.md", "# Ann\n\nAnn works with Ben.\n")
    put(vault, "Ben.md", "# Ben\n\nBen is a chemist.\n")
    try:  # stopped while the model still holds both chunks
        said = _watched_then_stopped(vault, settings, tmp_path, subprocess.DEVNULL)
    finally:
        held.set()
    assert "pending: 2 chunks wait for model extraction; this watcher does them in the" in said, (
        said
    )
    # Not `knotwork retry`, which is refused while the watcher holds the vault.
    assert "knotwork retry" not in said.partition("stopped watching")[0], said
    assert "not available" not in said, said
    # Stopped, it says what it leaves: nothing unwritten, the model's two chunks for later.
    assert f"stopped watching {vault}\n" in said, said
    assert "2 chunks wait for the model's extraction: the next `knotwork watch`" in said, said
    assert "changes were not written" not in said, said


def test_the_ready_file_comes_once_the_watcher_holds_the_vault(
    settings: Settings, tmp_path: Path, fake_ollama: FakeOllama, empty_db: object
) -> None:
    """What scripts/run waits for before it starts the API: not a fixed few seconds."""
    vault, ready = tmp_path / "vault", tmp_path / "run" / "watching"
    put(vault, "Ann.md", "# Ann\n\nAnn works with Ben.\n")
    ready.parent.mkdir()
    watcher = subprocess.Popen(
        [sys.executable, "-m", "knotwork.cli", "watch", str(vault), "--ready-file", str(ready)],
        env=_env(settings),
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )

    async def holder() -> dict[str, object] | None:
        async with open_core(settings) as core:
            return await lease_status(core.store, "s")

    try:
        deadline = time.monotonic() + 90
        while not ready.exists() and watcher.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert ready.exists(), f"no ready file (exit {watcher.poll()})"
        lease = asyncio.run(holder())
        assert lease is not None and lease["live"] and lease["pid"] == watcher.pid, lease
        assert lease["watches"] is True, lease
    finally:
        watcher.send_signal(signal.SIGTERM)
        try:
            watcher.wait(timeout=60)
        except subprocess.TimeoutExpired:
            watcher.kill()
            watcher.wait()


def test_another_vaults_folder_is_refused_before_the_ready_file(
    settings: Settings, tmp_path: Path, fake_ollama: FakeOllama, empty_db: object
) -> None:
    """A second vault under the vault's name: the watcher made its ready file, so scripts/run
    started the API, and only its first sync then refused the folder."""
    first, other, ready = tmp_path / "first", tmp_path / "other", tmp_path / "watching"
    for name in ("Alpha", "Beta", "Gamma"):
        put(first, f"{name}.md", f"# {name}\n\n{name} works with Ann.\n")
    put(other, "Unrelated.md", "# Unrelated\n\nNothing of the first vault.\n")
    env = _env(settings)
    ingest = [sys.executable, "-m", "knotwork.cli", "ingest", str(first), "--no-extract"]
    subprocess.run(ingest, env=env, cwd=tmp_path, check=True, capture_output=True)
    watch = [sys.executable, "-m", "knotwork.cli", "watch", str(other), "--ready-file", str(ready)]
    watcher = subprocess.Popen(
        watch, env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 90
        while not ready.exists() and watcher.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        made = ready.exists()
    finally:
        if watcher.poll() is None:
            watcher.send_signal(signal.SIGTERM)
        _, err = watcher.communicate(timeout=60)
    assert not made, "the ready file came before the refusal"
    assert watcher.returncode == 2, err
    said = " ".join(err.split())
    assert (
        f"error: vault 's' holds 3 notes synced from {first.resolve()}; this folder, "
        f"{other.resolve()}, holds 0 of them"
    ) in said, said
    assert "For a second vault, set another KNOTWORK_VAULT_NAME" in said, said


def test_a_model_down_at_start_up_is_said_once_not_once_a_note_nor_twice(
    settings: Settings, tmp_path: Path, fake_ollama: FakeOllama, empty_db: object
) -> None:
    """Ollama down, the first sync logged one warning a note ("<note>: embedding model
    unavailable; N chunks wait…"), then printed them again in the summary under the pending
    line that says it; a note's own warning was said twice, logged and printed."""
    fake_ollama.down = True
    vault = tmp_path / "vault"
    for name in ("Ann", "Ben", "Cai", "Dee"):
        put(vault, f"{name}.md", f"# {name}\n\n{name} works with [[Acme Corp]].\n")
    put(vault, "Odd.md", "---\nkey: [unclosed\n---\nOdd works.\n")
    err = tmp_path / "watch.log"
    with err.open("w") as log_file:
        printed = _watched_then_stopped(vault, settings, tmp_path, log_file)
    logged = err.read_text()
    pending = "pending: 5 chunks wait for their embedding, 5 for model extraction (the embedding"
    assert pending in printed, printed
    for said in (printed, logged):
        assert not re.search(r"\.md: embedding model unavailable", said), said
    assert logged.count("the embedding model unavailable (") == 1, logged  # the outage, once
    # The note's own warning: in the summary, once, not in the log as well.
    assert printed.count("warning: Odd.md: frontmatter ignored") == 1, printed
    assert "Odd.md: frontmatter ignored" not in logged, logged
    assert "  [[Acme Corp]] from Ann.md, Ben.md, Cai.md, … and 1 more" in printed, printed
    # Stopped, it counts what the chunks owe as the summary did (ingest/owed.py reads both).
    stopped = printed.partition("stopped watching")[2]
    assert "5 chunks wait for their embedding, 5 for the model's extraction: the" in stopped, (
        printed
    )


def test_start_up_warnings_past_the_summarys_list_are_logged_not_lost(
    settings: Settings, tmp_path: Path, fake_ollama: FakeOllama, empty_db: object
) -> None:
    """The start-up sync's warnings are printed in its summary, not logged as well; the
    summary lists 30, and those past it were said nowhere."""
    vault = tmp_path / "vault"
    for i in range(32):
        put(vault, f"Odd{i:02}.md", "---\nkey: [unclosed\n---\nOdd works.\n")
    err = tmp_path / "watch.log"
    with err.open("w") as log_file:
        printed = _watched_then_stopped(vault, settings, tmp_path, log_file)
    logged = err.read_text()
    assert "… and 2 more warnings" in printed, printed
    listed = [n for n in range(32) if f"warning: Odd{n:02}.md: frontmatter ignored" in printed]
    assert len(listed) == 30, printed
    for n in sorted(set(range(32)) - set(listed)):  # the two past the list: in the log, once
        assert logged.count(f"Odd{n:02}.md: frontmatter ignored") == 1, logged
    for n in listed:  # the listed ones: printed only
        assert f"Odd{n:02}.md: frontmatter ignored" not in logged, logged
