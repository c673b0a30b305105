"""scripts/init-env writes the .env the README describes: secrets generated, vault set, the
key a client reads with the README's own command, never overwritten."""

from __future__ import annotations

import shutil
import stat
import subprocess
from pathlib import Path

from knotwork.settings import Settings
from tests.conftest import REPO


def init_env(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "scripts").mkdir(exist_ok=True)
    shutil.copy(REPO / "scripts" / "init-env", tmp_path / "scripts" / "init-env")
    shutil.copy(REPO / "scripts" / "env_quote.py", tmp_path / "scripts" / "env_quote.py")
    shutil.copy(REPO / ".env.example", tmp_path / ".env.example")
    return subprocess.run(
        ["bash", str(tmp_path / "scripts" / "init-env"), *args],
        capture_output=True,
        text=True,
        check=True,
    )


def test_init_env_writes_secrets_and_the_vault_and_the_readme_reads_the_key(
    tmp_path: Path,
) -> None:
    vault = tmp_path / "My Vault"
    vault.mkdir()
    init_env(tmp_path, str(vault))
    env = tmp_path / ".env"
    assert stat.S_IMODE(env.stat().st_mode) == 0o600
    settings = Settings(_env_file=str(env))  # type: ignore[call-arg]
    assert settings.api_key is not None and len(settings.api_key.get_secret_value()) >= 16
    assert settings.neo4j_password is not None
    assert len(settings.neo4j_password.get_secret_value()) >= 16
    assert settings.vault_path == vault
    # The README's first-question command reads the key this way.
    read = subprocess.run(
        ["sed", "-n", "s/^KNOTWORK_API_KEY=//p", str(env)], capture_output=True, text=True
    )
    assert read.stdout.strip() == settings.api_key.get_secret_value()


def test_init_env_never_overwrites_an_existing_env(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("KNOTWORK_API_KEY=mine-and-long-enough-0000\n")
    result = init_env(tmp_path)
    assert "leaving it as it is" in result.stdout
    assert (tmp_path / ".env").read_text() == "KNOTWORK_API_KEY=mine-and-long-enough-0000\n"


def test_a_vault_path_with_shell_and_env_characters_is_written_as_it_is(tmp_path: Path) -> None:
    """'&' once wrote a corrupt path (sed's replacement), '|' an empty .env; '#' and '$' mean
    something to .env readers unless quoted."""
    vault = tmp_path / "R&D | notes #1 $HOME"
    vault.mkdir()
    init_env(tmp_path, str(vault))
    settings = Settings(_env_file=str(tmp_path / ".env"))  # type: ignore[call-arg]
    assert settings.vault_path == vault
    assert stat.S_IMODE((tmp_path / ".env").stat().st_mode) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        ".env",
        ".env.example",
        "R&D | notes #1 $HOME",
        "scripts",
    ]


def test_a_relative_vault_path_is_taken_from_where_the_command_runs(tmp_path: Path) -> None:
    (tmp_path / "here" / "notes").mkdir(parents=True)
    (tmp_path / "scripts").mkdir()
    shutil.copy(REPO / "scripts" / "init-env", tmp_path / "scripts" / "init-env")
    shutil.copy(REPO / "scripts" / "env_quote.py", tmp_path / "scripts" / "env_quote.py")
    shutil.copy(REPO / ".env.example", tmp_path / ".env.example")
    subprocess.run(
        ["bash", str(tmp_path / "scripts" / "init-env"), "notes"],
        cwd=tmp_path / "here",
        check=True,
        capture_output=True,
    )
    settings = Settings(_env_file=str(tmp_path / ".env"))  # type: ignore[call-arg]
    assert settings.vault_path == tmp_path / "here" / "notes"
    missing = subprocess.run(
        ["bash", str(tmp_path / "scripts" / "init-env"), "nowhere"],
        cwd=tmp_path / "here",
        capture_output=True,
        text=True,
    )
    assert missing.returncode == 2 and "'nowhere' does not exist" in missing.stderr


def test_a_vault_path_with_a_single_quote_is_written_double_quoted(tmp_path: Path) -> None:
    """A path like "Mario's Vault" was refused, with advice (copy .env.example) that left no
    password, so the next step sent the user back to init-env, which leaves .env alone."""
    vault = tmp_path / "Mario's Vault #2 & co"
    vault.mkdir()
    init_env(tmp_path, str(vault))
    settings = Settings(_env_file=str(tmp_path / ".env"))  # type: ignore[call-arg]
    assert settings.vault_path == vault
    assert settings.neo4j_password is not None
    assert f'\nVAULT_PATH="{vault}"\n' in (tmp_path / ".env").read_text()


def test_a_vault_path_no_env_value_holds_is_refused_with_a_way_out(tmp_path: Path) -> None:
    vault = tmp_path / "Mario's $HOME"
    vault.mkdir()
    try:
        init_env(tmp_path, str(vault))
    except subprocess.CalledProcessError as exc:
        assert "run scripts/init-env with no path and set KNOTWORK_VAULT_PATH" in exc.stderr
    else:
        raise AssertionError("a path no .env value can hold as written was accepted")
    assert not (tmp_path / ".env").exists()
