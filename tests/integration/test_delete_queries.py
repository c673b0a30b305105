"""A lone delete against the real Neo4j runs only the queries it has work for: the note's state
and the vault's names stamp in one read before its transaction; no reverse mention pass for
names no other note bears; no orphan clean-up when what its facts pointed at holds other
relationships, no placeholder naming when every placeholder it touched keeps its name. When
there is such work, the same delete does it (bench/RESULTS.md, "One delete in fewer queries")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from knotwork.check.verify import snapshot, verify_vault
from knotwork.core import Core
from knotwork.graph.queries import Query
from knotwork.graph.store import GraphStore
from knotwork.ingest import mentions, revisions, settle, write
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from tests.integration.conftest import ad_hoc, put


@pytest.fixture
def queries(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the queries run from here on, in order: each still runs on the database."""
    ran: list[str] = []

    def recorded(run: Any) -> Any:
        async def named(first: Any, query: Query[Any], /, **params: Any) -> Any:
            ran.append(query.name)
            return await run(first, query, **params)

        return named

    for module in (write, settle, revisions, mentions):
        monkeypatch.setattr(module, "run_query", recorded(module.run_query))
    monkeypatch.setattr(GraphStore, "read", recorded(GraphStore.read))
    return ran


async def nodes(core: Core) -> list[str]:
    return [n for n in (await snapshot(core.store, "t"))["nodes"] if not n.startswith("note:")]


async def test_a_lone_delete_runs_only_the_queries_it_has_work_for(
    core: Core, vault: Path, ingestor: Ingestor, queries: list[str]
) -> None:
    put(vault, "Hub.md", "---\nstatus: active\n---\n# Hub\n\nSee [[Ghost]].\n")
    put(vault, "A.md", "---\nstatus: active\n---\nA works with [[Hub]] and [[Ghost]].\n")
    put(vault, "B.md", "B reports to [[hub]].\n")
    await sync_vault(ingestor)
    await ingestor.upsert_path("B.md")  # unchanged: reads the names, as a first edit does
    queries.clear()
    # Hub: linked by A and B (their links go to a new placeholder, named by them), links to a
    # missing note that A still spells alike, shares its entity with A, and no other note
    # bears its name.
    (vault / "Hub.md").unlink()
    assert (await ingestor.delete("Hub.md")).status == "deleted"
    assert queries == [
        "notes_gone_state",
        "facts_delete",
        "links_reresolve",
        "notes_delete",
        "revisions_append",
    ]
    assert await nodes(core) == ["entity:active", "unresolved:ghost|Ghost", "unresolved:hub|Hub"]
    assert await verify_vault(ingestor) == []


async def test_a_delete_that_leaves_an_orphan_and_a_name_to_change_settles_them(
    core: Core, vault: Path, ingestor: Ingestor, queries: list[str]
) -> None:
    put(vault, "A.md", "---\nrole: solo\nstatus: active\n---\nA works with [[GHOST]].\n")
    put(vault, "B.md", "---\nstatus: active\n---\nB works with [[Ghost]].\n")
    await sync_vault(ingestor)
    assert "unresolved:ghost|GHOST" in await nodes(core)
    queries.clear()
    (vault / "A.md").unlink()
    await ingestor.delete("A.md")
    assert "orphans_delete" in queries and "unresolved_names" in queries
    assert await nodes(core) == ["entity:active", "unresolved:ghost|Ghost"]
    assert await verify_vault(ingestor) == []


async def test_a_delete_of_a_name_another_note_bears_moves_the_mentions_to_it(
    core: Core, vault: Path, ingestor: Ingestor, queries: list[str]
) -> None:
    put(vault, "Project Atlas.md", "The top one.\n")
    put(vault, "deep/Project Atlas.md", "The deep one.\n")
    put(vault, "Notes.md", "Status of project atlas is green.\n")
    await sync_vault(ingestor)
    queries.clear()
    (vault / "Project Atlas.md").unlink()
    await ingestor.delete("Project Atlas.md")
    assert "mentions_text_candidates" in queries and "mentions_candidates" in queries
    mentioned = await ad_hoc(
        core,
        "MATCH (:Note {vault: 't', path: 'Notes.md'})-[:MENTIONS]->(m) RETURN m.path AS path",
    )
    assert mentioned == [{"path": "deep/Project Atlas.md"}]
    assert await verify_vault(ingestor) == []
