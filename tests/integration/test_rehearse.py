"""The write rehearsal (ingest/rehearse.py): it runs what a sync and single edits run, with the
same parameter types (so the server's plans serve them), and commits nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from neo4j import AsyncManagedTransaction

from knotwork.core import Core
from knotwork.graph import cypher
from knotwork.ingest import rehearse
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from tests.integration.conftest import ad_hoc, put

CYPHER_DIR = Path(__file__).resolve().parents[2] / "cypher"
# Run after a sync's last batch, by entity linking (its own transactions, model calls between);
# and the vault's folder and its old calibration's drop, before the first batch, by a vault's
# first sync only.
AFTER_THE_WRITES = {
    "calibration_drop",
    "entities_pending",
    "entities_values_page",
    "entities_values_unlink",
    "entity_embedding_set",
    "entity_similar_link",
    "vault_folder_set",
}

Call = tuple[str, tuple[tuple[str, str], ...]]  # query text, its parameters' types


def _kind(value: object) -> str:
    """A parameter's type as Neo4j's plan cache tells them apart (a list's or map's values do
    not count: checked against the server's cache in bench/RESULTS.md)."""
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "map"
    if isinstance(value, list | tuple):
        return "list"
    return type(value).__name__


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[set[Call]]:
    """Every query run in a managed transaction, with its parameters' types."""
    seen: set[Call] = set()
    run = AsyncManagedTransaction.run

    async def recorded(
        self: AsyncManagedTransaction, query: str, parameters: dict[str, Any] | None = None
    ) -> Any:
        types = tuple(sorted((k, _kind(v)) for k, v in (parameters or {}).items()))
        seen.add((str(query), types))
        return await run(self, query, parameters)

    monkeypatch.setattr(AsyncManagedTransaction, "run", recorded)
    yield seen


StatedCall = tuple[str, tuple[tuple[str, str], ...], bool]  # and: written before, in its tx


@pytest.fixture
def stated_calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[set[StatedCall]]:
    """Every query run in a managed transaction, with its parameters' types and whether an
    earlier statement of its transaction wrote: Neo4j plans a query once for a transaction
    that has written nothing yet and once more for one that has."""
    seen: set[StatedCall] = set()
    earlier: dict[int, list[Any]] = {}
    run = AsyncManagedTransaction.run

    async def recorded(
        self: AsyncManagedTransaction, query: str, parameters: dict[str, Any] | None = None
    ) -> Any:
        written = False
        for result in earlier.get(id(self), []):  # each read to its end by its caller
            written = written or (await result.consume()).counters.contains_updates
        types = tuple(sorted((k, _kind(v)) for k, v in (parameters or {}).items()))
        seen.add((str(query), types, written))
        result = await run(self, query, parameters)
        earlier.setdefault(id(self), []).append(result)
        return result

    monkeypatch.setattr(AsyncManagedTransaction, "run", recorded)
    yield seen


def _names(found: set[Call] | set[StatedCall]) -> set[str]:
    by_text = {
        text: p.stem for p in CYPHER_DIR.glob("*.cypher") for text in cypher.statements(p.stem)
    }
    return {by_text.get(call[0], call[0][:60]) for call in found}


async def _counts(core: Core) -> dict[str, int]:
    [row] = await ad_hoc(
        core,
        "MATCH (n) WITH count(n) AS nodes "
        "OPTIONAL MATCH ()-[r]->() RETURN nodes, count(r) AS relationships",
    )
    return dict(row)


def _vault(root: Path) -> None:
    put(
        root,
        "People/Alice.md",
        "---\naliases: [Al]\ntags: [team]\n---\n# Alice\n\nWorks with [[Bob]].\n",
    )
    put(
        root,
        "Bob.md",
        "# Bob\n\nBob and Alice wrote [[Design]] and [[Nowhere]].\n\n## Later\n\nAl.\n",
    )
    put(root, "Design.md", '---\nstatus: draft\nowner: "[[Bob]]"\n---\n# Design\n\nBy Alice.\n')


async def test_a_rehearsal_plans_every_write_of_a_sync_with_its_parameter_types(
    core: Core, vault: Path, ingestor: Ingestor, calls: set[Call]
) -> None:
    await rehearse.rehearse(core)
    rehearsed = set(calls)
    assert {"notes_upsert", "chunks_write", "facts_write_links", "mentions_write"} <= _names(
        rehearsed
    )
    calls.clear()
    _vault(vault)
    await sync_vault(ingestor)  # a first sync: every note new
    put(vault, "Carol.md", "# Carol\n\nNew, mentions Bob and links [[Alice]].\n")
    (vault / "Design.md").unlink()  # a sync that adds and deletes, as its last batch does
    await sync_vault(ingestor)
    ran = set(calls)
    assert {"notes_upsert", "chunks_write", "revisions_append"} <= _names(ran)
    assert _names(ran - rehearsed) <= AFTER_THE_WRITES


async def test_a_rehearsal_of_edits_plans_a_single_edit_and_delete(
    core: Core, vault: Path, ingestor: Ingestor, calls: set[Call]
) -> None:
    _vault(vault)
    await sync_vault(ingestor)
    await rehearse.rehearse(core)
    rehearsed = set(calls)
    calls.clear()
    put(vault, "Bob.md", "# Bob\n\nNow only [[Alice]]: Alice, Ally to some.\n")
    await ingestor.upsert_path("Bob.md")  # what the watcher and a REST write run
    await ingestor.upsert_text("Zed.md", "# Zed\n\nMentions Bob, links [[Design]].\n")
    await ingestor.rename("Zed.md", "Zoe.md", "# Zed\n\nMentions Bob, links [[Design]].\n")
    await ingestor.delete("Design.md")
    put(vault, "People/Alice.md", "---\naliases: [Al, Ally]\n---\n# Alice\n")
    # A new name Bob writes: his mentions are rewritten (to the same fact: he names her already)
    await ingestor.upsert_path("People/Alice.md")
    await ingestor.delete("Bob.md")  # mentioned by Zoe: the mention goes with it
    ran = set(calls)
    assert {"facts_delete", "chunks_prune", "notes_delete", "links_reresolve"} <= _names(ran)
    assert "mentions_delete" in _names(ran)
    assert _names(ran - rehearsed) <= AFTER_THE_WRITES


async def test_a_rehearsal_plans_a_single_delete_and_edit_for_a_transaction_yet_unwritten(
    core: Core, vault: Path, ingestor: Ingestor, stated_calls: set[StatedCall]
) -> None:
    # A delete's first queries run before its transaction has written anything, and more of
    # them when the note states no fact (Nowhere.md: linked, linking nothing); the rehearsal's
    # one transaction runs everything after a sync's batch has written. Unrehearsed, each such
    # query was planned at the first delete after a start: 0.1-0.6 s (bench/RESULTS.md).
    _vault(vault)
    put(vault, "Nowhere.md", "Linked by Bob, stating nothing.\n")
    await sync_vault(ingestor)
    await rehearse.rehearse(core)
    rehearsed = set(stated_calls)
    stated_calls.clear()
    await ingestor.delete("Design.md")
    await ingestor.delete("Nowhere.md")
    put(vault, "Bob.md", "# Bob\n\nNow only [[Alice]].\n")
    await ingestor.upsert_path("Bob.md")
    ran = set(stated_calls)
    unwritten = {call for call in ran if not call[2]}
    assert "facts_delete" in _names(unwritten)
    assert _names(ran - rehearsed) <= AFTER_THE_WRITES


async def test_a_rehearsal_commits_nothing_and_is_started_once_per_core(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    _vault(vault)
    await sync_vault(ingestor)
    assert not core.writes_rehearsed  # a sync does not rehearse
    before = await _counts(core)
    task = rehearse.start(core)
    assert task is not None
    await task
    assert await _counts(core) == before
    assert not await ad_hoc(core, "MATCH (n) WHERE n.vault STARTS WITH 'rehearsal-' RETURN n")
    assert set(core.names) <= {"t"}  # the scratch vault's names are not kept
    assert core.writes_rehearsed and rehearse.start(core) is None  # once per core
