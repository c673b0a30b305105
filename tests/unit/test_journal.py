"""The journal of pending REST writes: kept outside the vault, survives a restart, and its file
goes once nothing is pending."""

from __future__ import annotations

from pathlib import Path

import pytest

from knotwork.ingest.journal import Journal, journal_file, state_dir
from knotwork.settings import Settings
from tests.conftest import make_settings


def test_entries_survive_a_restart_and_the_file_goes_when_empty(tmp_path: Path) -> None:
    file = tmp_path / "state" / "default-0123456789ab.journal"
    journal = Journal(file)
    assert not journal.pending()
    ann = journal.add("People/Ann.md")
    assert journal.pending()
    ben = journal.add("Ben.md")
    again = journal.add("Ben.md")  # another write of the same note: its own entry
    assert Journal(file).paths() == ["Ben.md", "People/Ann.md"], "read back after a restart"
    journal.discard({ben})
    assert journal.paths() == ["Ben.md", "People/Ann.md"], "the other write's entry stays"
    journal.discard({ann, again})
    assert not file.exists() and len(Journal(file)) == 0 and not journal.pending()
    names = sorted(p.name for p in file.parent.iterdir())
    assert names == [f"{file.name}.lock"], "no temp file left behind"


def test_a_line_of_an_older_version_is_read_as_an_entry(tmp_path: Path) -> None:
    file = tmp_path / "default-0123456789ab.journal"
    file.write_text("Old.md\n")
    journal = Journal(file)
    assert journal.paths() == ["Old.md"] and journal.entries("Old.md") == {("Old.md", "")}
    journal.discard(journal.entries("Old.md"))
    assert not file.exists()


def test_the_journal_lives_outside_the_vault_one_per_vault_and_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    vault = tmp_path / "vault"
    one = make_settings(vault_path=vault)
    assert state_dir(one) == tmp_path / "xdg" / "knotwork"
    assert journal_file(one).parent == tmp_path / "xdg" / "knotwork"
    assert journal_file(one).name.startswith("default-")
    other_db = make_settings(vault_path=vault, neo4j_uri="bolt://elsewhere:7687")
    assert journal_file(other_db) != journal_file(one)
    assert journal_file(make_settings(vault_path=vault, state_dir=tmp_path / "s")).parent == (
        tmp_path / "s"
    )


def test_an_empty_state_dir_setting_means_the_default(tmp_path: Path) -> None:
    env = tmp_path / ".env"
    env.write_text("KNOTWORK_STATE_DIR=\n")  # as .env.example leaves it
    settings = Settings(_env_file=env)  # type: ignore[call-arg]
    assert settings.state_dir is None, "not the working directory, which may be the vault"


def test_two_processes_sharing_the_journal_keep_each_others_entries(tmp_path: Path) -> None:
    file = tmp_path / "state" / "default-0123456789ab.journal"
    api, mcp = Journal(file), Journal(file)  # as the API and an MCP server of one vault
    ann = api.add("Ann.md")
    mcp.add("Ben.md")
    theirs = mcp.add("Ann.md")  # the MCP server writes Ann.md too
    api.discard({ann})  # the API's write is done (or refused): the MCP server's stays
    assert mcp.paths() == ["Ann.md", "Ben.md"] and api.paths() == ["Ann.md", "Ben.md"]
    assert api.entries("Ann.md") == {theirs}


def test_a_name_with_a_unicode_line_separator_is_one_entry(tmp_path: Path) -> None:
    file = tmp_path / "default-0123456789ab.journal"
    Journal(file).add("Notes\u2028and\u0085more.md")
    assert Journal(file).paths() == ["Notes\u2028and\u0085more.md"]
