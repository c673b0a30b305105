"""A rename closes the note's old path: a revision there says where it went and that the path
asserts nothing since, so "what did this note assert on a date" reads the old path right after
the move, and its history ends with the move."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from knotwork.core import Core
from knotwork.graph.queries.writes import REVISIONS_APPEND
from knotwork.graph.store import run_query
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.revisions import revision
from knotwork.ingest.sync import sync_vault
from knotwork.retrieve.notes import note_history
from tests.integration.conftest import ad_hoc, put, stale_revisions


async def _now(core: Core) -> Any:
    return (await ad_hoc(core, "RETURN datetime() AS now"))[0]["now"]


async def _asserted(core: Core, path: str, at: Any) -> list[str]:
    """The README's query: what the note at ``path`` asserted at ``at``."""
    rows = await ad_hoc(
        core,
        "MATCH (v:Revision {vault: $vault, path: $path}) WHERE v.at <= $at "
        "RETURN v.asserted AS asserted ORDER BY v.at DESC LIMIT 1",
        {"vault": core.settings.vault_name, "path": path, "at": at},
    )
    return [f for r in rows for f in r["asserted"]]


async def test_a_rename_closes_the_old_path(core: Core, vault: Path) -> None:
    ingestor = Ingestor(core, root=vault, vault=core.settings.vault_name, extract_enabled=False)
    put(vault, "Acme.md", "# Acme\n\nAcme works with [[Bob]].\n")
    put(vault, "Bob.md", "# Bob\n")
    await sync_vault(ingestor)
    before = await _now(core)
    (vault / "Acme.md").rename(vault / "Acme Corp.md")
    await sync_vault(ingestor)
    after = await _now(core)
    assert any(f.startswith("WORKS_WITH|") for f in await _asserted(core, "Acme.md", before))
    assert await _asserted(core, "Acme.md", after) == []  # moved away: nothing there
    assert any(f.startswith("WORKS_WITH|") for f in await _asserted(core, "Acme Corp.md", after))

    rows = await note_history(core, "Acme.md")
    closing = rows[0]
    assert (closing["kind"], closing["renamed_to"], closing["renamed_from"]) == (
        "renamed",
        "Acme Corp.md",
        None,
    )
    assert (closing["added"], closing["removed"]) == ([], [])
    assert [r["kind"] for r in rows[1:]] == ["upsert"]
    # The new path's history follows the move back, without the closing record.
    assert [(r["path"], r["kind"], r["renamed_from"]) for r in await note_history(
        core, "Acme Corp.md"
    )] == [("Acme Corp.md", "rename", "Acme.md"), ("Acme.md", "upsert", None)]  # fmt: skip
    assert await stale_revisions(core, core.settings.vault_name) == {}

    # A new note at the old path, moved away in turn: its history stops at its own first
    # revision there, not at the earlier note's closing one.
    put(vault, "Acme.md", "# Acme again\n")
    await sync_vault(ingestor)
    (vault / "Acme.md").rename(vault / "Acme Two.md")
    await sync_vault(ingestor)
    assert [(r["path"], r["kind"]) for r in await note_history(core, "Acme Two.md")] == [
        ("Acme Two.md", "rename"),
        ("Acme.md", "upsert"),
    ]
    assert [r["kind"] for r in await note_history(core, "Acme.md")] == [
        "renamed",
        "upsert",
        "renamed",
        "upsert",
    ]


async def test_a_path_written_again_in_the_batch_gets_no_closing_record(core: Core) -> None:
    """Two notes swapped in one batch (b from a, a from c): a's newest record is the note
    moved there, not a close at the same instant; c, left, is closed."""
    vault = core.settings.vault_name
    revisions = [
        revision("b.md", "rename", ["x"], ["x"], "h1", "h1", "a.md"),
        revision("a.md", "rename", ["y"], ["y"], "h2", "h2", "c.md"),
    ]

    async def work(tx: Any) -> None:
        await run_query(tx, REVISIONS_APPEND, vault=vault, write={"revisions": revisions,
                                                                  "token": None})  # fmt: skip

    await core.store.write_transaction(work)
    rows = await ad_hoc(
        core,
        "MATCH (v:Revision {vault: $vault}) RETURN v.path AS path, v.kind AS kind, "
        "v.renamed_to AS to, v.asserted AS asserted ORDER BY v.path",
        {"vault": vault},
    )
    assert rows == [
        {"path": "a.md", "kind": "rename", "to": None, "asserted": ["y"]},
        {"path": "b.md", "kind": "rename", "to": None, "asserted": ["x"]},
        {"path": "c.md", "kind": "renamed", "to": "a.md", "asserted": []},
    ]
