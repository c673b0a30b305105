"""verify reads the graph's fields by name, never by position in a canonical line, leaves no
scratch vault behind, stopped or killed, says what differs note by note in words, and stops
before its parse on another vault's folder."""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from knotwork.check.verify import snapshot, verify_vault, verify_vault_report
from knotwork.cli import app as cli
from knotwork.core import Core
from knotwork.graph.lease import Lease
from knotwork.graph.reembed_guard import GUARD
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from knotwork.settings import Settings
from tests.fakes.ollama import FakeOllama
from tests.integration.conftest import ad_hoc, put
from tests.startup import child_env


def extraction(body: dict[str, Any]) -> str:
    """The model finds one triple in every chunk."""
    return json.dumps(
        {
            "entities": [{"name": "Ann"}, {"name": "Ben"}],
            "triples": [{"subject": "Ann", "predicate": "works with", "object": "Ben"}],
        }
    )


async def test_a_bar_in_a_note_path_or_heading_is_no_stale_fact(
    core: Core, vault: Path, fake_ollama: FakeOllama
) -> None:
    """A `|` in a path shifted the fields verify cut out of a fact's line, so a model fact was
    reported stale; one in a heading shifted a chunk's, so its embedding state counted."""
    fake_ollama.chat_script = extraction
    put(vault, "a|b/Ann.md", "# Ann | notes\n\nAnn works with [[Ben]].\n")
    ingestor = Ingestor(core, root=vault, vault="t", extract_enabled=True)
    report = await sync_vault(ingestor)
    assert report.written == 1 and report.extracted == 1
    facts = (await snapshot(core.store, "t"))["facts"]
    assert any(line.startswith("a|b/Ann.md|") and "|llm|" in line for line in facts)
    assert await verify_vault(ingestor) == []


async def test_verify_reports_the_progress_of_its_fresh_parse(core: Core, vault: Path) -> None:
    """The scratch sync of a large vault takes minutes: the progress callback follows it."""
    for name in ("Ann", "Ben", "Cy"):
        put(vault, f"{name}.md", f"# {name}\n\n{name} knows [[Ann]].\n")
    ingestor = Ingestor(core, root=vault, vault="t", extract_enabled=False)
    await sync_vault(ingestor)
    calls: list[tuple[int, int, str]] = []
    assert await verify_vault(ingestor, lambda *call: calls.append(call)) == []
    assert calls[-1][:2] == (3, 3), calls
    assert {what for _, _, what in calls} >= {
        f"writing notes: {n}.md" for n in ("Ann", "Ben", "Cy")
    }


async def vaults(core: Core) -> set[str]:
    """The vaults anything in the database belongs to (not the re-embedding guard's lease)."""
    query = "MATCH (n) WHERE n.vault IS NOT NULL AND n.vault <> $g RETURN DISTINCT n.vault AS v"
    return {r["v"] for r in await ad_hoc(core, query, {"g": GUARD})}


async def test_verify_drops_the_scratch_vaults_of_killed_verifies_not_of_running_ones(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    """A verify killed outright (SIGKILL) leaves its scratch vault: the next verify drops it,
    once no live verify holds its lease, and never one a verify running now holds."""
    put(vault, "Ann.md", "# Ann\n\nAnn knows [[Ben]].\n")
    await sync_vault(ingestor)
    older, killed, running = "verify-0123456789ab", "verify-00000000dead", "verify-00000000a11e"
    for scratch in (older, killed, running, "verify-notes"):  # the last, a user's own vault
        await sync_vault(Ingestor(core, root=vault, vault=scratch, extract_enabled=False))
    # An older version's scratch vault has no lease; a killed verify's lapsed.
    await Lease(core.store, killed, 30).acquire({"mode": "verify-scratch"})
    await ad_hoc(
        core,
        "MATCH (l:Lease {vault: $v}) SET l.expires_at = datetime() - duration('PT1S')",
        {"v": killed},
        write=True,
    )
    live = Lease(core.store, running, 30)
    await live.acquire({"mode": "verify-scratch"})

    assert await verify_vault(ingestor) == []
    assert await vaults(core) == {"t", running, "verify-notes"}
    query = "MATCH (l:Lease) WHERE l.vault <> $g RETURN l.vault AS v, l.holder AS holder"
    leases = await ad_hoc(core, query, {"g": GUARD})
    assert leases == [{"v": running, "holder": live.holder}]  # the dropped ones' given back


async def test_a_verify_stopped_by_sigterm_drops_its_scratch_vault(
    core: Core, settings: Settings, vault: Path, tmp_path: Path
) -> None:
    """SIGTERM (`timeout`, `docker stop`, systemd) stops verify as Ctrl-C does: its scratch
    vault is dropped before the process ends; before, it stayed in the database for good."""
    for i in range(400):  # enough that the scratch sync is stopped half way
        put(vault, f"n/{i}.md", f"# Note {i}\n\nNote {i} links [[{i + 1}]].\n")
    env = child_env({
        "KNOTWORK_NEO4J_URI": settings.neo4j_uri,
        "KNOTWORK_NEO4J_USER": settings.neo4j_user,
        "KNOTWORK_NEO4J_PASSWORD": settings.password(),
        "KNOTWORK_VAULT_PATH": str(vault),
    })  # fmt: skip
    process = await asyncio.create_subprocess_exec(
        *(sys.executable, "-m", "knotwork.cli", "verify"),
        cwd=tmp_path,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    scratch_notes = "MATCH (n:Note) WHERE n.vault STARTS WITH 'verify-' RETURN count(n) AS c"
    for _ in range(3000):
        if process.returncode is not None or (await ad_hoc(core, scratch_notes))[0]["c"]:
            break
        await asyncio.sleep(0.02)
    assert process.returncode is None, "verify ended before its scratch vault held a note"
    process.send_signal(signal.SIGTERM)
    out, _ = await asyncio.wait_for(process.communicate(), timeout=120)
    assert process.returncode == -signal.SIGTERM, out.decode()[-2000:]
    assert await vaults(core) == set()  # nothing of the scratch vault, its lease included
    # No lease of a vault is left; the database-wide re-embedding guard is no vault's.
    leases = await ad_hoc(core, "MATCH (l:Lease) WHERE l.vault <> $g RETURN l", {"g": GUARD})
    assert leases == []


def test_verify_says_each_note_that_differs_in_words_and_keeps_the_lines_for_json(
    env: None, tmp_path: Path
) -> None:
    """One line appended to a note printed it as both a missing and a stale note, then its
    chunk as missing and stale JSON, then its fact: raw rows in two formats."""
    vault = tmp_path / "v"
    put(vault, "altro/cache.md", "# Cache\n\nThe cache sits before the database.\n")
    put(vault, "bus.md", "# Bus\n\nThe bus carries messages.\n")
    put(vault, "old.md", "# Old\n\nSoon gone.\n")
    assert CliRunner().invoke(cli, ["ingest", str(vault), "--no-extract"]).exit_code == 0
    with (vault / "altro/cache.md").open("a") as note:
        note.write("See also [[bus]].\n")
    (vault / "old.md").unlink()
    put(vault, "new.md", "# New\n\nLinks [[Nobody]].\n")
    result = CliRunner().invoke(cli, ["verify", str(vault)])
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    assert lines[:4] == [
        "changed: altro/cache.md (text; 1 chunk (lines, text); facts: +1 SEE_ALSO → bus.md)",
        "not in the graph: new.md",
        "in the graph but not in the folder: old.md",
        "not in the graph: unresolved link [[Nobody]]",
    ], result.output
    summary = " ".join(" ".join(lines[4:]).split())
    assert (
        "3 notes differ (1 changed, 1 not in the graph, 1 in the graph but not in the "
        "folder); 1 unresolved link (1 not in the graph)."
    ) in summary, summary
    assert "+ is the folder's, not yet in the graph" in summary, summary
    assert "missing" not in result.output and "stale" not in result.output
    # The raw canonical lines stay, behind --json: the note's old line stale, its new missing.
    body = json.loads(CliRunner().invoke(cli, ["verify", str(vault), "--json"]).output)
    assert body["agree"] is False and body["refused"] is None
    assert body["notes"][0] == {
        "path": "altro/cache.md",
        "status": "changed",
        "what": ["text", "1 chunk (lines, text)", "facts: +1 SEE_ALSO → bus.md"],
    }
    notes = body["lines"]["notes"]
    assert [line.split("|")[0] for line in notes["missing"]] == ["altro/cache.md", "new.md"]
    assert [line.split("|")[0] for line in notes["stale"]] == ["altro/cache.md", "old.md"]
    facts = body["lines"]["facts"]["missing"]
    [fact] = [f for f in facts if f.startswith("altro/")]
    assert fact.startswith("altro/cache.md|SEE_ALSO|note:altro/cache.md|note:bus.md|"), fact


def test_verify_of_another_vaults_folder_stops_before_the_parse(env: None, tmp_path: Path) -> None:
    """It parsed the whole folder and printed every note of both as raw rows, then said at the
    bottom that the folder was not the vault's."""
    first, other = tmp_path / "first", tmp_path / "other"
    for name in ("Alpha", "Beta", "Gamma"):
        put(first, f"{name}.md", f"# {name}\n\n{name} works with Ann.\n")
    for i in range(40):
        put(other, f"n{i}.md", f"# N{i}\n\nNothing of the first vault.\n")
    assert CliRunner().invoke(cli, ["ingest", str(first), "--no-extract"]).exit_code == 0
    result = CliRunner().invoke(cli, ["verify", str(other)])
    assert result.exit_code == 1, result.output
    said = " ".join(result.output.split())
    assert said == (
        f"vault 'default' holds 3 notes synced from {first.resolve()}; this folder, "
        f"{other.resolve()}, holds 0 of them (the same path and content), and a sync of it "
        "would overwrite or delete the others, so verify compares nothing: the vault's folder "
        f"is {first.resolve()} (`knotwork verify {first.resolve()}`). For a second vault, set "
        "another KNOTWORK_VAULT_NAME; if this folder now holds vault 'default', run "
        f"`knotwork ingest {other.resolve()} --new-folder` once."
    ), said
    body = json.loads(CliRunner().invoke(cli, ["verify", str(other), "--json"]).output)
    assert body["refused"] == {
        "vault": "default",
        "was": str(first.resolve()),
        "path": str(other.resolve()),
        "notes": 3,
        "held": 0,
    }
    assert body["notes"] == [] and body["lines"] == {}


UNREADABLE = {
    "binary": b"\x00bin",
    "too large": b"# Ben\n\n" + b"Ben. " * 400_001,  # over KNOTWORK_MAX_NOTE_BYTES (2 MB)
}


@pytest.mark.parametrize("how", sorted(UNREADABLE))
async def test_links_to_a_note_kept_unreadable_resolve_in_the_fresh_parse_too(
    core: Core, vault: Path, how: str
) -> None:
    """Once Ben.md could not be read, ingest kept its last version and Ann's link to it, but
    verify's fresh parse lacked the note: the link came out unresolved there, and verify said
    `changed: Ann.md`, `not in the graph: unresolved link [[Ben]]`, sending the user to an
    ingest that changed nothing, forever."""
    put(vault, "Ann.md", "# Ann\n\nAnn knows [[Ben]].\n")
    put(vault, "Ben.md", "# Ben\n\nBen works with Ann on [[Nobody]].\n")
    ingestor = Ingestor(core, root=vault, vault="t", extract_enabled=False)
    await sync_vault(ingestor)
    facts = (await snapshot(core.store, "t"))["facts"]  # Ben's mention of Ann counts in Ann's
    assert any(f.startswith("Ben.md|MENTIONS|note:Ben.md|note:Ann.md|") for f in facts), facts
    (vault / "Ben.md").write_bytes(UNREADABLE[how])
    report = await sync_vault(ingestor)
    assert [e.split(":")[0] for e in report.errors] == ["Ben.md"], report.errors
    assert "the graph keeps its last version" in report.errors[0]
    found = await verify_vault_report(ingestor)
    assert (found.differences, found.notes, found.links) == ([], [], []), found
    assert [e.split(":")[0] for e in found.unreadable] == ["Ben.md"]  # still named
    # A real difference is still said, and only it.
    put(vault, "Ann.md", "# Ann\n\nAnn knows [[Ben]] and [[Cy]].\n")
    found = await verify_vault_report(ingestor)
    assert [str(n) for n in found.notes] == [
        "changed: Ann.md (text; 1 chunk (text); facts: +1 KNOWS → [[cy]])"
    ], found.notes
    assert [str(n) for n in found.links] == ["not in the graph: unresolved link [[Cy]]"]
    await sync_vault(ingestor)
    assert (await verify_vault_report(ingestor)).differences == []


async def test_links_to_a_note_never_readable_stay_unresolved_in_both(
    core: Core, vault: Path
) -> None:
    """A note unreadable from its first sync is never in the graph: a link to it is unresolved
    there, and in verify's fresh parse too."""
    put(vault, "Ann.md", "# Ann\n\nAnn knows [[Ben]].\n")
    (vault / "Ben.md").write_bytes(UNREADABLE["binary"])
    ingestor = Ingestor(core, root=vault, vault="t", extract_enabled=False)
    await sync_vault(ingestor)
    assert "unresolved:ben|Ben" in (await snapshot(core.store, "t"))["nodes"]
    found = await verify_vault_report(ingestor)
    assert (found.differences, found.notes, found.links) == ([], [], []), found


async def test_an_unresolved_link_a_kept_note_spells_otherwise_keeps_the_graphs_name(
    core: Core, vault: Path
) -> None:
    """Ben.md (kept unreadable) links [[Zed]], Cy.md [[zed]]: the graph names the unresolved
    link from both spellings, the fresh parse from Cy's alone, and verify said `changed:
    unresolved link [[zed]] (named 'Zed' in the graph)` however often it was ingested."""
    put(vault, "Ben.md", "# Ben\n\nBen knows [[Zed]].\n")
    put(vault, "Cy.md", "# Cy\n\nsee [[zed]]\n")
    ingestor = Ingestor(core, root=vault, vault="t", extract_enabled=False)
    await sync_vault(ingestor)
    (vault / "Ben.md").write_bytes(UNREADABLE["binary"])
    await sync_vault(ingestor)
    found = await verify_vault_report(ingestor)
    assert (found.differences, found.notes, found.links) == ([], [], []), found
