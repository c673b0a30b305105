"""The names REST and MCP writes give notes, on the real app and Neo4j: two writes at once of
one name in its two Unicode forms (or of two notes into one new folder so spelled) both land in
the one file or folder; a new name Obsidian refuses, or one that passes for another path or
note, is a 422 saying why, while a file so named on disk is ingested and stays writable."""

from __future__ import annotations

import asyncio
import os
import unicodedata
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest

from knotwork.api import create_app
from knotwork.core import Core
from knotwork.settings import Settings
from tests.integration.conftest import Neo4jTarget, put, stored_notes
from tests.integration.test_mcp import connected, refused, synced_vault

MARKDOWN = {"content-type": "text/markdown"}
# Written either way: 202 when a loaded machine let the lease lapse midway (the replay ingests).
WRITTEN = {200, 202}


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def nfd(text: str) -> str:
    return unicodedata.normalize("NFD", text)


@asynccontextmanager
async def served(settings: Settings, vault: Path) -> AsyncIterator[tuple[httpx.AsyncClient, Core]]:
    """The REST app on ``vault``, with a client that can send requests at once."""
    app = create_app(settings.model_copy(update={"vault_path": vault, "extract": False}))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=True)
        async with httpx.AsyncClient(transport=transport, base_url="http://knotwork.test") as c:
            yield c, app.state.core


async def _put(client: httpx.AsyncClient, path: str, text: str = "# x\n") -> httpx.Response:
    return await client.put(f"/notes/{quote(path)}", content=text, headers=MARKDOWN)


def files(vault: Path) -> list[str]:
    return sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*"))


async def test_one_note_written_at_once_in_both_unicode_forms_is_one_note(
    settings: Settings, vault: Path, empty_db: Neo4jTarget
) -> None:
    """The second writer spelled its path before the first made the file, so took the file for
    a case variant (409 "differs only in letter case ... from 'N1é.md'"): spelled again under
    the note's lock, it rewrites that file. A delete in the other form racing a put deletes the
    file the put made (it left the file and took the graph's note)."""
    codes: list[int] = []
    async with served(settings, vault) as (client, core):
        for i in range(2):
            composed, decomposed = nfc(f"N{i}é.md"), nfd(f"N{i}é.md")
            answers = await asyncio.gather(_put(client, composed), _put(client, decomposed))
            codes += [a.status_code for a in answers]
            assert {a.status_code for a in answers} <= WRITTEN, [a.text for a in answers]
            # One file, in the form of whichever write took the lock first.
            assert len([n for n in files(vault) if nfc(n) == composed]) == 1, files(vault)
        doomed = nfc("Dé.md")
        put_, delete = await asyncio.gather(
            _put(client, doomed), client.delete(f"/notes/{quote(nfd(doomed))}")
        )
        assert put_.status_code in WRITTEN and delete.status_code in (200, 404), delete.text
        codes += [put_.status_code]
        graph = await stored_notes(core)
    if set(codes) == {200}:  # each ingested at once
        assert sorted(graph) == files(vault), "the disk and the graph hold the same notes"
    assert [nfc(n) for n in files(vault) if n.startswith("N")] == [
        nfc(f"N{i}é.md") for i in range(2)
    ]


async def test_two_notes_written_at_once_into_one_new_folder_in_both_forms_share_it(
    settings: Settings, vault: Path, empty_db: Neo4jTarget
) -> None:
    """Two notes hold two locks: the second found the folder the first had just made in the
    other form and refused it (409 "the folder 'H1é' differs only in letter case (or Unicode
    form) from the existing folder 'H1é'"). It is the same folder to the user: both land in
    it, and the graph holds both under the disk's spelling."""
    codes: list[int] = []
    async with served(settings, vault) as (client, core):
        for i in range(3):
            answers = await asyncio.gather(
                _put(client, nfd(f"H{i}é/a.md")), _put(client, nfc(f"H{i}é/b.md"))
            )
            codes += [a.status_code for a in answers]
            assert {a.status_code for a in answers} <= WRITTEN, [a.text for a in answers]
            [folder] = [n for n in os.listdir(vault) if nfc(n) == nfc(f"H{i}é")]
            assert sorted(os.listdir(vault / folder)) == ["a.md", "b.md"]
        graph = await stored_notes(core)
    if set(codes) == {200}:  # each ingested at once, under the disk's spelling
        assert sorted(graph) == [f for f in files(vault) if f.endswith(".md")]
        assert len(graph) == 6


async def test_a_variant_only_in_unicode_form_is_said_so(
    settings: Settings, vault: Path, empty_db: Neo4jTarget
) -> None:
    """The graph holds the note decomposed, its file gone without a sync: a put of the
    composed name is refused as before, worded as what differs, each name with its form."""
    put(vault, "Kept.md", "# Kept\n")  # an empty folder would be an unmounted drive
    async with served(settings, vault) as (client, _):
        assert (await _put(client, nfd("Café.md"))).status_code == 200
        (vault / nfd("Café.md")).unlink()
        refusal = await _put(client, nfc("Café.md"))
    assert refusal.status_code == 409, refusal.text
    detail = refusal.json()["detail"]
    assert "differs only in Unicode form" in detail and "letter case" not in detail, detail
    assert "(composed, NFC)" in detail and "(decomposed, NFD: e + U+0301)" in detail, detail
    assert files(vault) == ["Kept.md"]


@pytest.mark.parametrize(
    ("path", "said"),
    [
        ("a#b.md", "holds '#', which Obsidian refuses in a file name: inside a link it starts a"),
        ("a|b.md", "holds '|'"),
        ("[[x]].md", "holds '['"),
        ("a^b.md", "holds '^'"),
        ("C:x.md", "holds ':', which Windows"),
        ("a?b.md", "holds '?'"),
        ("a*b.md", "holds '*'"),
        ('a"b.md', "holds '\"'"),
        ("a<b>.md", "holds '<'"),
        ("CON.md", "'CON', a device name Windows reserves"),
        ("nul.md", "'NUL', a device name Windows reserves"),
        ("Lpt1.old.md", "'LPT1', a device name"),
        ("aux/x.md", "'AUX', a device name"),
        ("New#/x.md", "the name 'New#'"),
        ("Folder./x.md", "ends with a dot or a space, which Windows drops"),
    ],
)
async def test_a_new_name_obsidian_refuses_is_422(
    settings: Settings, vault: Path, empty_db: Neo4jTarget, path: str, said: str
) -> None:
    async with served(settings, vault) as (client, _):
        refusal = await _put(client, path)
    assert refusal.status_code == 422, refusal.text
    assert said in refusal.json()["detail"] and "nothing was written" in refusal.json()["detail"]
    assert files(vault) == []


@pytest.mark.parametrize(
    ("path", "said"),
    [
        ("People\uff0fAlice.md", "U+FF0F (FULLWIDTH SOLIDUS), which looks like '/'"),
        ("People\u2215Alice.md", "U+2215 (DIVISION SLASH), which looks like '/'"),
        ("People\u2044Alice.md", "U+2044 (FRACTION SLASH)"),
        ("\uff0e\uff0e/x.md", "U+FF0E (FULLWIDTH FULL STOP), which looks like '.'"),
        ("\ufb01le.md", "shows as the existing 'file.md'"),
        ("\uff26ile.md", "shows as the existing 'file.md'"),  # fullwidth F
        ("People/\ufb01le/y.md", "shows as the existing 'People/file'"),  # a folder
    ],
)
async def test_a_new_name_that_passes_for_another_path_or_note_is_422(
    settings: Settings, vault: Path, empty_db: Neo4jTarget, path: str, said: str
) -> None:
    put(vault, "file.md", "# file\n")
    put(vault, "People/file/x.md", "# x\n")
    before = files(vault)
    async with served(settings, vault) as (client, _):
        refusal = await _put(client, path)
    assert refusal.status_code == 422, refusal.text
    assert said in refusal.json()["detail"], refusal.json()["detail"]
    assert files(vault) == before


async def test_names_already_on_disk_are_ingested_and_stay_writable(
    settings: Settings, vault: Path, empty_db: Neo4jTarget
) -> None:
    """Only new names are refused: the user's own files so named are read and written as
    before, and a note may go into a folder of theirs so named."""
    on_disk = ["a#b.md", "CON.md", "\ufb01le.md", "C#/Intro.md", "AC\u2215DC/Songs.md"]
    put(vault, "file.md", "# file\n")
    for path in on_disk:
        put(vault, path, "# mine\n")
    async with served(settings, vault) as (client, core):
        synced = await client.post("/sync")
        assert synced.status_code == 200 and synced.json()["errors"] == [], synced.text
        for path in on_disk:
            rewritten = await _put(client, path, "# edited\n")
            assert rewritten.status_code == 200, rewritten.text
        assert (await _put(client, "C#/Next.md")).status_code == 200
        assert (await _put(client, "AC\u2215DC/Next.md")).status_code == 200
        assert (await _put(client, "file2.md")).status_code == 200
        graph = await stored_notes(core)
    new = ["file.md", "C#/Next.md", "AC\u2215DC/Next.md", "file2.md"]
    assert sorted(graph) == sorted([*on_disk, *new])
    assert all((vault / path).read_text() == "# edited\n" for path in on_disk)


async def test_the_mcp_write_tool_refuses_such_names_as_rest_does(
    settings: Settings, vault: Path, core: Core
) -> None:
    served_settings = await synced_vault(settings, vault, core)
    before = files(vault)
    async with connected(served_settings, allow_writes=True) as client:
        obsidian = await refused(client, "upsert_note", path="Ideas#1.md", content="# x\n")
        windows = await refused(client, "upsert_note", path="Com3.md", content="# x\n")
        slash = await refused(client, "upsert_note", path="People\uff0fAlice.md", content="x")
    assert "holds '#'" in obsidian and "'COM3', a device name" in windows, (obsidian, windows)
    assert "looks like '/'" in slash, slash
    assert files(vault) == before
