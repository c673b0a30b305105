"""The MCP tools beyond ask and retrieve, on the real Neo4j with the fake Ollama: the reads
(search_notes, note_history, explain), the write tools that only ``--allow-writes`` serves and
that go the way of REST's writes, and a server that could not start answering every tool call
with the reason."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS

from knotwork.core import Core
from knotwork.settings import Settings
from tests.integration.conftest import put
from tests.integration.test_mcp import (
    TOOLS,
    call,
    command_env,
    connected,
    refused,
    synced_vault,
    text_of,
)

WRITES = {"upsert_note", "delete_note", "sync"}
BOB = "# Bob\n\nBob builds the graph database with [[People/Alice|Alice]].\n"
KITE = "# Kite\n\nThe red kite circles over the old quarry every spring.\n"


@pytest.fixture
async def served(settings: Settings, vault: Path, core: Core) -> Settings:
    put(vault, "People/Bob.md", BOB)
    return await synced_vault(settings, vault, core)


async def test_search_notes_by_name_tag_and_folder(served: Settings, vault: Path) -> None:
    async with connected(served) as client:
        by_name = await call(client, "search_notes", text="ALI")
        under = await call(client, "search_notes", folder="People")
        everything = await call(client, "search_notes", limit=2)
        whole = await call(client, "search_notes", folder="./", limit=2)  # as /retrieve takes it
        climbs = await refused(client, "search_notes", folder="../x")
        no_tag = await refused(client, "search_notes", tag="#")
        too_many = await refused(client, "search_notes", limit=0)
        not_a_number = await refused(client, "retrieve", question="who?", top_k="many")
    [alice] = by_name["notes"]
    assert alice["path"] == "People/Alice.md" and alice["title"] == "Alice"
    assert alice["chunks"] >= 1 and alice["tags"] == []
    assert [n["path"] for n in under["notes"]] == ["People/Alice.md", "People/Bob.md"]
    assert [n["path"] for n in everything["notes"]] == ["Garden.md", "People/Alice.md"]
    assert whole == everything
    assert "climbs out of the vault" in climbs
    assert "a tag is empty" in no_tag, no_tag  # as retrieve's filters refuse it
    assert no_tag.startswith("FilterError: "), no_tag  # a tag is no note path
    # Bounds and types the SDK checks read as the tools' own refusals, not pydantic's dump.
    assert too_many.startswith("invalid arguments: limit: "), too_many
    assert not_a_number.startswith("invalid arguments: top_k: "), not_a_number
    for message in (too_many, not_a_number):
        assert "Arguments" not in message and "errors.pydantic.dev" not in message


async def test_note_history_lists_the_revisions_newest_first(
    served: Settings, vault: Path, core: Core
) -> None:
    put(vault, "Garden.md", "# Garden\n\nThe tomatoes ripen in September this year.\n")
    async with connected(served) as client:
        await call(client, "stats")  # the server is up before the second revision
        from knotwork.ingest.ingestor import Ingestor
        from knotwork.ingest.sync import sync_vault

        await sync_vault(Ingestor(core, root=vault, extract_enabled=False))
        body = await call(client, "note_history", path="./Garden.md")
        missing = await refused(client, "note_history", path="Nowhere.md")
        typo = await refused(client, "note_history", path="garden")
        (vault / "Garden.md").rename(vault / "Yard.md")
        await sync_vault(Ingestor(core, root=vault, extract_enabled=False))
        moved = await call(client, "note_history", path="Garden.md")
    # The old path's history ends with the move, as `knotwork history` says it.
    assert [(r["kind"], r["renamed_to"]) for r in moved["revisions"]][:1] == [
        ("renamed", "Yard.md")
    ]
    assert body["path"] == "Garden.md"
    revisions = body["revisions"]
    assert len(revisions) == 2
    assert revisions[0]["at"] >= revisions[1]["at"]
    assert revisions[0]["old_hash"] == revisions[1]["new_hash"] is not None
    assert "no revision of 'Nowhere.md' in the graph" in missing and "did you mean" not in missing
    # A path typed without its .md or its letter case: the note to send named, as get_note does.
    assert typo.endswith(
        "no revision of 'garden' in the graph; did you mean 'Garden.md'? "
        "(paths are exact, with .md)"
    ), typo


async def test_explain_names_retrievers_graph_paths_and_facts_per_hit(served: Settings) -> None:
    question = "Who builds the graph database with Alice?"
    async with connected(served) as client:
        explained = await call(client, "explain", question=question)
        retrieved = await call(client, "retrieve", question=question)
    hits = explained["hits"]
    assert [h["path"] for h in hits] == [c["path"] for c in retrieved["citations"]]
    bob = next(h for h in hits if h["path"] == "People/Bob.md")
    assert bob["citation"] == f"People/Bob.md#Bob:{bob['line_start']}-{bob['line_end']}"
    assert bob["retrievers"] and bob["score"] > 0
    # The chunk's own facts: Bob's link to Alice, with its provenance.
    assert any(f["object"] and f["source"] == "People/Bob.md" for f in bob["facts"]), bob
    for hit in hits:
        assert all(f["source"] == hit["path"] for f in hit["facts"])
        assert all(p["chunk_id"] == hit["chunk_id"] for p in hit["graph_paths"])
    walked = [h for h in hits if h["graph_paths"]]
    assert walked, hits  # the graph reached a chunk through Bob's link
    assert all("graph" in h["retrievers"] or "synonym" in h["retrievers"] for h in walked)
    # Every graph path retrieval returned for a hit's chunk is in that hit's explanation.
    chunks = {h["chunk_id"] for h in hits}
    explained_paths = [p for h in hits for p in h["graph_paths"]]
    reaching = [p for p in retrieved["paths"] if p["chunk_id"] in chunks]
    assert sorted(map(str, explained_paths)) == sorted(map(str, reaching))


async def test_write_tools_only_with_allow_writes(served: Settings) -> None:
    async with connected(served) as client:
        listed = {t.name for t in (await client.list_tools()).tools}
        with pytest.raises(MCPError) as unknown:  # a protocol error, as MCP lists it
            await client.call_tool("upsert_note", {"path": "X.md", "content": "# X\n"})
    assert listed == TOOLS
    assert unknown.value.code == INVALID_PARAMS
    assert unknown.value.message == "Unknown tool: upsert_note"
    async with connected(served, allow_writes=True) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) == TOOLS | WRITES
    for name in WRITES:
        hints = tools[name].annotations
        assert hints is not None and hints.read_only_hint is False, name
    assert tools["delete_note"].annotations.destructive_hint is True  # type: ignore[union-attr]
    assert tools["upsert_note"].annotations.idempotent_hint is True  # type: ignore[union-attr]
    assert tools["sync"].annotations.idempotent_hint is True  # type: ignore[union-attr]


async def test_an_upserted_note_is_retrieved_at_once_and_a_deleted_one_is_gone(
    served: Settings, vault: Path
) -> None:
    question = "What circles over the old quarry in spring?"
    async with connected(served, allow_writes=True) as client:
        written = await call(client, "upsert_note", path="Birds/Kite.md", content=KITE)
        found = await call(client, "retrieve", question=question)
        deleted = await call(client, "delete_note", path="Birds/Kite.md")
        after = await call(client, "retrieve", question=question)
        again = await refused(client, "delete_note", path="Birds/Kite.md")
    assert written["status"] == "done" and written["path"] == "Birds/Kite.md"
    assert written["outcome"]["status"] == "written" and written["outcome"]["chunks"] == 1
    assert found["citations"][0]["path"] == "Birds/Kite.md"
    assert deleted["status"] == "done" and not (vault / "Birds/Kite.md").exists()
    assert "Birds/Kite.md" not in {c["path"] for c in after["citations"]}
    assert "no note 'Birds/Kite.md' in the vault" in again


async def test_writes_refuse_links_and_paths_outside_the_vault(
    served: Settings, vault: Path
) -> None:
    os.symlink("Garden.md", vault / "link.md")
    async with connected(served, allow_writes=True) as client:
        link = await refused(client, "delete_note", path="link.md")
        through = await refused(client, "upsert_note", path="link.md", content="# Hijacked\n")
        climbs = await refused(client, "delete_note", path="../Garden.md")
        absolute = await refused(client, "upsert_note", path="/tmp/x.md", content="# X\n")
        c1 = await refused(client, "upsert_note", path="Gard\x85en.md", content="# X\n")
        separator = await refused(client, "upsert_note", path="a\u2028b.md", content="# X\n")
        stats = await call(client, "stats")
    assert "'link.md' is a symbolic link" in link and "symbolic link" in through
    assert "climbs out of the vault" in climbs
    assert "absolute" in absolute
    assert "control characters" in c1 and "control characters" in separator
    assert not [n for n in os.listdir(vault) if "\x85" in n or "\u2028" in n]
    assert (vault / "Garden.md").read_text().startswith("# Garden")
    assert stats["notes"] == 4


async def test_sync_tool_follows_the_folder(served: Settings, vault: Path) -> None:
    put(vault, "Birds/Kite.md", KITE)
    (vault / "Recipes.md").unlink()
    async with connected(served, allow_writes=True) as client:
        report = await call(client, "sync")
        stats = await call(client, "stats")
    assert (report["notes"], report["written"], report["deleted"]) == (4, 1, 1)
    assert report["errors"] == [] and stats["notes"] == 4


async def test_the_command_serves_explain_and_writes_over_stdio(
    served: Settings, tmp_path: Path, vault: Path
) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "knotwork.cli", "mcp", "--allow-writes"],
        env=command_env(served, KNOTWORK_VAULT_PATH=str(vault)),
        cwd=tmp_path,
    )
    async with Client(params, mode="legacy") as client:
        assert {t.name for t in (await client.list_tools()).tools} == TOOLS | WRITES
        written = await call(client, "upsert_note", path="Birds/Kite.md", content=KITE)
        body = await call(client, "explain", question="What circles over the old quarry?")
    assert written["status"] == "done"
    assert body["hits"][0]["citation"].startswith("Birds/Kite.md#Kite:1-")


async def test_a_server_that_cannot_start_says_why_in_every_tool_call(
    served: Settings, tmp_path: Path
) -> None:
    """The graph holds nomic-embed-text (768); the env file names another model."""
    env_file = tmp_path / "agent.env"
    env_file.write_text("KNOTWORK_EMBED_MODEL=mxbai-embed-large\nKNOTWORK_EMBED_DIMENSION=1024\n")
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "knotwork.cli", "mcp", "--env-file", str(env_file)],
        env=command_env(served),
        cwd=tmp_path,
    )
    async with Client(params, mode="legacy") as client:
        assert client.server_info is not None and client.server_info.name == "knotwork"
        assert {t.name for t in (await client.list_tools()).tools} == TOOLS
        results = [
            await client.call_tool("stats", {}),
            await client.call_tool("retrieve", {"question": "Who is Alice?"}),
        ]
    for result in results:
        assert result.is_error
        reason = text_of(result)
        assert "could not start" in reason and "ManifestMismatchError" in reason
        assert "nomic-embed-text" in reason and "mxbai-embed-large" in reason
        assert "knotwork reembed" in reason


async def test_neo4j_unreachable_at_start_is_every_tool_calls_error(settings: Settings) -> None:
    """Nothing listens on the discard port: the handshake and the list still work."""
    down = settings.model_copy(update={"neo4j_uri": "bolt://127.0.0.1:9"})
    async with connected(down, allow_writes=True) as client:
        assert {t.name for t in (await client.list_tools()).tools} == TOOLS | WRITES
        note = await refused(client, "get_note", path="Garden.md")
        write = await refused(client, "upsert_note", path="X.md", content="# X\n")
    for reason in (note, write):
        assert "could not start: GraphUnavailableError" in reason
        assert "127.0.0.1:9" in reason


async def test_settings_that_cannot_be_read_are_every_tool_calls_error(
    settings: Settings, tmp_path: Path
) -> None:
    env_file = tmp_path / "agent.env"
    env_file.write_text("KNOTWORK_EMBED_DIMENSION=many\n")
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "knotwork.cli", "mcp", "--env-file", str(env_file)],
        env=command_env(settings),
        cwd=tmp_path,
    )
    async with Client(params, mode="legacy") as client:
        assert {t.name for t in (await client.list_tools()).tools} == TOOLS
        reason = text_of(await client.call_tool("stats", {}))
    assert "could not start: ConfigError: invalid settings" in reason
    assert "KNOTWORK_EMBED_DIMENSION" in reason
