"""Frontmatter a note's writer may not mean — a key written twice, a title, alias or tag of the
wrong type, a tag holding a space, an impossible date — is said where a note's warnings go
(`ingest`'s summary, a `PUT`'s response), and the rest of the note lands in the graph."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr
from typer.testing import CliRunner

from knotwork.api import create_app
from knotwork.check.verify import snapshot
from knotwork.cli import app as cli
from knotwork.core import open_core
from knotwork.settings import Settings
from tests.integration.conftest import Neo4jTarget, put

KEY = "k" * 24
ODD = (
    "---\n"  # 1
    "title: First\n"  # 2
    "title: Second\n"  # 3
    "aliases: [Ok, [y], {z: 1}]\n"  # 4
    'tags: [x, "#a b", true, null]\n'  # 5
    "date: 2025-02-30\n"  # 6
    "role: dev\n"  # 7
    "---\n"  # 8
    "Odd works with [[Ann]].\n"  # 9
)
SAID = [
    "Odd.md: frontmatter key 'title' written 2 times, at lines 2 and 3: the last (line 3) is "
    "kept, the others ignored; Obsidian refuses a repeated key",
    "Odd.md: frontmatter 'aliases' at line 4: [\"y\"] is a list, not an alias: ignored",
    "Odd.md: frontmatter 'aliases' at line 4: {\"z\": 1} is a mapping, not an alias: ignored",
    "Odd.md: frontmatter 'tags' at line 5: 1 empty item ignored",
    "Odd.md: frontmatter 'tags' at line 5: true is a yes/no value, not a tag: ignored",
    "Odd.md: frontmatter 'tags' at line 5: \"#a b\" holds a space or a comma, which no tag may: "
    "read as the tags a, b",
    "Odd.md:6: frontmatter value '2025-02-30' of 'date' is no real date: no date fact, and it "
    "does not date the note",
]


def _facts(settings: Settings, vault: str = "default") -> list[str]:
    async def read() -> list[str]:
        async with open_core(settings) as core:
            return (await snapshot(core.store, vault))["facts"]

    return asyncio.run(read())


def _landed(facts: list[str]) -> None:
    """The note's other facts are all there; the impossible date and the ignored values not."""
    joined = "\n".join(facts)
    for kept in ("|HAS_ROLE|", "|WORKS_WITH|", "|HAS_ALIAS|", "#x|", "#a|", "#b|"):
        assert kept in joined, (kept, facts)
    for gone in ("HAS_DATE", "#True", "#a b", "2025-02-30"):
        assert gone not in joined, (gone, facts)


def test_ingest_says_each_odd_value_and_writes_the_rest(
    env: None, tmp_path: Path, settings: Settings
) -> None:
    vault = tmp_path / "v"
    put(vault, "Odd.md", ODD)
    put(vault, "Ann.md", "# Ann\n")
    result = CliRunner().invoke(cli, ["ingest", str(vault), "--no-extract"])
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())  # a long warning may wrap
    for warning in SAID:
        assert f"warning: {warning}" in said, (warning, result.output)
    _landed(_facts(settings))


@pytest.fixture
def client(settings: Settings, vault: Path, empty_db: Neo4jTarget) -> Iterator[TestClient]:
    app = create_app(
        settings.model_copy(
            update={"vault_path": vault, "extract": False, "api_key": SecretStr(KEY)}
        )
    )
    with TestClient(app, headers={"X-API-Key": KEY, "Content-Type": "text/markdown"}) as test:
        yield test


def test_a_put_answers_each_odd_value_in_its_warnings(
    client: TestClient, settings: Settings
) -> None:
    put = client.put("/notes/Odd.md", content=ODD)
    assert put.status_code == 200, put.text
    assert put.json()["warnings"] == SAID, put.json()
    shown = client.get("/notes/Odd.md").json()["note"]
    assert shown["title"] == "Second" and shown["frontmatter_error"] is None, shown
    assert (shown["aliases"], shown["tags"], shown["dates"]) == (["Ok"], ["x", "a", "b"], [])
    _landed(_facts(settings))
