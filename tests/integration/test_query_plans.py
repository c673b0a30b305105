"""Queries planned once per server (``CYPHER replan=skip``) must have a plan that does not depend
on the graph's size: planned on an empty database, as in a first sync, the plan is kept while
the graph grows, so it may find nodes only by unique keys, element ids or an index seek on the
properties it looks up (or scan a label that holds one node per vault), never by a scan, nor
by a seek of the vault alone (an index on ``Note.vault`` was chosen so for notes looked up by
vault and path, and kept: bench/RESULTS.md)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from knotwork.core import Core
from knotwork.graph import cypher
from knotwork.retrieve.notes import candidate_params

CYPHER_DIR = Path(__file__).resolve().parents[2] / "cypher"
# How each kind of query may find its nodes whatever the graph's size.
STABLE = {
    "NodeUniqueIndexSeek(Locking)",
    "NodeUniqueIndexSeek",
    "NodeByElementIdSeek",
    # A seek on an index of the very properties the query looks up: what a planner with
    # statistics would choose too, chosen here without them.
    "NodeIndexSeek",
    "DirectedRelationshipIndexSeek",
    "UndirectedRelationshipIndexSeek",
}
ONE_PER_VAULT = {"NameStamp"}
VAULT_WIDE = re.compile(r"WHERE vault = \$vault(?: AND \w+ IS NOT NULL)?$")
# The same seek followed by the properties it caches ("…, cache[n.path]").
VAULT_WIDE_CACHED = re.compile(r"WHERE vault = \$vault(?: AND \w+ IS NOT NULL)?(?:,|$)")


def _planned_once() -> list[str]:
    return sorted(
        p.stem
        for p in CYPHER_DIR.glob("*.cypher")
        if re.search(r"^CYPHER replan=skip$", p.read_text(encoding="utf-8"), re.MULTILINE)
    )


def _operators(plan: dict[str, Any]) -> list[tuple[str, str]]:
    details = str(plan.get("args", {}).get("Details", ""))
    found = [(plan["operatorType"].split("@")[0], details)]
    for child in plan.get("children", []):
        found += _operators(child)
    return found


async def test_queries_planned_once_find_nodes_by_unique_keys_only(core: Core) -> None:
    names = _planned_once()
    assert {"chunks_write", "notes_upsert", "facts_write_links"} <= set(names)
    async with core.driver.session(database=core.settings.neo4j_database) as session:
        for name in names:
            text = cypher.load(name)
            params: dict[str, Any] = {p: [] for p in set(re.findall(r"\$(\w+)", text))}
            params.update({p: "v" for p in ("vault", "token") if p in params})
            params.update({p: {"revisions": [], "token": None} for p in ("write",) if p in params})
            params.update({p: {"reverse": [], "links": []} for p in ("owed",) if p in params})
            result = await session.run("EXPLAIN " + text, params)
            plan = (await result.consume()).plan
            assert plan is not None, name
            for operator, details in _operators(plan):
                # A seek by the vault alone finds every node of it, whatever else is looked up.
                assert not VAULT_WIDE.search(details), (name, operator, details)
                if "Scan" in operator or "Seek" in operator:
                    label_scan_ok = operator == "NodeByLabelScan" and any(
                        f":{label}" in details for label in ONE_PER_VAULT
                    )
                    assert operator in STABLE or label_scan_ok, (name, operator, details)


async def test_reads_of_a_few_nodes_seek_them_not_the_vault(core: Core) -> None:
    """The notes a path not found may mean (every 404 of a note read) and the chunks pending a
    model's work (every period of the background passes) are sought through the indexes of what
    they compare: no scan, no seek of the whole vault."""
    steps = ["embedding", "extraction"]
    cases: list[tuple[str, dict[str, Any]]] = [
        ("note_candidates", candidate_params("v", "mine/alice.md", 3)),
        ("note_candidates", candidate_params("v", "AI", 3)),  # no name key: by full text
        ("chunks_owed", {"vault": "v", "steps": steps, "ids": [], "paths": [], "shown": 3}),
    ]
    async with core.driver.session(database=core.settings.neo4j_database) as session:
        for name, params in cases:
            result = await session.run("EXPLAIN " + cypher.load(name), params)
            plan = (await result.consume()).plan
            assert plan is not None, name
            operators = _operators(plan)
            assert any(op.endswith("Seek") for op, _ in operators), (name, operators)
            for operator, details in operators:
                assert "Scan" not in operator, (name, operator, details)
                assert not VAULT_WIDE_CACHED.search(details), (name, operator, details)
