"""The README's ready Cypher queries for Neo4j Browser run and show what they promise."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from knotwork.core import Core
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from tests.conftest import REPO
from tests.integration.conftest import ad_hoc, put


def readme_queries() -> list[str]:
    section = (REPO / "README.md").read_text().split("## Neo4j Browser", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```cypher\n(.*?)```", section, re.S)


async def run(core: Core, query: str) -> list[dict[str, Any]]:
    return await ad_hoc(core, query, {}, write=False)


async def test_the_three_browser_queries_answer_on_an_ingested_vault(
    core: Core, vault: Path, ingestor: Ingestor, tmp_path: Path
) -> None:
    """Each query answers for the vault it names, not for another holding the same paths."""
    put(vault, "People/Alice.md", "---\nrole: engineer\n---\n# Alice\nWorks on [[Bob]].\n")
    put(vault, "People/Bob.md", "# Bob\nBob leads [[Graph]].\n")
    put(vault, "Projects/Graph.md", "# Graph\nThe knowledge graph project.\n")
    await sync_vault(ingestor)
    other = tmp_path / "other"
    put(other, "People/Alice.md", "# Alice\nSee [[Carol]] and [[Dan]].\n")
    await sync_vault(Ingestor(core, root=other, vault="other", extract_enabled=False))
    facts, path, changes = (q.replace("'default'", "'t'") for q in readme_queries())

    rows = await run(core, facts)
    assert {r["extractor"] for r in rows} == {"wikilink", "frontmatter"}
    targets = {r["o"].get("path") or r["o"].get("name") for r in rows}
    assert "People/Bob.md" in targets and not {"Carol", "Dan"} & targets  # not vault "other"
    assert all(r["f"] is not None and r["line"] for r in rows)

    [row] = await run(core, path)
    nodes = row["p"][::2]  # a path reads node, relationship, node, …
    assert [n["path"] for n in nodes] == ["People/Alice.md", "People/Bob.md", "Projects/Graph.md"]

    rows = await run(core, changes)
    assert {r["note"] for r in rows} == {"People/Alice.md", "People/Bob.md", "Projects/Graph.md"}
    assert {r["kind"] for r in rows} == {"upsert"}
