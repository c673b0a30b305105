"""Vault files: safe paths, which files are notes, and decoding bad input without loss."""

from __future__ import annotations

import os
import shutil
import socket
from pathlib import Path

import pytest

from knotwork.errors import (
    KnotworkError,
    NoteError,
    NoteTooLargeError,
    VaultPathError,
    WriteConflictError,
)
from knotwork.vault import files
from knotwork.vault.files import (
    clean_relpath,
    decode,
    is_note,
    list_notes,
    note_path_problem,
    read_group,
    read_note,
    resolve_in_vault,
    scan_notes,
)
from knotwork.vault.write import delete_note_file, note_target, write_note_file


@pytest.mark.parametrize(
    "bad",
    [
        "/etc/passwd",
        "../x.md",
        "a/../../x.md",
        "C:\\x.md",
        "c:/x.md",
        "C:",
        "",
        "a\x00b.md",
        "a\nb.md",
        "..",
        "./",
    ],
)
def test_bad_paths_are_refused(bad: str) -> None:
    with pytest.raises(VaultPathError):
        clean_relpath(bad)


def test_paths_are_normalised() -> None:
    assert clean_relpath("./People//Alice.md") == "People/Alice.md"
    assert clean_relpath("People\\Alice.md") == "People/Alice.md"
    assert clean_relpath("Ünïcödé and spaces.md") == "Ünïcödé and spaces.md"
    # A name opening with a letter and a colon is a name, not a drive.
    assert clean_relpath("Q: why.md") == "Q: why.md"
    assert clean_relpath("Notes/A:B.md") == "Notes/A:B.md"


def test_symlink_out_of_the_vault_is_refused_and_not_listed(tmp_path: Path) -> None:
    vault, outside = tmp_path / "vault", tmp_path / "outside"
    vault.mkdir()
    outside.mkdir()
    (outside / "secret.md").write_text("secret")
    os.symlink(outside / "secret.md", vault / "link.md")
    (vault / "ok.md").write_text("ok")
    assert list_notes(vault) == ["ok.md"]
    with pytest.raises(VaultPathError, match="outside") as refused:
        resolve_in_vault(vault, "link.md")
    assert str(outside) not in str(refused.value), "where the link leads stays unsaid"


def test_listing_skips_config_trash_hidden_and_non_markdown(tmp_path: Path) -> None:
    for rel in [
        ".obsidian/app.md",
        ".trash/old.md",
        ".git/x.md",
        "a/.hidden/x.md",
        "img.png",
        "notes.txt",
        "a/b/Deep Note.MD",
        "Top.md",
        ".dot.md",
        "~tmp.md",
    ]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")
    assert list_notes(tmp_path) == ["Top.md", "a/b/Deep Note.MD"]


def test_decode_binary_huge_and_bad_utf8() -> None:
    with pytest.raises(NoteError, match="binary"):
        decode(b"\x89PNG\x00\x00", "x.md", 1000)
    with pytest.raises(NoteError, match="limit"):
        decode(b"a" * 2000, "x.md", 1000)
    note = decode(b"caf\xe9 ok", "x.md", 1000)
    assert note.text == "caf\ufffd ok" and "not valid UTF-8" in note.warnings[0]
    assert decode("\ufeffhello".encode(), "x.md", 1000).text == "hello"
    for encoding in ("utf-16", "utf-16-be"):
        data = ("\ufeff" if encoding.endswith("be") else "") + "# Notepad note"
        with pytest.raises(NoteError, match=r"UTF-16 text .* save it as UTF-8"):
            decode(data.encode(encoding), "x.md", 1000)


def test_read_note_reports_size_before_reading(tmp_path: Path) -> None:
    (tmp_path / "big.md").write_bytes(b"a" * 5000)
    with pytest.raises(NoteError, match="5000 bytes"):
        read_note(tmp_path, "big.md", 1000)
    with pytest.raises(NoteError, match="cannot be read"):
        read_note(tmp_path, "missing.md", 1000)


@pytest.mark.parametrize(
    ("rel", "why"),
    [
        (".hidden/x.md", "'.hidden'"),
        (".Obsidian/x.md", "'.Obsidian'"),
        ("a/.TRASH/x.md", "'.TRASH'"),
        ("Node_Modules/pkg/x.md", "'Node_Modules'"),
        (".x.md", "hidden or temporary"),
        ("a/~lock.md", "hidden or temporary"),
        ("notes.txt", "not a Markdown note"),
        ("x.md.swp", "not a Markdown note"),
    ],
)
def test_ignored_places_are_not_notes_and_say_why(rel: str, why: str) -> None:
    """One predicate for the watcher, ingest and the write routes: each refusal has a reason."""
    assert not is_note(rel)
    assert why in (note_path_problem(rel) or "")


def test_notes_in_any_case_and_folder_are_notes() -> None:
    for rel in ["a/b/Deep Note.MD", "Top.md", "~folder/x.md", "a.b/c.md"]:
        assert note_path_problem(rel) is None and is_note(rel), rel


def test_symlinks_inside_the_vault_are_skipped_with_a_warning(tmp_path: Path) -> None:
    """A link's name is never ingested with its target's text: linked notes and linked folders
    are left out, each with a warning naming it, and reading through a link is refused."""
    (tmp_path / "People").mkdir()
    (tmp_path / "People/Bob.md").write_text("# Bob\n")
    os.symlink("People/Bob.md", tmp_path / "boblink.md")
    os.symlink("People", tmp_path / "Linked")
    scan = scan_notes(tmp_path)
    assert scan.paths == ["People/Bob.md"] == list_notes(tmp_path)
    assert any(w.startswith("boblink.md: a symbolic link") for w in scan.warnings), scan.warnings
    assert any(w.startswith("Linked: a symbolic link to a folder") for w in scan.warnings)
    with pytest.raises(NoteError, match="symbolic link"):
        read_note(tmp_path, "boblink.md", 1000)
    with pytest.raises(NoteError, match="Linked is a symbolic link"):
        read_note(tmp_path, "Linked/Bob.md", 1000)


def test_a_linked_notes_warning_says_whether_its_target_is_ingested(tmp_path: Path) -> None:
    """Only a link to a note inside the vault is told "the note is ingested at its own path":
    a target outside the vault, missing or in a loop is ingested nowhere, and said so without
    naming where outside the vault it lies."""
    vault, outside = tmp_path / "vault", tmp_path / "outside"
    (vault / "People").mkdir(parents=True)
    outside.mkdir()
    (vault / "People/Bob.md").write_text("# Bob\n")
    (outside / "secret.md").write_text("# Secret\n")
    os.symlink("People/Bob.md", vault / "bob.md")
    os.symlink("../outside/secret.md", vault / "linked.md")
    os.symlink("nowhere.md", vault / "dangling.md")
    os.symlink("loop.md", vault / "loop.md")
    said = {w.split(":")[0]: w for w in scan_notes(vault).warnings}
    assert scan_notes(vault).paths == ["People/Bob.md"]
    assert said["bob.md"].endswith("the note is ingested at its own path, People/Bob.md)")
    assert "outside the vault, so it is not ingested anywhere" in said["linked.md"]
    assert str(outside) not in said["linked.md"]
    assert "its target does not exist, so nothing is ingested" in said["dangling.md"]
    assert "a loop of links, so nothing is ingested" in said["loop.md"]
    for name in ("linked.md", "dangling.md", "loop.md"):
        assert "ingested at its own path" not in said[name], said[name]


def test_case_variants_are_listed_with_a_warning_naming_both(tmp_path: Path) -> None:
    for rel in ["People/Alice.md", "PEOPLE/ALICE.MD", "Other.md"]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")
    scan = scan_notes(tmp_path)
    assert scan.paths == ["Other.md", "PEOPLE/ALICE.MD", "People/Alice.md"]
    [warning] = scan.warnings
    assert "PEOPLE/ALICE.MD and People/Alice.md differ only in letter case" in warning
    assert "resolves to PEOPLE/ALICE.MD" in warning


def test_names_differing_only_in_unicode_form_are_not_said_to_differ_in_case(
    tmp_path: Path,
) -> None:
    """ "Café" composed and decomposed look the same: the warning said they differ in case."""
    composed, decomposed = "Caf\u00e9.md", "Cafe\u0301.md"
    for rel in (composed, decomposed):
        (tmp_path / rel).write_text("x")
    [warning] = scan_notes(tmp_path).warnings
    assert "differ only in Unicode form" in warning and "letter case" not in warning, warning


def test_names_differing_only_in_unicode_form_are_shown_each_with_its_form(
    tmp_path: Path,
) -> None:
    """The warning said "odd/café.md and odd/café.md …": two names that look the same."""
    composed, decomposed = "odd/caf\u00e9.md", "odd/cafe\u0301.md"
    (tmp_path / "odd").mkdir()
    for rel in (composed, decomposed):
        (tmp_path / rel).write_text("x")
    [warning] = scan_notes(tmp_path).warnings
    shown_nfd = f"{decomposed} (decomposed, NFD: e + U+0301)"
    assert warning.startswith(f"{shown_nfd} and {composed} (composed, NFC) differ only in "), (
        warning
    )
    assert f"resolves to {shown_nfd}; rename one of them" in warning, warning


def test_a_note_under_a_folder_spelled_in_other_case_is_refused_naming_the_folder(
    tmp_path: Path,
) -> None:
    (tmp_path / "Projects" / "Birds").mkdir(parents=True)
    for rel, on_disk in (("projects/b.md", "Projects"), ("Projects/birds/b.md", "Projects/Birds")):
        with pytest.raises(WriteConflictError, match=f"existing folder '{on_disk}'"):
            write_note_file(tmp_path, rel, tmp_path / rel, b"# B\n")
    write_note_file(tmp_path, "Projects/Birds/b.md", tmp_path / "Projects/Birds/b.md", b"# B\n")
    write_note_file(tmp_path, "Other/b.md", tmp_path / "Other/b.md", b"# B\n")  # a new folder
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.md")) == [
        "Other/b.md",
        "Projects/Birds/b.md",
    ]


@pytest.mark.parametrize(
    ("links", "path", "named"),
    [
        ({"loop.md": "loop.md"}, "loop.md", "'loop.md' is a symbolic link"),
        ({"a": "a"}, "a/x.md", "lies under 'a'"),
        ({"out": "../../etc"}, "out/x.md", "lies under 'out'"),
    ],
)
def test_a_write_through_a_link_in_a_loop_or_out_of_the_vault_is_refused_naming_it(
    tmp_path: Path, links: dict[str, str], path: str, named: str
) -> None:
    """Named as the link it goes through (a 409), not a crash on the loop or a 422 showing
    where on the server the link leads."""
    vault = tmp_path / "vault"
    vault.mkdir()
    for name, target in links.items():
        os.symlink(target, vault / name)
    with pytest.raises(WriteConflictError, match=named) as refused:
        note_target(vault, path)
    assert str(tmp_path) not in str(refused.value)


def test_a_name_with_a_backslash_on_disk_is_no_note_and_the_scan_says_why(
    tmp_path: Path,
) -> None:
    """A request's backslash is a folder separator (clean_relpath); a file named so on Linux
    would be read as another note's path, so it is skipped, as a file not ingested (an error:
    ingest exits 1)."""
    (tmp_path / "People").mkdir()
    (tmp_path / "People/Alice.md").write_text("# Alice\n")
    (tmp_path / "People\\Alice.md").write_text("# Not Alice\n")
    assert not is_note("People\\Alice.md")
    assert "backslash" in (note_path_problem("People\\Alice.md") or "")
    scan = scan_notes(tmp_path)
    assert scan.paths == ["People/Alice.md"]
    assert [e for e in scan.errors if "backslash" in e] and not scan.warnings


def test_a_name_with_a_control_character_is_no_note_and_the_scan_says_why(
    tmp_path: Path,
) -> None:
    """A name with a newline or a tab is listed by the file system but refused as a path
    (clean_relpath): it is skipped at the scan, as a file not ingested (an error, which makes
    ingest exit 1), not listed then failed."""
    (tmp_path / "Alice.md").write_text("# Alice\n")
    (tmp_path / "Two\nlines.md").write_text("# Odd\n")
    (tmp_path / "Tab\there.md").write_text("# Odd\n")
    (tmp_path / "Ali\x85ce.md").write_text("# Odd\n")  # a C1 control: shows as "Alice.md"
    (tmp_path / "Forged\u2028line.md").write_text("# Odd\n")  # a line separator
    assert not is_note("Two\nlines.md")
    assert not is_note("Ali\x85ce.md") and not is_note("a\u2029b.md")
    scan = scan_notes(tmp_path)
    assert scan.paths == ["Alice.md"]
    assert not scan.warnings
    assert sorted(e for e in scan.errors if "control character" in e) == [
        "'Ali\\x85ce.md': the name holds a control character (a tab, a newline); rename it",
        "'Forged\\u2028line.md': the name holds a control character (a tab, a newline); rename it",
        "'Tab\\there.md': the name holds a control character (a tab, a newline); rename it",
        "'Two\\nlines.md': the name holds a control character (a tab, a newline); rename it",
    ]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_pipe_named_like_a_note_is_refused_without_waiting(tmp_path: Path) -> None:
    """Reading a pipe would wait for a writer forever, and every sync behind it."""
    os.mkfifo(tmp_path / "pipe.md")
    (tmp_path / "Real.md").write_text("# Real\n", encoding="utf-8")
    assert scan_notes(tmp_path).paths == ["Real.md", "pipe.md"]
    read = dict(read_group(tmp_path, ["pipe.md", "Real.md"], 1000))
    assert isinstance(read["pipe.md"], NoteError)
    assert "not a regular file" in str(read["pipe.md"])
    assert not isinstance(read["Real.md"], KnotworkError)


def test_a_socket_named_like_a_note_is_refused_as_not_a_file(tmp_path: Path) -> None:
    """Opened, a socket failed with "No such device or address", which names neither."""
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(tmp_path / "sock.md"))
        [(_, error)] = read_group(tmp_path, ["sock.md"], 1000)
        assert isinstance(error, NoteError) and "not a regular file" in str(error), error
    finally:
        server.close()


def test_a_note_grown_past_the_limit_while_read_is_refused(tmp_path: Path) -> None:
    (tmp_path / "Big.md").write_bytes(b"x" * 101)
    with pytest.raises(NoteTooLargeError, match="over the 100-byte limit"):
        read_note(tmp_path, "Big.md", 100)


def _swap_for_link(folder: Path, target: Path) -> None:
    """What another program can do between a write's checks and the write: a folder of the
    vault replaced by a link to a folder outside it."""
    if folder.is_dir():
        shutil.rmtree(folder)
    os.symlink(target, folder)


@pytest.mark.parametrize("folder", ["Projects", "Projects/Deep", "New"])
def test_a_folder_swapped_for_a_link_after_the_checks_is_not_written_through(
    tmp_path: Path, folder: str
) -> None:
    vault, outside = tmp_path / "vault", tmp_path / "outside"
    (vault / "Projects" / "Deep").mkdir(parents=True)
    outside.mkdir()
    (outside / "a.md").write_text("outside\n")
    rel, full = note_target(vault, f"{folder}/a.md")  # checked: no link on the path yet
    _swap_for_link(vault / folder, outside)
    with pytest.raises(WriteConflictError, match="symbolic link"):
        write_note_file(vault, rel, full, b"# A\n")
    assert [p.name for p in outside.iterdir()] == ["a.md"]
    assert (outside / "a.md").read_text() == "outside\n"


def test_a_folder_swapped_for_a_link_after_the_checks_is_not_deleted_through(
    tmp_path: Path,
) -> None:
    vault, outside = tmp_path / "vault", tmp_path / "outside"
    (vault / "Projects").mkdir(parents=True)
    (vault / "Projects" / "a.md").write_text("# A\n")
    outside.mkdir()
    (outside / "a.md").write_text("outside\n")
    rel, full = note_target(vault, "Projects/a.md")
    _swap_for_link(vault / "Projects", outside)
    with pytest.raises(WriteConflictError, match="symbolic link"):
        delete_note_file(vault, rel, full)
    assert (outside / "a.md").read_text() == "outside\n"


def test_a_note_swapped_for_a_link_is_replaced_by_a_write_and_left_by_a_delete(
    tmp_path: Path,
) -> None:
    """The note's own name become a link: a write puts the note there instead (the target
    keeps its text); a delete leaves the link (and its target) alone."""
    vault, outside = tmp_path / "vault", tmp_path / "outside.md"
    vault.mkdir()
    (vault / "a.md").write_text("# A\n")
    outside.write_text("outside\n")
    rel, full = note_target(vault, "a.md")
    (vault / "a.md").unlink()
    os.symlink(outside, vault / "a.md")
    with pytest.raises(WriteConflictError, match="symbolic link"):
        delete_note_file(vault, rel, full)
    assert (vault / "a.md").is_symlink() and outside.read_text() == "outside\n"
    os.utime(outside, (1_000_000, 1_000_000))
    mtime = write_note_file(vault, rel, full, b"# New\n")
    assert not (vault / "a.md").is_symlink() and (vault / "a.md").read_text() == "# New\n"
    assert outside.read_text() == "outside\n"
    assert mtime == (vault / "a.md").stat().st_mtime  # the written file's, never the target's


def test_a_folder_swapped_for_a_link_while_a_note_is_read_is_not_read_through(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The swap lands between the read's link check and its open: the file outside the vault
    must not become the note's text (and so the graph's, and an API answer's)."""
    vault, outside = tmp_path / "vault", tmp_path / "outside"
    (vault / "P").mkdir(parents=True)
    (vault / "P" / "a.md").write_text("inside\n")
    outside.mkdir()
    (outside / "a.md").write_text("secret\n")
    resolve = files.resolve_in_vault

    def resolve_then_swap(root: Path, rel: str) -> Path:
        full = resolve(root, rel)
        _swap_for_link(vault / "P", outside)
        return full

    monkeypatch.setattr(files, "resolve_in_vault", resolve_then_swap)
    with pytest.raises(NoteError, match="symbolic link"):
        read_note(vault, "P/a.md", 1_000)
