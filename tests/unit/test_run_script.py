"""scripts/run starts the API only once the watcher holds the vault (its ready file), however
long the watcher takes to get there or to refuse: a watcher that cannot start stops the script
before any API is served. A vault folder given to it is written into .env once the watcher has
taken it, so the commands run later read the same vault. The script runs in a copy of the
repository whose steps before the watcher (init-env, bootstrap, Neo4j, init, doctor, ollama)
are stand-ins that do nothing, and whose `knotwork watch` and `knotwork serve` are stand-ins
that log what they did."""

from __future__ import annotations

import shutil
import stat
import subprocess
import sys
from pathlib import Path

from dotenv import dotenv_values

from tests.conftest import REPO
from tests.fakes.ollama import FakeOllama

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


def run_script(
    tmp_path: Path,
    watch_says: str,
    after_s: float,
    *args: str,
    env: str = "",
    ollama_on_path: bool = True,
) -> tuple[int, str, list[str]]:
    """Run the script (``args``: its own, a vault folder) beside an .env holding ``env``:
    its exit code, its output (stdout, then stderr), what the stand-ins logged."""
    repo = tmp_path / "repo"
    (repo / "scripts").mkdir(parents=True)
    (repo / ".env").write_text(env)
    (repo / ".env").chmod(0o600)
    shutil.copy(REPO / "scripts" / "run", repo / "scripts" / "run")
    shutil.copy(REPO / "scripts" / "env_quote.py", repo / "scripts" / "env_quote.py")
    _script(repo / "scripts" / "init-env", "#!/bin/sh\ntouch .env\n")
    _script(repo / "scripts" / "bootstrap", "#!/bin/sh\n")
    _script(repo / ".venv" / "bin" / "python", f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    _script(repo / ".venv" / "bin" / "knotwork", KNOTWORK)
    (tmp_path / "bin").mkdir(exist_ok=True)
    if ollama_on_path:
        _script(tmp_path / "bin" / "ollama", "#!/bin/sh\n")  # no model pulled from anywhere
    log = tmp_path / "run.log"
    log.touch()
    done = subprocess.run(
        ["bash", str(repo / "scripts" / "run"), *args],
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
    return done.returncode, done.stdout + done.stderr, log.read_text().splitlines()


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


ENV = (
    "KNOTWORK_API_KEY=a-key-of-some-length-0000\n"
    "VAULT_PATH='/old/vault'\n"
    "KNOTWORK_VAULT_PATH='/old/vault'\n"
    "KNOTWORK_VAULT_NAME=odd"  # no line break at the end
)


def test_a_vault_folder_given_is_written_into_env_once_the_watcher_has_it(
    tmp_path: Path,
) -> None:
    """It was exported for the script's own run only: `knotwork doctor`, `ingest` and
    `verify` in another terminal went on reading the folder .env named before."""
    vault = tmp_path / "second vault"
    vault.mkdir()
    _, said, log = run_script(tmp_path, "ready", 0, "second vault", env=ENV)
    assert log == ["watch ready", "serve"], log
    env = tmp_path / "repo" / ".env"
    assert env.read_text() == (
        "KNOTWORK_API_KEY=a-key-of-some-length-0000\n"
        f"VAULT_PATH='{vault}'\n"
        f"KNOTWORK_VAULT_PATH='{vault}'\n"
        "KNOTWORK_VAULT_NAME=odd\n"
    )
    assert stat.S_IMODE(env.stat().st_mode) == 0o600  # it holds secrets
    assert (
        f".env named the vault folder /old/vault; it now names {vault} (KNOTWORK_VAULT_PATH "
        "and VAULT_PATH), so `knotwork doctor`, `ingest` and `verify` run from here read"
    ) in said, said
    assert sorted(p.name for p in env.parent.iterdir() if p.name.startswith(".env")) == [".env"]


def test_a_folder_the_watcher_refused_leaves_env_as_it_was(tmp_path: Path) -> None:
    (tmp_path / "odd").mkdir()
    code, said, _ = run_script(tmp_path, "refused", 0, "odd", env=ENV)
    assert code == 1, said
    assert (tmp_path / "repo" / ".env").read_text() == ENV
    assert ".env named" not in said, said


def test_the_folder_env_names_already_is_left_and_not_said(tmp_path: Path) -> None:
    """Compose's VAULT_PATH, set apart from the watcher's folder, is left as the user set it."""
    vault = tmp_path / "v"
    vault.mkdir()
    env = f"VAULT_PATH=/elsewhere\nKNOTWORK_VAULT_PATH='{vault}'\n"
    _, said, _ = run_script(tmp_path, "ready", 0, "v", env=env)
    assert (tmp_path / "repo" / ".env").read_text() == env
    assert ".env named" not in said, said


def test_a_vault_folder_with_a_single_quote_is_written_into_env_double_quoted(
    tmp_path: Path,
) -> None:
    """It was refused, with advice to write it by hand that led back to init-env."""
    vault = tmp_path / "Mario's Vault"
    vault.mkdir()
    _, said, log = run_script(tmp_path, "ready", 0, "Mario's Vault", env=ENV)
    assert log == ["watch ready", "serve"], said
    assert dotenv_values(tmp_path / "repo" / ".env")["KNOTWORK_VAULT_PATH"] == str(vault)
    assert f'VAULT_PATH="{vault}"\n' in (tmp_path / "repo" / ".env").read_text()


def test_an_ollama_elsewhere_that_has_the_models_is_not_said_to_lack_them(
    tmp_path: Path,
) -> None:
    """Without `ollama` on PATH (Ollama in a container, on another machine) every run warned
    to pull the models, which that Ollama had; now only the ones it lacks are named."""
    fake = FakeOllama().start()
    try:
        env = f"KNOTWORK_OLLAMA_BASE_URL={fake.base_url}\n"
        _, said, _ = run_script(tmp_path / "a", "ready", 0, env=env, ollama_on_path=False)
        assert "not on PATH" not in said, said
        del fake.models["llama3.1:8b"]
        _, said, _ = run_script(tmp_path / "b", "ready", 0, env=env, ollama_on_path=False)
        assert "not on PATH" in said and "  ollama pull llama3.1:8b" in said, said
        assert "ollama pull nomic-embed-text" not in said, said
    finally:
        fake.stop()
