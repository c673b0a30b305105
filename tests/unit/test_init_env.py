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
