"""scripts/run starts the API only once the watcher holds the vault (its ready file), however
long the watcher takes to get there or to refuse: a watcher that cannot start stops the script
before any API is served. The script runs in a copy of the repository whose steps before the
watcher (init-env, bootstrap, Neo4j, init, doctor, ollama) are stand-ins that do nothing, and
whose `knotwork watch` and `knotwork serve` are stand-ins that log what they did."""

from __future__ import annotations

import shutil
import stat
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO

# The stand-in `knotwork`: what the script's steps before the watcher ask of it does nothing;
# `watch` and `serve` log to $RUN_LOG and do what the test's $WATCH_SAYS and $SERVE_EXIT say.
KNOTWORK = """#!/usr/bin/env bash
set -eu
case "$1" in
  neo4j|init|doctor) exit 0 ;;
  watch)
    ready=${3:-}  # watch --ready-file FILE
    sleep "$WATCH_AFTER_S"
    if [ "$WATCH_SAYS" = refused ]; then
      echo "watch refused" >>"$RUN_LOG"
      echo "error: no vault folder: set KNOTWORK_VAULT_PATH or pass a path" >&2
      exit 2
    fi
    echo "watch ready" >>"$RUN_LOG"
    if [ -n "$ready" ]; then touch "$ready"; fi
    exec sleep 60 ;;
  serve)
    echo "serve" >>"$RUN_LOG"
    exit 3 ;;
esac
"""


def _script(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def run_script(tmp_path: Path, watch_says: str, after_s: float) -> tuple[int, str, list[str]]:
    repo = tmp_path / "repo"
    (repo / "scripts").mkdir(parents=True)
    shutil.copy(REPO / "scripts" / "run", repo / "scripts" / "run")
    _script(repo / "scripts" / "init-env", "#!/bin/sh\ntouch .env\n")
    _script(repo / "scripts" / "bootstrap", "#!/bin/sh\n")
    _script(repo / ".venv" / "bin" / "python", f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    _script(repo / ".venv" / "bin" / "knotwork", KNOTWORK)
    _script(tmp_path / "bin" / "ollama", "#!/bin/sh\n")  # no model pulled from anywhere
    log = tmp_path / "run.log"
    log.touch()
    done = subprocess.run(
        ["bash", str(repo / "scripts" / "run")],
        env={
            "PATH": f"{tmp_path / 'bin'}:/usr/bin:/bin",
            "HOME": str(tmp_path),
            "TMPDIR": str(tmp_path),
            "RUN_LOG": str(log),
            "WATCH_SAYS": watch_says,
            "WATCH_AFTER_S": str(after_s),
        },
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done.returncode, done.stderr, log.read_text().splitlines()


def test_a_watcher_refusing_after_seconds_stops_the_script_before_the_api_starts(
    tmp_path: Path,
) -> None:
    """The script waited a fixed 5 s: a watcher that took longer to refuse (it loaded the
    model clients first) saw the API started, then stopped."""
    code, stderr, log = run_script(tmp_path, "refused", 6.5)
    assert code == 1, stderr
    assert log == ["watch refused"], log
    assert "error: no vault folder" in stderr
    assert "`knotwork watch` stopped (exit 2); its error is above" in stderr, stderr
    assert list(tmp_path.glob("knotwork-run.*")) == [], "its ready folder is removed"


def test_the_api_starts_once_the_watcher_is_ready_however_long_that_takes(
    tmp_path: Path,
) -> None:
    code, stderr, log = run_script(tmp_path, "ready", 6.5)
    assert log == ["watch ready", "serve"], log
    # The stand-in API stops at once: the script says so and stops the watcher.
    assert code == 1 and "`knotwork serve` stopped" in stderr, stderr
    assert list(tmp_path.glob("knotwork-run.*")) == [], "its ready folder is removed"
