"""The journal entries of writes handed to a watcher leave the journal once the watcher applied
them, each on its own evidence: the graph's note holding the content hash its write puts (gone,
for a delete) at the second look at the earliest, or — its file written — the entry seen at the
previous look too and the graph now showing the disk (the note changed again since: a user's
edit or delete). An entry whose file is not written yet stays for ``UNLANDED_FOR_S``, however
many looks: the replay applies it should the watcher die first."""

from __future__ import annotations

from pathlib import Path

from knotwork.check.verify import verify_vault
from knotwork.core import Core
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.journal import Journal
from knotwork.ingest.journal_entry import DELETED
from knotwork.serving.writes import put_note
from knotwork.text.digest import text_hash
from tests.integration.conftest import ad_hoc, put
from tests.integration.test_watched_writes import LAPSE, _here, _watcher_lease, _writers

FIRST, SECOND = "# Slow\n\nFirst.\n", "# Slow\n\nSecond, written slowly.\n"


async def test_a_slow_writers_entry_stays_until_the_graph_holds_what_it_writes(
    core: Core, vault: Path, tmp_path: Path
) -> None:
    """Another process (an MCP server with writes) journals its write, then takes long to
    change the file: however many looks pass, the graph still holding the old version keeps
    its entry; the graph holding what it wrote takes it back. A delete alike."""
    here = _here(core, vault)
    ingestor = Ingestor(here, root=vault, extract_enabled=False)  # what the watcher writes
    put(vault, "Slow.md", FIRST)
    put(vault, "Gone.md", "# Gone\n")
    for path in ("Slow.md", "Gone.md"):
        await ingestor.upsert_path(path)
    await _watcher_lease(here, vault, ttl_s=30)
    async with _writers(here, tmp_path / "journal") as writers:
        other = Journal(writers.journal.file)  # the other process's view of the shared file
        slow = other.add("Slow.md", text_hash(SECOND))
        gone = other.add("Gone.md", DELETED)
        for _ in range(3):  # more than the two looks an entry once had to wait
            assert await writers.replay_once() == 0
            assert writers.journal.held() == {slow, gone}, "the graph shows neither write"
        put(vault, "Slow.md", SECOND)  # the file changes at last; the watcher not there yet
        (vault / "Gone.md").unlink()
        assert await writers.replay_once() == 0 and writers.journal.held() == {slow, gone}
        await ingestor.upsert_path("Slow.md")  # the watcher sees them
        assert await writers.replay_once() == 0 and writers.journal.held() == {gone}
        await ingestor.delete("Gone.md")
        assert await writers.replay_once() == 0 and writers.journal.held() == set()
        assert await verify_vault(ingestor) == []


async def test_a_slow_writers_entry_is_replayed_when_the_watcher_is_killed(
    core: Core, vault: Path, tmp_path: Path
) -> None:
    """The race a margin of two looks left open: the entry outlived them, the file changed
    later and the watcher was killed before it saw it; the replay applies it."""
    here = _here(core, vault)
    ingestor = Ingestor(here, root=vault, extract_enabled=False)
    put(vault, "Slow.md", FIRST)
    await ingestor.upsert_path("Slow.md")
    await _watcher_lease(here, vault, ttl_s=30)  # killed: never renewed nor given back
    async with _writers(here, tmp_path / "journal") as writers:
        Journal(writers.journal.file).add("Slow.md", text_hash(SECOND))
        for _ in range(3):
            assert await writers.replay_once() == 0 and writers.journal.paths() == ["Slow.md"]
        put(vault, "Slow.md", SECOND)
        await ad_hoc(here, LAPSE, {"vault": here.settings.vault_name}, write=True)
        assert await writers.replay_once() == 1
        assert writers.journal.paths() == []
        assert await verify_vault(ingestor) == []


async def test_each_entry_is_taken_back_by_its_own_write(
    core: Core, vault: Path, tmp_path: Path
) -> None:
    """Two writes of one note: the graph holding the first's text takes back the first entry
    only (at the second look: the other entry, not shown, may be a write the graph's text came
    before); the second's, its file not written yet, stays until the graph holds its text. Two
    writes both written, the watcher seeing the last alone: both go once the graph showed the
    disk to entries seen at the previous look too."""
    here = _here(core, vault)
    ingestor = Ingestor(here, root=vault, extract_enabled=False)
    await _watcher_lease(here, vault, ttl_s=30)
    async with _writers(here, tmp_path / "journal") as writers:
        assert (await put_note(here, writers, "Two.md", FIRST)).status == "accepted"
        later = Journal(writers.journal.file).add("Two.md", text_hash(SECOND))
        await ingestor.upsert_path("Two.md")  # the watcher applied the first write
        assert await writers.replay_once() == 0 and later in writers.journal.held()
        for _ in range(3):
            assert await writers.replay_once() == 0
            assert writers.journal.held() == {later}, "the later write is not in the graph"
        put(vault, "Two.md", SECOND)
        await ingestor.upsert_path("Two.md")
        assert await writers.replay_once() == 0 and writers.journal.held() == set()

        third, fourth = "# Two\n\nThird.\n", "# Two\n\nFourth.\n"
        for text in (third, fourth):  # both answered 202
            assert (await put_note(here, writers, "Two.md", text)).status == "accepted"
        await ingestor.upsert_path("Two.md")  # the watcher sees the last alone
        assert await writers.replay_once() == 0
        assert len(writers.journal.held()) == 2, "seen once: the fourth's hash may be older"
        assert await writers.replay_once() == 0 and writers.journal.held() == set()
        assert await verify_vault(ingestor) == []


async def test_a_write_added_first_but_written_last_keeps_its_entry(
    core: Core, vault: Path, tmp_path: Path
) -> None:
    """Two processes write one note: A journals first, B second, but B's file lands first and
    the watcher applies it. A's entry is not B's to take back: it stays until the graph holds
    A's text (or, the watcher killed, the replay applies A's file)."""
    here = _here(core, vault)
    ingestor = Ingestor(here, root=vault, extract_enabled=False)
    await _watcher_lease(here, vault, ttl_s=30)
    async with _writers(here, tmp_path / "journal") as writers:
        a_side, b_side = Journal(writers.journal.file), Journal(writers.journal.file)
        a_text, b_text = "# Race\n\nA's.\n", "# Race\n\nB's.\n"
        a_entry = a_side.add("Race.md", text_hash(a_text))
        b_entry = b_side.add("Race.md", text_hash(b_text))
        put(vault, "Race.md", b_text)
        b_side.landed(b_entry)
        await ingestor.upsert_path("Race.md")  # the watcher applied B's
        assert await writers.replay_once() == 0 and a_entry in writers.journal.held()
        for _ in range(3):
            assert await writers.replay_once() == 0
            assert writers.journal.held() == {a_entry}, "A's write is not on disk yet"
        put(vault, "Race.md", a_text)  # A's lands last
        a_side.landed(a_entry)
        await ingestor.upsert_path("Race.md")
        assert await writers.replay_once() == 0 and writers.journal.held() == set()
        assert await verify_vault(ingestor) == []


async def test_a_write_the_user_changed_again_leaves_the_journal(
    core: Core, vault: Path, tmp_path: Path
) -> None:
    """A write answered 202, then edited (or deleted) by the user before the watcher applied
    it: the graph never holds the write's own hash, but it shows the disk at the look after
    the one that first saw the entry, and the write's file was written: its entry goes, or the
    journal would grow while the watcher lives."""
    here = _here(core, vault)
    ingestor = Ingestor(here, root=vault, extract_enabled=False)
    put(vault, "Deleted.md", "# Deleted\n")
    await ingestor.upsert_path("Deleted.md")
    await _watcher_lease(here, vault, ttl_s=30)
    async with _writers(here, tmp_path / "journal") as writers:
        for path in ("Edited.md", "Deleted.md"):
            assert (await put_note(here, writers, path, FIRST)).status == "accepted"
        put(vault, "Edited.md", "# Slow\n\nThe user's own words.\n")
        (vault / "Deleted.md").unlink()
        await ingestor.upsert_path("Edited.md")  # the watcher sees the user's changes only
        assert await writers.replay_once() == 0
        assert writers.journal.paths() == ["Deleted.md", "Edited.md"], "one look: kept"
        for _ in range(2):
            assert await writers.replay_once() == 0
            assert writers.journal.paths() == ["Deleted.md"], "the graph holds it still"
        await ingestor.delete("Deleted.md")
        assert await writers.replay_once() == 0 and writers.journal.paths() == []
        assert await verify_vault(ingestor) == []


async def test_a_body_ingest_reads_otherwise_leaves_by_its_hash(
    core: Core, vault: Path, tmp_path: Path
) -> None:
    """A byte-order mark, CR LF line ends and decomposed letters: the hash a write says it
    puts is the one ingest stores, so its entry goes by the hash alone, at the second look
    (the first may see the graph's text from before the write), its mark of a written file
    lost."""
    here = _here(core, vault)
    ingestor = Ingestor(here, root=vault, extract_enabled=False)
    await _watcher_lease(here, vault, ttl_s=30)
    async with _writers(here, tmp_path / "journal") as writers:
        body = "\ufeff# Cafe\u0301\r\n\r\nWindows and macOS at once.\r\n"
        assert (await put_note(here, writers, "Odd.md", body)).status == "accepted"
        writers.journal.marks.unlink()  # the hash alone tells
        await ingestor.upsert_path("Odd.md")
        assert await writers.replay_once() == 0 and writers.journal.paths() == ["Odd.md"]
        assert await writers.replay_once() == 0 and writers.journal.paths() == []
