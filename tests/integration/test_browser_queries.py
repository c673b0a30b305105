"""The README's ready Cypher queries for Neo4j Browser run and show what they promise."""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path
from typing import Any

from knotwork.core import Core
from knotwork.graph.queries.reads import NOTE_DETAIL
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from tests.conftest import REPO
from tests.fakes.ollama import FakeOllama
from tests.integration.conftest import ad_hoc, put


def browser_section() -> str:
    return (REPO / "README.md").read_text().split("## Neo4j Browser", 1)[1].split("\n## ", 1)[0]


def readme_queries() -> list[str]:
    return re.findall(r"```cypher\n(.*?)```", browser_section(), re.S)


def readme_inline(pattern: str) -> str:
    """A query or pattern the section gives inline (in backticks), one line however wrapped."""
    [found] = re.findall(pattern, browser_section(), re.S)
    return " ".join(found.split()).replace("'default'", "'t'")


async def run(core: Core, query: str) -> list[dict[str, Any]]:
    return await ad_hoc(core, query, {}, write=False)


async def scans(core: Core, query: str) -> list[str]:
    """The operators of the query's plan that read every node or relationship of the database."""
    _, summary, _ = await core.driver.execute_query(
        "EXPLAIN " + query, database_=core.settings.neo4j_database
    )

    def operators(plan: dict[str, Any]) -> list[str]:
        return [plan["operatorType"], *(o for c in plan.get("children", []) for o in operators(c))]

    assert summary.plan is not None
    return [o for o in operators(summary.plan) if re.search(r"All(Nodes|Relationships)Scan", o)]


def triple(body: dict[str, Any]) -> str:
    """The model finds, in every chunk, a fact whose subject is an entity, not the note (kept
    where the chunk names both)."""
    return json.dumps(
        {
            "entities": [{"name": "Kubernetes"}, {"name": "Postgres"}],
            "triples": [{"subject": "Kubernetes", "predicate": "depends on", "object": "Postgres"}],
        }
    )


async def test_the_browser_queries_answer_on_an_ingested_vault(
    core: Core, vault: Path, tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    """Each query answers for the vault it names, not for another holding the same paths, from
    its note rather than a scan of the database, and sends no embedding."""
    fake_ollama.chat_script = triple
    # The model's fact must be the note's (ingest/grounding.py): the text names both ends.
    alice = "---\nrole: engineer\n---\n# Alice\nWorks on [[Bob]]'s Kubernetes, on Postgres.\n"
    put(vault, "People/Alice.md", alice)
    put(vault, "People/Bob.md", "# Bob\nBob leads [[Graph]].\n")
    put(vault, "Projects/Graph.md", "# Graph\nThe knowledge graph project.\n")
    put(
        vault,
        "Meeting.md",
        "---\nparticipants: '[[Alice]]'\n---\n# Meeting\nSee also [[People/Alice|Ali]].\n"
        "Alice presented [[Roadmap 2027]].\n",
    )
    put(vault, unicodedata.normalize("NFD", "Café Müller.md"), "# Café\nA meeting place.\n")
    await sync_vault(Ingestor(core, root=vault, vault="t", embed_enabled=False))
    other = tmp_path / "other"
    put(other, "People/Alice.md", "# Alice\nSee [[Carol]] and [[Dan]].\n")
    put(other, "Meeting.md", "# Meeting\nWorks with [[Alice]].\n")
    await sync_vault(Ingestor(core, root=other, vault="other", embed_enabled=False))
    facts, backlinks, path, changes = (q.replace("'default'", "'t'") for q in readme_queries())
    for query in (facts, backlinks):
        assert await scans(core, query) == []

    rows = await run(core, facts)
    # Every fact the note asserts, as `note` lists them: the model's too, whose subject is an
    # entity the note names; and only this vault's, though "other" holds the same path.
    [detail] = await core.store.read(NOTE_DETAIL, vault="t", path="People/Alice.md")
    assert len(rows) == len(detail["facts"])
    assert {r["extractor"] for r in rows} == {"wikilink", "frontmatter", "llm"}
    assert "embedding" not in json.dumps(rows, default=str)
    [model] = [r for r in rows if r["extractor"] == "llm"]
    assert (model["subject"]["name"], model["object"]["name"]) == ("Kubernetes", "Postgres")
    assert model["line"] == 4  # its chunk's first line, the heading's
    targets = {r["object"]["path"] or r["object"]["name"] for r in rows}
    assert "People/Bob.md" in targets and not {"Carol", "Dan"} & targets  # not vault "other"

    # Every link to Alice, whatever its type, and no mention; none in vault "other".
    rows = await run(core, backlinks)
    assert [(r["note"], r["relation"], r["line"], r["written"], r["display"]) for r in rows] == [
        ("Meeting.md", "HAS_PARTICIPANT", 2, "Alice", None),
        ("Meeting.md", "SEE_ALSO", 5, "People/Alice", "Ali"),
    ]
    assert await run(core, backlinks.replace("<-[f]-", "<-[f:LINKS_TO]-")) == []
    unresolved = readme_inline(r"match `(\(t:Unresolved \{.*?\}\))` instead")
    note = re.search(r"\(t:Note \{.*?\}\)", backlinks)
    assert note is not None
    rows = await run(core, backlinks.replace(note[0], unresolved))
    assert [(r["note"], r["relation"], r["line"]) for r in rows] == [("Meeting.md", "LINKS_TO", 6)]
    # A path stored decomposed, found by its composed spelling.
    [row] = await run(
        core, readme_inline(r"`(MATCH \(n:Note .*?NFC\) = '.*?')`") + " RETURN n.path"
    )
    assert row["n.path"] == unicodedata.normalize("NFD", "Café Müller.md")

    [row] = await run(core, path)
    assert row["chain"] == ["People/Alice.md", "People/Bob.md", "Projects/Graph.md"]
    assert [(f["relation"], f["source"], f["line"]) for f in row["facts"]] == [
        ("WORKS_ON", "People/Alice.md", 5),
        ("LEADS", "People/Bob.md", 2),
    ]

    rows = await run(core, changes)
    assert {r["note"] for r in rows} == {
        "People/Alice.md",
        "People/Bob.md",
        "Projects/Graph.md",
        "Meeting.md",
        unicodedata.normalize("NFD", "Café Müller.md"),
    }
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
