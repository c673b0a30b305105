"""The journal of pending REST writes: kept outside the vault, survives a restart, and its file
goes once nothing is pending."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from knotwork.ingest.journal import Journal, settings_journal
from knotwork.ingest.journal_entry import DELETED, LANDED, Entry
from knotwork.ingest.journal_place import journal_file, legacy_journal_file, state_dir
from knotwork.settings import Settings
from tests.conftest import make_settings

try:
    import fcntl
except ImportError:  # not POSIX
    fcntl = None  # type: ignore[assignment]


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
    assert journal.paths() == ["Old.md"] and journal.entries("Old.md") == {Entry("Old.md", "")}
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


def test_each_entry_keeps_what_its_write_intends_and_whether_it_landed(tmp_path: Path) -> None:
    file = tmp_path / "default-0123456789ab.journal"
    file.write_text("Old.md\tabc\n")  # an older version's line: kept as it was
    journal = Journal(file)
    put = journal.add("Ann.md", "f" * 64)
    gone = journal.add("Ann.md", DELETED)
    assert (put.intent, gone.intent) == ("f" * 64, DELETED) and not put.landed
    assert Journal(file).held() == {Entry("Old.md", "abc"), put, gone}, "read back whole"
    before = file.read_text()
    journal.landed(put)  # its file changed: said beside the journal, which is not rewritten
    landed = put._replace(state=LANDED)
    assert file.read_text() == before
    assert Journal(file).held() == {Entry("Old.md", "abc"), landed, gone}
    later = journal.add("Ben.md", "e" * 64)  # the next rewrite puts the mark in its line
    lines = file.read_text().split("\n")
    assert "Old.md\tabc" in lines and f"Ann.md\t{put.token}\t{put.intent}\tlanded" in lines
    assert not journal.marks.exists()
    journal.discard({put, later})  # the write's own entry, whatever its state since
    assert Journal(file).held() == {Entry("Old.md", "abc"), gone}


def test_a_landed_mark_a_crash_cut_marks_nothing_and_only_marks_its_own(tmp_path: Path) -> None:
    """The mark is not flushed: a crash may leave it cut or as NUL bytes; that marks no
    entry (the entry then waits for its hash, or the replay), and a whole mark marks its
    entry alone."""
    file = tmp_path / "default-0123456789ab.journal"
    journal = Journal(file)
    put, other = journal.add("Ann.md", "f" * 64), journal.add("Ann.md", "e" * 64)
    journal.marks.write_bytes(put.token[:5].encode() + b"\n\0\0\0\0")
    assert Journal(file).held() == {put, other}
    journal.landed(put)
    assert Journal(file).held() == {put._replace(state=LANDED), other}


def test_a_later_versions_fields_survive_a_rewrite(tmp_path: Path) -> None:
    """A later version's line holds more than this one reads: rewritten with another entry,
    it is kept whole (dropping what a later version relies on could lose its write)."""
    file = tmp_path / "default-0123456789ab.journal"
    later = "Next.md\t0123456789ab\t" + "e" * 64 + "\tlanded\t17\tsomething new"
    file.write_text(f"{later}\n")
    journal = Journal(file)
    journal.discard({journal.add("Ann.md", "f" * 64)})
    journal.landed(Entry("Next.md", "0123456789ab"))  # already landed: left as it is
    assert file.read_text() == f"{later}\n"


def test_an_older_version_reads_and_keeps_this_versions_lines(tmp_path: Path) -> None:
    """An older version (one path and one token a line) reads a line of this one as its path
    and a long token, and writes it back whole: nothing of it is lost, and it replays it."""
    file = tmp_path / "default-0123456789ab.journal"
    journal = Journal(file)
    put = journal.add("Ann.md", "f" * 64)
    journal.landed(put)
    gone = journal.add("Notes/Ben.md", DELETED)

    older: set[tuple[str, str]] = set()  # the older version's reading, as its code did
    for line in file.read_text().split("\n"):
        if line:
            rel, _, token = line.partition("\t")
            older.add((rel, token))
    assert sorted(rel for rel, _ in older) == ["Ann.md", "Notes/Ben.md"]
    file.write_text("".join(f"{rel}\t{token}\n" for rel, token in sorted(older)))
    assert Journal(file).held() == {put._replace(state=LANDED), gone}


def test_a_journal_named_by_an_earlier_version_is_read_and_moved(tmp_path: Path) -> None:
    settings = make_settings(vault_path=tmp_path / "vault", state_dir=tmp_path / "state")
    old, new = legacy_journal_file(settings), journal_file(settings)
    assert old != new and old.parent == new.parent
    old.parent.mkdir()
    old.write_text("Pending.md\tabc\nOther.md\n")  # left by the earlier version
    journal = settings_journal(settings)
    assert journal.pending() and journal.paths() == ["Other.md", "Pending.md"]
    added = journal.add("New.md", DELETED)
    assert not old.exists(), "moved under the lock"
    assert Journal(new).paths() == ["New.md", "Other.md", "Pending.md"]
    journal.discard(journal.entries("Pending.md") | journal.entries("Other.md") | {added})
    assert not new.exists() and not journal.pending()


def test_a_journal_named_by_an_earlier_version_goes_with_its_last_entry(tmp_path: Path) -> None:
    settings = make_settings(vault_path=tmp_path / "vault", state_dir=tmp_path / "state")
    old = legacy_journal_file(settings)
    old.parent.mkdir()
    old.write_text("Pending.md\n")
    journal = settings_journal(settings)
    journal.discard(journal.entries("Pending.md"))  # replayed
    assert not old.exists() and not journal.pending() and journal.paths() == []


def _lock_taken(lock_file: Path) -> bool:
    """Whether another holder has ``lock_file`` locked (as an older version locks its own)."""
    fd = os.open(lock_file, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


@pytest.mark.skipif(fcntl is None, reason="no advisory locks")
def test_the_earlier_versions_lock_is_taken_even_while_its_file_is_absent(
    tmp_path: Path,
) -> None:
    """An earlier version beside this one locks its own file's lock alone, and may create its
    file at any time: a change here holds that lock too, so it cannot create it meanwhile."""
    settings = make_settings(vault_path=tmp_path / "vault", state_dir=tmp_path / "state")
    journal = settings_journal(settings)
    old = legacy_journal_file(settings)
    old_lock = old.with_name(f"{old.name}.lock")
    with journal._locked():
        assert not old.exists() and _lock_taken(old_lock)
    assert not _lock_taken(old_lock)


def test_an_earlier_versions_file_is_deleted_only_when_this_change_read_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The earlier version's file appearing after this change read the journal (a file system
    without locks) is not deleted unread: its entry stays due."""
    settings = make_settings(vault_path=tmp_path / "vault", state_dir=tmp_path / "state")
    journal = settings_journal(settings)
    old = legacy_journal_file(settings)
    load = Journal._load

    def then_the_earlier_version_writes(self: Journal) -> tuple[set[Entry], bool]:
        got = load(self)
        if not old.exists():
            old.write_text("Theirs.md\tabc\n")
        return got

    monkeypatch.setattr(Journal, "_load", then_the_earlier_version_writes)
    journal.add("Mine.md", "f" * 64)
    monkeypatch.undo()
    assert old.exists() and journal.paths() == ["Mine.md", "Theirs.md"]
