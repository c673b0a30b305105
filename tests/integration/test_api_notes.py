"""REST writes: PUT/DELETE /notes/{path}, POST /sync — paths kept inside the vault, sizes
bounded, and no race with a watcher that holds the lease."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from httpx import Response
from pydantic import SecretStr

from knotwork import core as core_module
from knotwork.api import create_app
from knotwork.check.verify import snapshot
from knotwork.core import open_core
from knotwork.graph import schema
from knotwork.graph.lease import Lease
from knotwork.retrieve.notes import note_history
from knotwork.settings import Settings
from tests.fakes.ollama import FakeOllama
from tests.integration.conftest import Neo4jTarget, ad_hoc

KEY = "k" * 24


@pytest.fixture
def client(settings: Settings, vault: Path, empty_db: Neo4jTarget) -> Iterator[TestClient]:
    app = create_app(
        settings.model_copy(
            update={
                "vault_path": vault,
                "extract": False,
                "api_key": SecretStr(KEY),
                "max_note_bytes": 10_000,
            }
        )
    )
    # Writes must declare their body's type; these send Markdown.
    markdown = {"Content-Type": "text/markdown"}
    with TestClient(app, headers={"X-API-Key": KEY, **markdown}) as test_client:
        yield test_client


def facts(settings: Settings) -> list[str]:
    async def read() -> list[str]:
        async with open_core(settings) as core:
            return (await snapshot(core.store, "default"))["facts"]

    return asyncio.run(read())


def test_put_writes_the_file_and_ingests_it(
    client: TestClient, vault: Path, settings: Settings
) -> None:
    response = client.put(
        "/notes/People/Ann.md",
        content="Ann works with [[Ben]].\n",
        headers={"Content-Type": "text/markdown"},
    )
    assert response.status_code == 200, response.text
    assert response.json()["status"] == "written"
    assert (vault / "People/Ann.md").read_text() == "Ann works with [[Ben]].\n"
    assert any("|WORKS_WITH|note:People/Ann.md|unresolved:ben|" in f for f in facts(settings))
    again = client.put("/notes/People/Ann.md", content="Ann works with [[Ben]].\n")
    assert again.json()["status"] == "unchanged"
    gone = client.delete("/notes/People/Ann.md")
    assert gone.status_code == 200 and gone.json()["status"] == "deleted"
    assert not (vault / "People/Ann.md").exists() and facts(settings) == []
    assert client.delete("/notes/People/Ann.md").status_code == 404


def test_a_write_with_the_embedding_model_down_says_the_server_embeds_it_later(
    client: TestClient, vault: Path, fake_ollama: FakeOllama
) -> None:
    """The server's background passes embed what waits once the model answers: its warnings
    send no one to `knotwork retry`, which they make needless (and a watcher refuses)."""
    fake_ollama.down = True
    put = client.put("/notes/Ann.md", content="# Ann\n\nAnn works with Ben.\n")
    assert put.status_code == 200, put.text
    assert put.json()["warnings"] == [
        "Ann.md: embedding model unavailable; 1 chunk waits: the server embeds it once the "
        "model answers"
    ], put.json()
    (vault / "Ben.md").write_text("# Ben\n\nBen is a chemist.\n")
    synced = client.post("/sync")
    assert synced.status_code == 200, synced.text
    assert synced.json()["warnings"] == [
        "Ben.md: embedding model unavailable; 1 chunk waits: the server embeds it once the "
        "model answers"
    ], synced.json()


@pytest.mark.parametrize(
    "path",
    [
        "%2E%2E/escape.md",
        "a/%2E%2E/%2E%2E/escape.md",
        "%2Fetc%2Fpasswd.md",
        "bad%00name.md",
        "tab%09name.md",
        "Ali%C2%85ce.md",  # a C1 control (NEL): shows as "Alice.md"
        "line%E2%80%A8sep.md",  # a line separator: breaks a log line in some viewers
        "para%E2%80%A9sep.md",  # a paragraph separator
        "image.png",
        ".obsidian/app.md",
    ],
)
def test_bad_paths_are_422_and_write_nothing(
    client: TestClient, vault: Path, tmp_path: Path, path: str
) -> None:
    response = client.put(f"/notes/{path}", content="x")
    assert response.status_code == 422, response.text
    assert list(vault.iterdir()) == [] and not (tmp_path / "escape.md").exists()


def test_too_large_is_413(client: TestClient, vault: Path) -> None:
    response = client.put("/notes/big.md", content="x" * 20_000)
    assert response.status_code == 413 and "limit" in response.json()["detail"]
    assert not (vault / "big.md").exists()


@pytest.mark.parametrize("path", ["plain.md", "speed-limit.md", "limits.md"])
def test_a_binary_body_is_422_whatever_the_path_says(
    client: TestClient, vault: Path, path: str
) -> None:
    response = client.put(f"/notes/{path}", content=b"# hi\x00there\n")
    assert response.status_code == 422, response.text
    [problem] = response.json()["detail"]  # the shape of the other body refusals
    assert problem["type"] == "body_invalid" and "NUL character" in problem["msg"]
    assert "(nothing was written)" in problem["msg"]
    assert not (vault / path).exists()


def test_api_key_is_required(client: TestClient) -> None:
    response = client.put("/notes/a.md", content="x", headers={"X-API-Key": "wrong"})
    assert response.status_code == 401
    assert client.get("/health", headers={"X-API-Key": ""}).status_code in (200, 503)


def test_sync_and_the_watchers_lease(client: TestClient, vault: Path, settings: Settings) -> None:
    (vault / "One.md").write_text("One uses [[Two]].\n")
    (vault / "Two.md").write_text("# Two\n")
    response = client.post("/sync")
    assert response.status_code == 200 and response.json()["written"] == 2

    async def hold() -> Lease:
        async with open_core(settings) as core:
            lease = Lease(core.store, "default", 60)
            await lease.acquire({"mode": "inotify"})
            return lease

    lease = asyncio.run(hold())
    busy = client.post("/sync")
    assert busy.status_code == 409 and lease.holder in busy.json()["detail"]
    # A watcher never "finishes": it syncs the vault itself, so there is nothing to do.
    assert "The watcher keeps this vault in step itself" in busy.json()["detail"], busy.text
    assert "wait for it to finish" not in busy.json()["detail"], busy.text
    accepted = client.put("/notes/Three.md", content="# Three\n")
    assert accepted.status_code == 202 and accepted.json()["ingested_by"] == lease.holder
    assert (vault / "Three.md").exists()
    assert not any("Three.md" in f for f in facts(settings)), "the watcher ingests it, not us"
    health = client.get("/health").json()
    assert health["watcher"]["holder"] == lease.holder and health["watcher"]["live"] is True


def test_get_note_shows_chunks_and_facts_with_provenance(client: TestClient) -> None:
    text = "---\nrole: chemist\n---\n# Ann\n\nAnn works with [[Ben]].\n"
    assert client.put("/notes/Ann.md", content=text).status_code == 200
    response = client.get("/notes/Ann.md")
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["note"]["title"] == "Ann"
    assert [c["heading_path"] for c in body["chunks"]] == ["Ann"]
    facts = {
        (f["predicate"], f["object"], f["object_kind"], f["extractor"], f["line"])
        for f in body["facts"]
    }
    assert facts == {
        ("HAS_ROLE", "chemist", "entity", "frontmatter", 2),
        ("WORKS_WITH", "Ben", "unresolved", "wikilink", 6),
    }
    link = next(f for f in body["facts"] if f["predicate"] == "WORKS_WITH")
    assert link["source"] == "Ann.md" and link["chunk_id"] == body["chunks"][0]["id"]
    assert client.get("/notes/Nobody.md").status_code == 404
    stats = client.get("/stats").json()
    assert (stats["notes"], stats["chunks"], stats["unresolved"]) == (1, 1, 1)
    assert stats["facts"] == {"frontmatter": 1, "wikilink": 1}


def test_a_note_not_found_names_the_notes_it_may_mean(client: TestClient) -> None:
    """A path typed without its folder, its .md or its letter case is no note, but the
    refusal names the path to send: by file name, title or alias, case-folded."""
    for path, text in (
        ("mine/Alice.md", "# Alice\n\nAlice writes.\n"),
        ("work/Team.md", "---\ntitle: The team\naliases: [Crew]\n---\nWe ship.\n"),
        ("Bob.md", "# Bob\n\nBob links [[Alicia]].\n"),
    ):
        assert client.put(f"/notes/{path}", content=text).status_code == 200
    hint = "? (paths are exact, with .md)"
    for typed in ("Alice", "Alice.md", "mine/Alice", "mine/alice.md", "other/ALICE.md"):
        response = client.get(f"/notes/{typed}")
        assert response.status_code == 404, response.text
        assert response.json() == {
            "error": "NoteNotFoundError",
            "detail": f"no note {typed!r} in the graph; did you mean 'mine/Alice.md'{hint}",
        }
    for typed in ("crew", "The Team.md"):  # its alias, its title
        detail = client.get(f"/notes/{typed}").json()["detail"]
        assert detail.endswith(f"did you mean 'work/Team.md'{hint}"), detail
    # A link's placeholder is no note to read; a name no note bears gets the plain refusal.
    assert client.get("/notes/Alicia.md").json()["detail"] == "no note 'Alicia.md' in the graph"
    # Namesakes in two folders: both named, the one in other letter case first.
    assert client.put("/notes/people/Alice.md", content="# Alice\n\nAnother.\n").status_code == 200
    assert client.get("/notes/People/ALICE.md").json()["detail"] == (
        "no note 'People/ALICE.md' in the graph; did you mean 'people/Alice.md' or "
        f"'mine/Alice.md'{hint}"
    )


def test_a_path_a_note_left_or_a_delete_in_other_case_says_where_the_note_is(
    client: TestClient, vault: Path
) -> None:
    """A note read at the path it was moved from, or deleted at its path in other letter
    case, got a bare "no note"; the history knew where it went, the graph its spelling."""
    text = "# Tra\n\nA note about routes.\n"
    assert client.put("/notes/Tra.md", content=text).status_code == 200
    assert client.put("/notes/Persone/anna rossi.md", content="# Anna\n").status_code == 200
    (vault / "altro").mkdir()
    (vault / "Tra.md").rename(vault / "altro" / "Tra spostato.md")
    assert client.post("/sync").status_code == 200
    assert client.get("/notes/Tra.md").json()["detail"] == (
        "no note 'Tra.md' in the graph; the note there was moved to 'altro/Tra spostato.md' "
        "(the path's history says when)"
    )
    assert client.delete("/notes/altro/Tra spostato.md").status_code == 200
    detail = client.get("/notes/altro/Tra spostato.md").json()["detail"]
    assert detail.endswith("; the note there was deleted (the path's history says when)")
    response = client.delete("/notes/persone/anna rossi.md")
    assert response.status_code == 404
    assert response.json()["detail"] == (
        "no note 'persone/anna rossi.md' in the vault; did you mean 'Persone/anna rossi.md'? "
        "(paths are exact, with .md)"
    )


def snapshot_of(settings: Settings) -> dict[str, list[str]]:
    async def read() -> dict[str, list[str]]:
        async with open_core(settings) as core:
            return await snapshot(core.store, "default")

    return asyncio.run(read())


@pytest.fixture
def read_only_client(
    settings: Settings, vault: Path, empty_db: Neo4jTarget
) -> Iterator[TestClient]:
    """KNOTWORK_VAULT_READ_ONLY set, with one note already in the vault and in the graph."""
    (vault / "Ann.md").write_text("Ann works with [[Ben]].\n")
    app = create_app(
        settings.model_copy(update={"vault_path": vault, "extract": False, "vault_read_only": True})
    )
    with TestClient(app, headers={"Content-Type": "text/markdown"}) as test_client:
        assert test_client.post("/sync").json()["written"] == 1, "reading is still allowed"
        yield test_client


def test_read_only_setting_refuses_writes_with_409(
    read_only_client: TestClient, vault: Path, settings: Settings
) -> None:
    before = snapshot_of(settings)
    assert before["facts"], "the note is in the graph"
    put = read_only_client.put("/notes/Ann.md", content="Ann works with [[Cy]].\n")
    new = read_only_client.put("/notes/New.md", content="# New\n")
    gone = read_only_client.delete("/notes/Ann.md")
    for response in (put, new, gone):
        assert response.status_code == 409, response.text
        detail = response.json()["detail"]
        assert "read-only" in detail and "KNOTWORK_VAULT_READ_ONLY" in detail
    assert (vault / "Ann.md").read_text() == "Ann works with [[Ben]].\n"
    assert sorted(p.name for p in vault.iterdir()) == ["Ann.md"]
    assert snapshot_of(settings) == before


def _refused(
    client: TestClient,
    vault: Path,
    monkeypatch: pytest.MonkeyPatch,
    on_replace: OSError,
    on_unlink: OSError,
) -> tuple[Response, Response]:
    """A PUT and a DELETE of Ann.md while the file system fails the write's rename over the
    note with ``on_replace`` and the delete's unlink with ``on_unlink``."""
    real_replace, real_unlink = os.replace, os.unlink

    # A note's file is replaced and removed by its name in its folder's descriptor
    # (vault/nofollow.py); the journal's own file by its path, left alone.
    def replace(src: str, dst: str, **at: int | None) -> None:
        if at.get("dst_dir_fd") is not None and dst.endswith(".md"):
            raise on_replace
        real_replace(src, dst, **at)

    def unlink(path: str, *, dir_fd: int | None = None) -> None:
        if dir_fd is not None and str(path).endswith(".md"):
            raise on_unlink
        real_unlink(path, dir_fd=dir_fd)

    monkeypatch.setattr(os, "replace", replace)
    monkeypatch.setattr(os, "unlink", unlink)
    put = client.put("/notes/Ann.md", content="Ann works with [[Cy]].\n")
    gone = client.delete("/notes/Ann.md")
    monkeypatch.undo()
    return put, gone


def test_a_write_the_file_system_refuses_is_409_not_500(
    client: TestClient, vault: Path, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The vault looks writable, but the write fails as on a read-only mount (EROFS, EACCES)."""
    assert client.put("/notes/Ann.md", content="Ann works with [[Ben]].\n").status_code == 200
    before = snapshot_of(settings)
    put, gone = _refused(
        client,
        vault,
        monkeypatch,
        OSError(errno.EROFS, os.strerror(errno.EROFS)),
        PermissionError(errno.EACCES, os.strerror(errno.EACCES)),
    )
    for response, reason in ((put, "Read-only file system"), (gone, "Permission denied")):
        assert response.status_code == 409, response.text
        assert "read-only" in response.json()["detail"] and reason in response.json()["detail"]
    assert (vault / "Ann.md").read_text() == "Ann works with [[Ben]].\n"
    assert sorted(p.name for p in vault.iterdir()) == ["Ann.md"], "no temp file left behind"
    assert snapshot_of(settings) == before


@pytest.mark.parametrize(
    ("code", "status", "words"),
    [
        (errno.EIO, 503, "file system failed"),
        (errno.ENOTCONN, 503, "file system failed"),
        (errno.ELOOP, 409, "symbolic link"),
    ],
)
def test_a_disk_or_mount_failing_under_a_write_is_said_not_500(
    client: TestClient,
    vault: Path,
    settings: Settings,
    monkeypatch: pytest.MonkeyPatch,
    code: int,
    status: int,
    words: str,
) -> None:
    """A failing disk, a network or FUSE mount gone (EIO, ENOTCONN), a link appearing on the
    path after its check (ELOOP): a clear status naming the note, nothing written or lost."""
    assert client.put("/notes/Ann.md", content="Ann works with [[Ben]].\n").status_code == 200
    before = snapshot_of(settings)
    error = OSError(code, os.strerror(code))
    put, gone = _refused(client, vault, monkeypatch, error, error)
    for response in (put, gone):
        assert response.status_code == status, response.text
        detail = response.json()["detail"]
        assert words in detail and "'Ann.md'" in detail and "nothing was changed" in detail
    assert (vault / "Ann.md").read_text() == "Ann works with [[Ben]].\n"
    assert sorted(p.name for p in vault.iterdir()) == ["Ann.md"], "no temp file left behind"
    assert snapshot_of(settings) == before
    assert client.put("/notes/Ann.md", content="Ann works with [[Cy]].\n").status_code == 200


def test_a_mount_gone_before_the_write_is_503_not_500(
    client: TestClient, vault: Path, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A FUSE or network mount whose server went away answers every look at it with ENOTCONN
    or ESTALE, the folder's own included: a 503 saying so, before anything is touched."""
    assert client.put("/notes/Ann.md", content="Ann works with [[Ben]].\n").status_code == 200
    before = snapshot_of(settings)
    real_is_dir = Path.is_dir

    def is_dir(self: Path) -> bool:
        if self == vault or self.is_relative_to(vault):
            raise OSError(errno.ENOTCONN, os.strerror(errno.ENOTCONN), str(self))
        return real_is_dir(self)

    monkeypatch.setattr(Path, "is_dir", is_dir)
    put = client.put("/notes/Ann.md", content="Ann works with [[Cy]].\n")
    gone = client.delete("/notes/Ann.md")
    monkeypatch.undo()
    for response in (put, gone):
        assert response.status_code == 503, response.text
        assert "file system failed" in response.json()["detail"]
    assert (vault / "Ann.md").read_text() == "Ann works with [[Ben]].\n"
    assert snapshot_of(settings) == before


def test_no_write_or_delete_through_a_symlink(
    client: TestClient, vault: Path, settings: Settings
) -> None:
    """A link inside the vault is refused with a 409 naming it, and its target is untouched."""
    assert client.put("/notes/People/Bob.md", content="# Bob\n\nBob knows [[Ann]].\n").is_success
    os.symlink("People/Bob.md", vault / "boblink.md")
    os.symlink("People", vault / "Linked")
    before = snapshot_of(settings)
    for response in (
        client.delete("/notes/boblink.md"),
        client.put("/notes/boblink.md", content="# Hijacked\n"),
        client.put("/notes/Linked/Bob.md", content="# Hijacked\n"),
        client.put("/notes/Linked/New.md", content="# New\n"),
        client.delete("/notes/Linked/Bob.md"),
    ):
        assert response.status_code == 409, response.text
        assert "symbolic link" in response.json()["detail"]
    assert "'boblink.md' is a symbolic link" in client.delete("/notes/boblink.md").text
    assert "under 'Linked'" in client.put("/notes/Linked/New.md", content="x").text
    assert (vault / "People/Bob.md").read_text() == "# Bob\n\nBob knows [[Ann]].\n"
    assert sorted(p.name for p in (vault / "People").iterdir()) == ["Bob.md"]
    assert snapshot_of(settings) == before
    synced = client.post("/sync").json()
    assert any("boblink.md: a symbolic link" in w for w in synced["warnings"]), synced
    assert [line.split("|")[0] for line in snapshot_of(settings)["notes"]] == ["People/Bob.md"]


def test_a_case_variant_of_an_existing_note_is_409_naming_it(
    client: TestClient, vault: Path, settings: Settings
) -> None:
    assert client.put("/notes/People/Alice.md", content="# Alice\n").status_code == 200
    assert client.put("/notes/Bob.md", content="Bob works with [[Alice]].\n").status_code == 200
    before = snapshot_of(settings)
    for variant in ("PEOPLE/ALICE.MD", "people/alice.md", "People/alice.md"):
        response = client.put(f"/notes/{variant}", content="# Impostor\n")
        assert response.status_code == 409, response.text
        assert "'People/Alice.md'" in response.json()["detail"]
        assert "letter case" in response.json()["detail"]
    assert sorted(p.name for p in vault.iterdir()) == ["Bob.md", "People"]
    assert [p.name for p in (vault / "People").iterdir()] == ["Alice.md"]
    assert snapshot_of(settings) == before, "Bob's link still goes to People/Alice.md"
    # Spaces around a name: its links cannot tell it apart either.
    response = client.put("/notes/%20bob.md", content="# Impostor\n")
    assert response.status_code == 409 and "'Bob.md'" in response.json()["detail"]
    assert snapshot_of(settings) == before
    # Only in the graph (the file went without a sync): still a conflict, named.
    (vault / "People/Alice.md").unlink()
    response = client.put("/notes/people/ALICE.md", content="# Impostor\n")
    assert response.status_code == 409 and "'People/Alice.md'" in response.json()["detail"]
    # The exact path is no conflict, and neither is another name.
    assert client.put("/notes/People/Alice.md", content="# Alice again\n").status_code == 200
    assert client.put("/notes/People/Alicia.md", content="# Alicia\n").status_code == 200
    # A variant of a note on disk only (not yet ingested) is refused too.
    (vault / "Draft.md").write_text("# Draft\n")
    response = client.put("/notes/DRAFT.md", content="# Other\n")
    assert response.status_code == 409 and "'Draft.md'" in response.json()["detail"]
    # Deleting a variant name is no delete of the note.
    assert client.delete("/notes/DRAFT.md").status_code == 404
    # Both spellings on disk already (ingest keeps both): each is written at its own path.
    (vault / "Pair.md").write_text("# Upper\n")
    (vault / "pair.md").write_text("# lower\n")
    for name, text in (("Pair.md", "# Upper, edited\n"), ("pair.md", "# lower, edited\n")):
        response = client.put(f"/notes/{name}", content=text)
        assert response.status_code == 200, response.text
        assert (vault / name).read_text() == text
    assert (vault / "Draft.md").exists()


@pytest.mark.parametrize(
    ("path", "why"),
    [
        (".hidden/x.md", "'.hidden'"),
        (".Obsidian/x.md", "'.Obsidian'"),
        ("a/.TRASH/x.md", "'.TRASH'"),
        (".git/x.md", "'.git'"),
        (".x.md", "hidden or temporary"),
        ("~x.md", "hidden or temporary"),
        ("notes.txt", "not a Markdown note"),
    ],
)
def test_write_routes_refuse_every_place_ingest_ignores(
    client: TestClient, vault: Path, path: str, why: str
) -> None:
    """What the next sync would drop from the graph is never written: 422 saying why."""
    for response in (
        client.put(f"/notes/{path}", content="# x\n"),
        client.delete(f"/notes/{path}"),
    ):
        assert response.status_code == 422, response.text
        assert why in response.json()["detail"]
    assert list(vault.iterdir()) == []


def test_put_keeps_the_files_mode_and_new_files_follow_the_umask(
    client: TestClient, vault: Path
) -> None:
    assert client.put("/notes/Ann.md", content="# Ann\n").status_code == 200
    previous = os.umask(0o022)
    try:
        assert client.put("/notes/New.md", content="# New\n").status_code == 200
    finally:
        os.umask(previous)
    assert (vault / "New.md").stat().st_mode & 0o777 == 0o644, "the umask's default, not 0600"
    (vault / "Ann.md").chmod(0o640)
    os.link(vault / "Ann.md", vault.parent / "hardlink.md")
    assert client.put("/notes/Ann.md", content="# Ann, edited\n").status_code == 200
    assert (vault / "Ann.md").stat().st_mode & 0o777 == 0o640
    assert (vault / "Ann.md").read_text() == "# Ann, edited\n"
    # The README says so: an atomic replace is a new file, so a hard link keeps the old text.
    assert (vault.parent / "hardlink.md").read_text() == "# Ann\n"


def test_paths_in_the_way_and_overlong_names_are_4xx(client: TestClient, vault: Path) -> None:
    (vault / "Top.md").write_text("# Top\n")
    (vault / "folder.md").mkdir()
    under = client.put("/notes/Top.md/x.md", content="x")
    assert under.status_code == 409 and "'Top.md' is a file" in under.json()["detail"]
    onto = client.put("/notes/folder.md", content="x")
    assert onto.status_code == 409 and "is a folder" in onto.json()["detail"]
    assert client.delete("/notes/folder.md").status_code == 404
    assert client.delete("/notes/Top.md/x.md").status_code == 404
    long = client.put(f"/notes/{'é' * 128}.md", content="x")  # 259 bytes
    assert long.status_code == 422 and "255 bytes" in long.json()["detail"]
    deep = client.put(f"/notes/{'/'.join(['d' * 200] * 30)}/x.md", content="x")
    assert deep.status_code == 422, deep.text
    assert (vault / "Top.md").read_text() == "# Top\n" and (vault / "folder.md").is_dir()


def test_every_refusal_names_its_kind(client: TestClient, vault: Path) -> None:
    """One status table, one body for each KnotworkError (the app's handler): the note routes
    mapped theirs by hand and answered ``{"detail"}`` alone. (A body over the limit is refused
    earlier, by ``api.body.BodyScreen``, as the other request checks are: ``{"detail"}``.)"""
    (vault / "Top.md").write_text("# Top\n")
    for response, status, error in (
        (client.get("/notes/Nobody.md"), 404, "NoteNotFoundError"),
        (client.delete("/notes/Nobody.md"), 404, "NoteNotFoundError"),
        (client.get("/notes", params={"folder": "../out"}), 422, "VaultPathError"),
        (client.put("/notes/.hidden/x.md", content="x"), 422, "VaultPathError"),
        (client.put("/notes/Top.md/x.md", content="x"), 409, "WriteConflictError"),
    ):
        assert response.status_code == status, response.text
        body = response.json()
        assert set(body) == {"error", "detail"} and body["error"] == error, body
        assert isinstance(body["detail"], str) and body["detail"], body
    assert [p.name for p in vault.iterdir()] == ["Top.md"]


def test_a_name_in_another_unicode_form_reaches_the_note_the_disk_holds(
    client: TestClient, vault: Path, settings: Settings
) -> None:
    """'Café' composed and decomposed are one name to a user and to macOS, two to Linux and to
    the graph: a request in either form writes and deletes the file the folder lists, and the
    graph note ingested from it, never a second note beside it nor a stale one."""
    composed, decomposed = "Caf\u00e9/Cr\u00e8me.md", "Cafe\u0301/Cre\u0300me.md"
    (vault / "Cafe\u0301").mkdir()
    (vault / decomposed).write_text("Crème goes with [[Ann]].\n", encoding="utf-8")
    assert client.post("/sync").status_code == 200

    def notes() -> list[str]:
        return [line.split("|")[0] for line in snapshot_of(settings)["notes"]]

    assert decomposed in notes()
    put = client.put(f"/notes/{composed}", content="Crème goes with [[Ben]].\n")
    assert put.status_code == 200, put.text
    assert os.listdir(vault / "Cafe\u0301") == ["Cre\u0300me.md"], "the same file, rewritten"
    assert (vault / decomposed).read_text(encoding="utf-8") == "Crème goes with [[Ben]].\n"
    assert [n for n in notes() if n.startswith("Caf")] == [decomposed]
    [link] = [f for f in facts(settings) if f.startswith(decomposed)]
    assert link.split("|")[1:4] == ["LINKS_TO", f"note:{decomposed}", "unresolved:ben"]

    gone = client.delete(f"/notes/{composed}")
    assert gone.status_code == 200, gone.text
    assert not (vault / decomposed).exists()
    assert not [n for n in notes() if n.startswith("Caf")], "no stale note left"

    # Gone from the disk before the delete (no sync since): the graph's note is still found.
    (vault / decomposed).write_text("Again.\n", encoding="utf-8")
    assert client.post("/sync").status_code == 200
    (vault / decomposed).unlink()
    assert client.delete(f"/notes/{composed}").status_code == 200
    assert not [n for n in notes() if n.startswith("Caf")]
    assert client.delete(f"/notes/{composed}").status_code == 404


def test_get_and_history_find_a_note_in_either_unicode_form(
    client: TestClient, settings: Settings
) -> None:
    """A vault from macOS holds decomposed names, a client types composed ones: GET (and MCP's
    get_note and note_history, which share these reads) finds the note as PUT and DELETE do."""
    composed, decomposed = "Caf\u00e9.md", "Cafe\u0301.md"
    assert client.put(f"/notes/{decomposed}", content="# Café\n\nOpen late.\n").status_code == 200
    for sent in (composed, decomposed):
        got = client.get(f"/notes/{sent}")
        assert got.status_code == 200, got.text
        assert got.json()["note"]["path"] == decomposed
        assert got.json()["chunks"][0]["text"].endswith("Open late.")

    async def history(path: str) -> list[dict[str, object]]:
        async with open_core(settings) as core:
            return await note_history(core, path)

    assert [row["path"] for row in asyncio.run(history(composed))] == [decomposed]
    assert client.get("/notes/Cafe.md").status_code == 404


def test_an_empty_body_writes_an_empty_note(client: TestClient, vault: Path) -> None:
    for kind in ("text/markdown", "application/json"):
        client.delete("/notes/Empty.md")
        put = client.put("/notes/Empty.md", headers={"Content-Type": kind})
        assert put.status_code == 200, put.text
        assert (vault / "Empty.md").read_bytes() == b""
        assert client.get("/notes/Empty.md").json()["note"]["path"] == "Empty.md"


def test_writes_into_an_empty_folder_the_graph_holds_notes_of_are_503(
    client: TestClient, vault: Path, settings: Settings
) -> None:
    """An empty vault folder takes its first note; emptied while the graph holds notes of it
    (an unmounted drive's mount point), it takes no write: one would hide under the drive."""
    assert client.put("/notes/A.md", content="# A\n").status_code == 200
    assert client.put("/notes/B.md", content="# B\n").status_code == 200
    before = snapshot_of(settings)
    for name in ("A.md", "B.md"):
        (vault / name).unlink()
    put = client.put("/notes/C.md", content="# C\n")
    gone = client.delete("/notes/A.md")
    for response in (put, gone):
        assert response.status_code == 503, response.text
        assert response.json()["error"] == "VaultUnavailableError"
        assert "holds 2 notes" in response.json()["detail"]
        assert response.headers["Retry-After"] == "1"
    assert list(vault.iterdir()) == [] and snapshot_of(settings) == before
    (vault / ".keep").write_text("")  # the notes are gone for good
    assert client.delete("/notes/A.md").status_code == 200
    assert client.put("/notes/C.md", content="# C\n").status_code == 200


def test_writes_into_a_folder_the_vault_was_not_synced_from_are_409(
    client: TestClient, vault: Path, settings: Settings, tmp_path: Path
) -> None:
    """A server whose vault folder is not the one the vault's notes were synced from (a typo,
    a relative path read from another working directory) writes nothing there: the graph
    would serve that file's text under the vault note's path. The vault's folder moved (its
    identity kept) still takes writes."""
    assert client.put("/notes/Ann.md", content="# Ann\n\nAn engineer.\n").status_code == 200
    assert client.post("/sync").status_code == 200  # records the folder the notes are in
    before = snapshot_of(settings)
    for folder in (tmp_path / "elsewhere", vault / "sub"):
        folder.mkdir()
        (folder / "Other.md").write_text("# Other\n")
        with served(settings, folder) as other:
            put = other.put("/notes/Ann.md", content="# Ann\n\nFired for fraud.\n")
            gone = other.delete("/notes/Other.md")
            for response in (put, gone):
                assert response.status_code == 409, response.text
                assert response.json()["error"] == "VaultFolderError"
                assert str(vault.resolve()) in response.json()["detail"]
        assert not (folder / "Ann.md").exists() and (folder / "Other.md").exists()
    assert snapshot_of(settings) == before
    moved = vault.rename(tmp_path / "moved")
    with served(settings, moved) as other:
        assert other.put("/notes/Ben.md", content="# Ben\n").status_code == 200
    assert (moved / "Ben.md").exists()


@contextlib.contextmanager
def served(settings: Settings, folder: Path) -> Iterator[TestClient]:
    """A second API server of the same vault name, on ``folder``."""
    update = {"vault_path": folder, "extract": False, "api_key": SecretStr(KEY)}
    app = create_app(settings.model_copy(update=update))
    with TestClient(app, headers={"X-API-Key": KEY, "Content-Type": "text/markdown"}) as other:
        yield other


@pytest.mark.parametrize(
    "path",
    [
        "People/%20Alice.md",  # a space before the name
        "People%20/Alice.md",  # a folder "People " beside "People"
        "People/Alice%E2%80%8B.md",  # a zero-width space
        "New/rtl%E2%80%AEdm.md",  # a right-to-left override: shows as "New/rtlmd.md"
    ],
)
def test_a_new_note_named_like_another_is_422(
    client: TestClient, vault: Path, settings: Settings, path: str
) -> None:
    """A new name that differs from another only by spaces around a name or an invisible
    character would pass for that note (retrieval names it for the question's "Alice"), as a
    case variant would take over its links; a note already on disk so named stays writable."""
    assert client.put("/notes/People/Alice.md", content="# Alice\n").status_code == 200
    before = sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*"))
    response = client.put(f"/notes/{path}", content="# Alice\n\nAlice lives in Atlantis.\n")
    assert response.status_code == 422, response.text
    assert "looks like" in response.text and "nothing was written" in response.text
    assert sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*")) == before
    (vault / " Old.md").write_text("# Old\n")  # named so in the editor
    assert client.put("/notes/%20Old.md", content="# Old\n\nEdited.\n").status_code == 200
    assert client.delete("/notes/%20Old.md").status_code == 200


def test_a_put_without_a_body_empties_no_note(client: TestClient, vault: Path) -> None:
    """A client that drops the body (no Content-Length, or no type) gets a 422; the note keeps
    its text. An empty note is an empty body sent as one."""
    assert client.put("/notes/Keep.md", content="# Keep\n\nText.\n").status_code == 200
    for headers in (
        {"Content-Length": "0"},
        {"Content-Type": "text/markdown"},
        {"Content-Type": "application/json"},  # a JSON client that forgot the body
        {"Content-Type": "text/plain", "Content-Length": "0"},  # no type a PUT takes
        {"Content-Type": "application/x-www-form-urlencoded", "Content-Length": "0"},
    ):
        request = client.build_request("PUT", "/notes/Keep.md", headers=headers)
        for name in {"Content-Length", "Content-Type"} - set(headers):
            request.headers.pop(name, None)  # what the client left out
        put = client.send(request)
        assert put.status_code == 422, (headers, put.text)
        assert "for an empty note" in put.json()["detail"]
    assert (vault / "Keep.md").read_text() == "# Keep\n\nText.\n"


def test_get_notes_finds_notes_by_name_tag_and_folder(client: TestClient) -> None:
    """GET /notes is the REST side of `knotwork search` and MCP's search_notes."""
    for path, text in (
        ("People/Alice.md", "---\naliases: [Ally]\ntags: [team/graph]\n---\n# Alice\n"),
        ("People/Bob.md", "# Bob\n"),
        ("Ideas.md", "# Ideas\n"),
    ):
        assert client.put(f"/notes/{path}", content=text).status_code == 200

    def paths(**query: object) -> list[str]:
        response = client.get("/notes", params=query)
        assert response.status_code == 200, response.text
        return [n["path"] for n in response.json()["notes"]]

    assert paths() == ["Ideas.md", "People/Alice.md", "People/Bob.md"]
    assert paths(text="ALLY") == ["People/Alice.md"]
    assert paths(tag="#team") == ["People/Alice.md"]
    assert paths(folder="People") == ["People/Alice.md", "People/Bob.md"]
    assert paths(folder=".", limit=1) == ["Ideas.md"]
    [alice] = client.get("/notes", params={"text": "ally"}).json()["notes"]
    assert alice == {"path": "People/Alice.md", "title": "Alice", "aliases": ["Ally"],
                     "tags": ["team/graph"], "chunks": alice["chunks"]}  # fmt: skip
    climbs = client.get("/notes", params={"folder": "../x"})
    assert climbs.status_code == 422 and "climbs out of the vault" in climbs.text
    empty = client.get("/notes", params={"tag": "#"})  # refused as POST /retrieve does
    assert empty.status_code == 422 and "a tag is empty" in empty.text, empty.text
    assert empty.json()["error"] == "FilterError"  # a tag is no note path
    assert client.get("/notes", params={"limit": 0}).status_code == 422


def test_a_graph_reembedded_under_the_server_refuses_writes_and_questions(
    client: TestClient,
    vault: Path,
    settings: Settings,
    fake_ollama: FakeOllama,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A server started before `knotwork reembed` switched the graph's model went on embedding
    with its own: a PUT stored vectors of the old size that the vector index ignored (or
    answered 500 after writing the file), and /retrieve answered without vector search."""
    monkeypatch.setattr(core_module, "MANIFEST_RECHECK_S", 0.0)  # the bound: tests/unit
    before = client.put("/notes/First.md", content="# First\n\nWritten before the switch.\n")
    assert before.status_code == 200, before.text

    async def reembed(other: Settings) -> None:  # as `knotwork reembed` does, elsewhere
        async with open_core(other) as switched:
            await schema.reembed(switched.store, other, switched.embedder.aget_text_embedding_batch)

    fake_ollama.models["all-minilm:latest"] = 384
    asyncio.run(
        reembed(settings.model_copy(update={"embed_model": "all-minilm", "embed_dimension": 384}))
    )
    text = "# Second\n\nAnother note written after the switch.\n"
    put = client.put("/notes/mix/Second.md", content=text)
    assert put.status_code == 409, put.text
    assert put.json()["error"] == "ManifestMismatchError"
    detail = put.json()["detail"]
    assert "'all-minilm' (384 dimensions)" in detail and "'nomic-embed-text' (768" in detail
    assert "Restart it" in detail
    assert not (vault / "mix").exists()  # refused before the file was written
    json = {"Content-Type": "application/json"}
    for route in ("/retrieve", "/query"):
        asked = client.post(route, json={"question": "What was written?"}, headers=json)
        assert asked.status_code == 409, (route, asked.text)
        assert asked.json()["error"] == "ManifestMismatchError"

    async def notes() -> list[str]:
        async with open_core(settings) as core:
            rows = await ad_hoc(core, "MATCH (n:Note) RETURN n.path AS p", {}, write=False)
        return sorted(r["p"] for r in rows)

    assert asyncio.run(notes()) == ["First.md"]
