"""The README's ready Cypher queries for Neo4j Browser run and show what they promise."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from knotwork.core import Core
from knotwork.graph.queries.reads import NOTE_DETAIL
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from tests.conftest import REPO
from tests.fakes.ollama import FakeOllama
from tests.integration.conftest import ad_hoc, put


def readme_queries() -> list[str]:
    section = (REPO / "README.md").read_text().split("## Neo4j Browser", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```cypher\n(.*?)```", section, re.S)


async def run(core: Core, query: str) -> list[dict[str, Any]]:
    return await ad_hoc(core, query, {}, write=False)


def triple(body: dict[str, Any]) -> str:
    """The model finds, in every chunk, a fact whose subject is an entity, not the note."""
    return json.dumps(
        {
            "entities": [{"name": "Kubernetes"}, {"name": "Postgres"}],
            "triples": [{"subject": "Kubernetes", "predicate": "depends on", "object": "Postgres"}],
        }
    )


async def test_the_three_browser_queries_answer_on_an_ingested_vault(
    core: Core, vault: Path, tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    """Each query answers for the vault it names, not for another holding the same paths."""
    fake_ollama.chat_script = triple
    put(vault, "People/Alice.md", "---\nrole: engineer\n---\n# Alice\nWorks on [[Bob]].\n")
    put(vault, "People/Bob.md", "# Bob\nBob leads [[Graph]].\n")
    put(vault, "Projects/Graph.md", "# Graph\nThe knowledge graph project.\n")
    await sync_vault(Ingestor(core, root=vault, vault="t", embed_enabled=False))
    other = tmp_path / "other"
    put(other, "People/Alice.md", "# Alice\nSee [[Carol]] and [[Dan]].\n")
    await sync_vault(Ingestor(core, root=other, vault="other", embed_enabled=False))
    facts, path, changes = (q.replace("'default'", "'t'") for q in readme_queries())

    rows = await run(core, facts)
    # Every fact the note asserts, as `note` lists them: the model's too, whose subject is an
    # entity the note names; and only this vault's, though "other" holds the same path.
    [detail] = await core.store.read(NOTE_DETAIL, vault="t", path="People/Alice.md")
    assert len(rows) == len(detail["facts"])
    assert {r["extractor"] for r in rows} == {"wikilink", "frontmatter", "llm"}
    assert {r["a"]["vault"] for r in rows} == {"t"}
    [model] = [r for r in rows if r["extractor"] == "llm"]
    assert (model["a"]["name"], model["o"]["name"]) == ("Kubernetes", "Postgres")
    targets = {r["o"].get("path") or r["o"].get("name") for r in rows}
    assert "People/Bob.md" in targets and not {"Carol", "Dan"} & targets  # not vault "other"
    assert all(r["f"] is not None and r["line"] for r in rows)

    [row] = await run(core, path)
    nodes = row["p"][::2]  # a path reads node, relationship, node, …
    assert [n["path"] for n in nodes] == ["People/Alice.md", "People/Bob.md", "Projects/Graph.md"]

    rows = await run(core, changes)
    assert {r["note"] for r in rows} == {"People/Alice.md", "People/Bob.md", "Projects/Graph.md"}
    assert {r["kind"] for r in rows} == {"upsert", "extract"}  # the model's facts, a revision
    # A fact key as the README reads it: relation, the note as subject (empty), target, …
    assert any("||bob|wikilink|5||" in k for r in rows for k in r["added"]), rows

    # A rename: the new path says where the note came from, the old one where it went.
    (vault / "Projects/Graph.md").rename(vault / "Graph.md")
    await sync_vault(Ingestor(core, root=vault, vault="t", embed_enabled=False))
    moves = [r for r in await run(core, changes) if r["kind"] in ("rename", "renamed")]
    # Written at one instant: in either order.
    assert [(r["note"], r["kind"], r["renamed_from"], r["renamed_to"]) for r in moves] in (
        [
            ("Graph.md", "rename", "Projects/Graph.md", None),
            ("Projects/Graph.md", "renamed", None, "Graph.md"),
        ],
        [
            ("Projects/Graph.md", "renamed", None, "Graph.md"),
            ("Graph.md", "rename", "Projects/Graph.md", None),
        ],
    )
