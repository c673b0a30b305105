"""`knotwork ingest` on real vaults: the Italian sapienza vault, and bad input that must not
stop or corrupt the rest."""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from knotwork.cli import app as cli
from knotwork.cli import lease_taken
from knotwork.core import Core, open_core
from knotwork.graph.queries.writes import CHUNKS_PENDING
from knotwork.ingest import owed as owing
from knotwork.ingest import retry
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from knotwork.llm.vectors import PROBE_TEXT
from knotwork.settings import get_settings
from tests.conftest import REPO
from tests.fakes.ollama import FakeOllama
from tests.integration.conftest import hold_vault

EVAL = Path(os.environ.get("KNOTWORK_EVAL_DIR", REPO.parent / "shared" / "eval"))
SAPIENZA = EVAL / "vault-it-sapienza"


@pytest.mark.skipif(not SAPIENZA.is_dir(), reason=f"{SAPIENZA} not present")
def test_ingest_the_italian_vault_and_report_unresolved_links(env: None) -> None:
    result = CliRunner().invoke(cli, ["ingest", str(SAPIENZA), "--no-extract"])
    assert result.exit_code == 0, result.output
    assert "notes 188: written 188" in result.output  # the .obsidian folder is not read
    assert "facts in the graph by extractor:" in result.output and "wikilink" in result.output
    unresolved = [line for line in result.output.splitlines() if line.startswith("  [[")]
    assert unresolved, "the vault's links to missing notes are reported"
    header = next(
        line for line in result.output.splitlines() if line.startswith("unresolved links:")
    )
    assert int(header.split(":")[1]) == len(unresolved) or len(unresolved) == 50
    # The first ingest calibrates the relevance gate on the vault's (Italian) probes, once.
    assert "relevance floor" in result.output and "probe questions (it)" in result.output
    again = CliRunner().invoke(cli, ["ingest", str(SAPIENZA), "--no-extract"])
    assert "written 0, unchanged 188" in again.output
    assert "relevance floor" not in again.output


def test_a_vault_emptied_and_filled_again_is_calibrated_again(env: None, tmp_path: Path) -> None:
    """Emptied (the README's `.keep`) and filled again, a vault holds other notes, here in
    another language: the sync that writes into it is a first sync, so the floor the old notes
    set goes and the ingest calibrates on the new ones."""
    vault = tmp_path / "v"
    vault.mkdir()
    english = "The team deploys the service every week and reviews the incidents on Friday."
    italian = "La squadra prepara la pasta con il pomodoro e racconta la storia della città."
    for i in range(6):
        (vault / f"note{i}.md").write_text(f"# Note {i}\n\n{english} Number {i}.\n")
    first = CliRunner().invoke(cli, ["ingest", str(vault), "--no-extract"])
    assert "probe questions (en)" in first.output, first.output
    for note in vault.glob("*.md"):
        note.unlink()
    (vault / ".keep").write_text("")
    emptied = CliRunner().invoke(cli, ["ingest", str(vault), "--no-extract"])
    assert "deleted 6" in emptied.output and "relevance floor" not in emptied.output
    for i in range(6):
        (vault / f"nota{i}.md").write_text(f"# Nota {i}\n\n{italian} Numero {i}.\n")
    refilled = CliRunner().invoke(cli, ["ingest", str(vault), "--no-extract"])
    assert refilled.exit_code == 0, refilled.output
    assert "probe questions (it)" in refilled.output, refilled.output
    again = CliRunner().invoke(cli, ["ingest", str(vault), "--no-extract"])
    assert "relevance floor" not in again.output  # calibrated: once


def test_bad_files_are_reported_and_the_rest_lands(env: None, tmp_path: Path) -> None:
    vault = tmp_path / "v"
    vault.mkdir()
    (vault / "good.md").write_text("Good works with [[bad yaml]].\n")
    (vault / "bad yaml.md").write_text("---\nkey: [unclosed\n---\nBody still here.\n")
    (vault / "binary.md").write_bytes(b"\x00\x01\x02PNG")
    (vault / "latin1.md").write_bytes("caf\xe9 au lait".encode("latin-1"))
    (vault / "huge.md").write_text("x" * 3_000_000)
    (vault / "odd name ünïcode #1 [x].md").write_text("# odd\n")
    result = CliRunner().invoke(cli, ["ingest", str(vault), "--no-extract"])
    assert result.exit_code == 1, "errors make the exit code non-zero"
    out = result.output
    assert "notes 6: written 4" in out
    assert "binary.md: looks binary" in out and "huge.md: 3000000 bytes" in out
    assert "latin1.md: not valid UTF-8" in out
    assert "bad yaml.md: frontmatter ignored" in out
    assert "unresolved links" not in out, "[[bad yaml]] resolves to the note with bad YAML"


def test_symlinks_are_skipped_and_case_variants_named(env: None, tmp_path: Path) -> None:
    vault = tmp_path / "v"
    (vault / "People").mkdir(parents=True)
    (vault / "Bob.md").write_text("Bob works with [[Alice]].\n")
    (vault / "People/alice.md").write_text("# alice\n")
    (vault / "People/Alice.md").write_text("# Alice\n")
    os.symlink("Bob.md", vault / "boblink.md")
    os.symlink("People", vault / "Linked")
    result = CliRunner().invoke(cli, ["ingest", str(vault), "--no-extract"])
    assert result.exit_code == 0, result.output
    out = " ".join(result.output.split())  # warnings may wrap
    assert "notes 3: written 3" in out
    assert "boblink.md: a symbolic link; not ingested" in out
    assert "Linked: a symbolic link to a folder" in out
    assert "People/Alice.md and People/alice.md differ only in letter case" in out
    assert "resolves to People/Alice.md" in out


def test_the_summary_counts_the_graph_and_names_the_work_left(
    env: None, tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    vault = tmp_path / "v"
    vault.mkdir()
    (vault / "Journal.md").write_text("# Journal\n\nLunch with Marco Rossi.\n")
    assert CliRunner().invoke(cli, ["ingest", str(vault), "--no-extract"]).exit_code == 0
    (vault / "Marco Rossi.md").write_text("# Marco Rossi\n\nAn engineer.\n")
    fake_ollama.down = True  # the new note's chunk waits for its embedding
    result = CliRunner().invoke(cli, ["ingest", str(vault), "--no-extract"])
    assert result.exit_code == 0, result.output
    # The journal was not written again: its mention comes from the reverse pass, and counts.
    assert "written 1, unchanged 1" in result.output
    assert "facts in the graph by extractor: mention 1" in result.output
    assert "pending: 1 chunk waits for its embedding" in result.output
    assert "`knotwork retry` finishes them" in result.output


def test_the_summary_counts_the_notes_it_could_not_read(env: None, tmp_path: Path) -> None:
    """The line "notes 3: written 1, unchanged 0, …" left two notes unaccounted for."""
    vault = tmp_path / "v"
    vault.mkdir()
    (vault / "Fine.md").write_text("# Fine\n\nText.\n")
    (vault / "Binary.md").write_bytes(b"\x00\x01\x02" * 100)
    (vault / "Utf16.md").write_text("# Wide\n", encoding="utf-16")
    result = CliRunner().invoke(cli, ["ingest", str(vault), "--no-extract"])
    assert (
        "notes 3: written 1, unchanged 0, moved 0, deleted 0, not ingested 2 (errors below)"
    ) in result.output, result.output
    assert result.output.count("error: ") >= 2, result.output


def _garbage_for_notes(body: dict[str, Any]) -> str:
    """Garbage for a note's text; the model's own probe answered (a model answering garbage
    to every request blames no chunk: test_extraction_grounding.py)."""
    probe = PROBE_TEXT in json.dumps(body, ensure_ascii=False)
    return '{"entities": [], "triples": []}' if probe else "this is not json {"


def test_extraction_failed_for_good_is_named_and_retried_on_request(
    env: None, ann_vault: Path, fake_ollama: FakeOllama
) -> None:
    """A chunk whose extraction failed for good (garbage answered twice) is counted in the
    summary; `retry` leaves it, `retry --errors` tries it again with the model now sane."""
    fake_ollama.chat_script = _garbage_for_notes
    result = CliRunner().invoke(cli, ["ingest", str(ann_vault)])
    assert result.exit_code == 0, result.output
    assert "model extraction failed for good on 1 chunk (" in result.output
    assert "`knotwork retry --errors`" in result.output
    fake_ollama.chat_script = lambda body: json.dumps(
        {
            "entities": [{"name": "Ann", "type": "person"}, {"name": "Ben", "type": "person"}],
            "triples": [{"subject": "Ann", "predicate": "works with", "object": "Ben"}],
        }
    )
    plain = CliRunner().invoke(cli, ["retry"])
    assert plain.exit_code == 0 and "extracted 0" in plain.output, plain.output
    again = CliRunner().invoke(cli, ["retry", "--errors"])
    assert again.exit_code == 0, again.output
    assert "1 chunk whose extraction had failed is pending again" in again.output
    assert "extracted 1" in again.output
    summary = CliRunner().invoke(cli, ["ingest", str(ann_vault)])
    assert "failed for good" not in summary.output and "llm 1" in summary.output, summary.output
    # While a watcher holds the vault, --errors puts them back for the watcher's own retry.
    fake_ollama.chat_script = _garbage_for_notes
    (ann_vault / "Ann.md").write_text("# Ann\n\nAnn works with Cy.\n")
    assert "failed for good on 1" in CliRunner().invoke(cli, ["ingest", str(ann_vault)]).output
    lease = asyncio.run(hold_vault({"mode": "inotify", "watches": True}))
    held = CliRunner().invoke(cli, ["retry", "--errors"])
    assert held.exit_code == 0, held.output
    assert "1 chunk whose extraction had failed is pending again" in held.output
    assert "a watcher holds the vault" in held.output and lease.holder in held.output
    states = asyncio.run(_extraction_states())
    assert states == ["pending"], states


def test_a_writer_waits_for_the_apis_extraction_and_is_told_when_it_gives_up(
    env: None, ann_vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The API server's background extraction holds the lease a few chunks at a time: a CLI
    writer waits for it (saying so), for a bounded time, rather than being refused at once or
    told to stop a writer that gives the lease back in a moment."""
    monkeypatch.setattr(lease_taken, "EXTRACTION_WAIT_S", 1.0)
    # the API server's background extraction: serving/writers.py MODEL_MODE
    lease = asyncio.run(hold_vault({"mode": "rest-extract", "watches": False}))
    for command in (["ingest", str(ann_vault), "--no-extract"], ["retry"], ["reembed"]):
        refused = CliRunner().invoke(cli, command)
        assert refused.exit_code == 1, (command, refused.output)
        said = " ".join(refused.output.split())
        # the lease names no server: an MCP server with writes holds it alike
        servers = "a Knotwork server's extraction pass (the REST API's or an MCP server's)"
        assert f"waiting for {servers} to give vault" in said, said
        assert lease.holder in said and "a Knotwork server's background extraction" in said
        assert "did not give it back within 1 s" in said, said
        assert "stop that server first" in said and "after it died" not in said, said
        assert "the API server" not in said, said


def test_retry_says_what_stays_pending_and_exits_1_while_the_model_is_down(
    env: None, ann_vault: Path, fake_ollama: FakeOllama
) -> None:
    fake_ollama.down = True
    assert CliRunner().invoke(cli, ["ingest", str(ann_vault), "--no-extract"]).exit_code == 0
    down = CliRunner().invoke(cli, ["retry"])
    assert down.exit_code == 1, down.output
    assert "embedded 0 chunks, extracted 0" in down.output
    assert "1 chunk still pending: the model did not answer" in down.output
    fake_ollama.down = False
    up = CliRunner().invoke(cli, ["retry"])
    assert up.exit_code == 0, up.output
    assert "embedded 1 chunk, extracted 0" in up.output and "still pending" not in up.output


def test_retry_goes_on_pass_after_pass_until_nothing_is_pending(
    env: None, tmp_path: Path, fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pass reads a bounded number of chunks; the command does not stop after the first."""
    from knotwork.ingest import retry

    vault = tmp_path / "v"
    vault.mkdir()
    for name in ("Ann", "Ben", "Cy", "Dee", "Eve"):
        (vault / f"{name}.md").write_text(f"# {name}\n\n{name} works here.\n")
    fake_ollama.down = True
    assert CliRunner().invoke(cli, ["ingest", str(vault), "--no-extract"]).exit_code == 0
    fake_ollama.down = False
    monkeypatch.setattr(retry, "RETRY_PASS", 2)
    result = CliRunner().invoke(cli, ["retry"])
    assert result.exit_code == 0, result.output
    assert "embedded 5 chunks, extracted 0" in result.output, result.output
    assert asyncio.run(_extraction_states()) == []


def test_retry_embeds_every_chunk_while_the_chat_model_is_missing(
    env: None, tmp_path: Path, fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Unembedded chunks come first in every pass: chunks that wait for a chat model that is
    not there never keep a retry from embedding the others, which search needs."""
    from knotwork.ingest import retry

    vault = tmp_path / "v"
    vault.mkdir()
    for name in ("Ann", "Ben", "Cy", "Dee", "Eve"):
        (vault / f"{name}.md").write_text(f"# {name}\n\n{name} works here.\n")
    fake_ollama.down = True
    CliRunner().invoke(cli, ["ingest", str(vault)])
    fake_ollama.down = False
    del fake_ollama.models["llama3.1:8b"]
    monkeypatch.setattr(retry, "RETRY_PASS", 2)
    result = CliRunner().invoke(cli, ["retry"])
    assert result.exit_code == 1, result.output
    assert "embedded 5 chunks, extracted 0" in result.output, result.output
    assert "5 chunks still pending" in result.output, result.output


async def test_retry_reports_its_progress_per_chunk(
    core: Core, vault: Path, fake_ollama: FakeOllama
) -> None:
    """Each embedded slice and each extracted chunk moves the bar: an hour of extraction is
    not an hour of silence."""
    fake_ollama.chat_script = lambda body: json.dumps({"entities": [], "triples": []})
    for name in ("Ann", "Ben"):
        (vault / f"{name}.md").write_text(f"# {name}\n\n{name} works here.\n")
    fake_ollama.down = True
    await sync_vault(Ingestor(core, root=vault, vault="t", extract_enabled=True))
    fake_ollama.down = False
    calls: list[tuple[int, int, str]] = []
    ingestor = Ingestor(core, root=vault, vault="t", extract_enabled=True)
    # Two chunks, each owing its embedding and its extraction: four steps, as passes count.
    owed = await owing.owed(ingestor.models)
    assert (owed.chunks, owed.steps, owed.embeddings, owed.extractions) == (2, 4, 2, 2)
    done = await retry.retry_all(ingestor.models, lambda *call: calls.append(call))
    assert (done.embedded, done.extracted, done.pending, done.model_down) == (2, 2, 0, False)
    assert calls[0] == (2, 4, "embedded 2/2 chunks"), calls
    assert calls[1:] == [
        (3, 4, "extracting facts: chunk 1/2"),
        (4, 4, "extracting facts: chunk 2/2"),
    ]


async def test_retry_progress_counts_one_chunk_in_agreement(
    core: Core, vault: Path, fake_ollama: FakeOllama
) -> None:
    (vault / "Ann.md").write_text("# Ann\n\nAnn works here.\n")
    fake_ollama.down = True
    await sync_vault(Ingestor(core, root=vault, vault="t", extract_enabled=False))
    fake_ollama.down = False
    calls: list[tuple[int, int, str]] = []
    ingestor = Ingestor(core, root=vault, vault="t", extract_enabled=False)
    await retry.retry_all(ingestor.models, lambda *call: calls.append(call))
    assert calls == [(1, 1, "embedded 1/1 chunk")], calls


async def _extraction_states() -> list[str]:
    async with open_core(get_settings()) as core:
        rows = await core.store.read(
            CHUNKS_PENDING,
            vault=core.settings.vault_name,
            extract=True,
            limit=10,
            asked_before=int(time.time() * 1000),
        )
        return [r["extraction_state"] for r in rows]


def test_verify_says_how_to_mend_and_which_folder_the_vault_came_from(
    env: None, tmp_path: Path
) -> None:
    vault, moved, other = tmp_path / "v", tmp_path / "moved", tmp_path / "other"
    for folder in (vault, moved, other):
        folder.mkdir()
    (vault / "Ann.md").write_text("# Ann\n\nAnn knows [[Ben]].\n")
    (moved / "Ann.md").write_text("# Ann\n\nAnn knows [[Ben]].\n")
    (other / "Bob.md").write_text("# Bob\n")
    assert CliRunner().invoke(cli, ["ingest", str(vault), "--no-extract"]).exit_code == 0
    (vault / "Ann.md").write_text("# Ann\n\nAnn knows [[Cy]] now.\n")  # not ingested
    result = CliRunner().invoke(cli, ["verify", str(vault)])
    out = " ".join(result.output.split())
    assert result.exit_code == 1, result.output
    assert "1 note differs (1 changed)" in out, out
    assert f"`knotwork ingest {vault}` brings the graph in step" in out, out
    assert "last synced from" not in out
    # The vault's folder moved: a sync takes it for the vault's, so ingest mends it.
    (moved / "Bob.md").write_text("# Bob\n")  # a difference
    result = CliRunner().invoke(cli, ["verify", str(moved)])
    said = " ".join(result.output.split())
    assert result.exit_code == 1, said
    assert f"this vault was last synced from {vault.resolve()}, not {moved.resolve()}" in said
    assert "not in the graph: Bob.md" in said and f"`knotwork ingest {moved}` brings" in said
    # Another vault's folder: every note would differ, so nothing is compared (see
    # test_verify.py for the early stop).
    result = CliRunner().invoke(cli, ["verify", str(other)])
    said = " ".join(result.output.split())
    assert result.exit_code == 1, said
    assert f"`knotwork verify {vault.resolve()}`" in said and "`knotwork ingest` brings" not in said


def test_verify_names_a_file_it_cannot_read_rather_than_send_the_user_to_ingest(
    env: None, tmp_path: Path
) -> None:
    """Ingest keeps an unreadable file's last version on purpose: verify told the user that
    `knotwork ingest` mends the difference, and ingest left it as it was. It compares as the
    sync does, the note kept: no difference, and the file named."""
    vault = tmp_path / "v"
    vault.mkdir()
    (vault / "Ann.md").write_text("# Ann\n\nAnn knows [[Ben]].\n")
    (vault / "Ben.md").write_text("# Ben\n\nBen.\n")
    assert CliRunner().invoke(cli, ["ingest", str(vault), "--no-extract"]).exit_code == 0
    (vault / "Ann.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(200))
    result = CliRunner().invoke(cli, ["verify", str(vault)])
    out = " ".join(result.output.split())
    assert result.exit_code == 0, result.output
    assert "cannot ingest Ann.md: looks binary" in out, out
    assert "graph and vault agree as an ingest leaves them" in out, out
    assert "keeps such a note's last readable version" in out
    assert "`knotwork ingest" not in out  # nothing it would mend


def test_unresolved_links_are_listed_as_written(env: None, tmp_path: Path) -> None:
    """The summary listed `[[acme corp]]`, the key a link is matched by, where `knotwork note`
    shows the link as its note wrote it."""
    vault = tmp_path / "v"
    vault.mkdir()
    (vault / "Ann.md").write_text("Ann works at [[Acme Corp]] and reads [[Nonexistent Note]].\n")
    (vault / "Ben.md").write_text("Ben visits [[acme corp]].\n")
    result = CliRunner().invoke(cli, ["ingest", str(vault), "--no-extract"])
    assert result.exit_code == 0, result.output
    assert "unresolved links: 2\n" in result.output, result.output
    assert "  [[Acme Corp]] from Ann.md, Ben.md\n" in result.output, result.output
    assert "  [[Nonexistent Note]] from Ann.md\n" in result.output, result.output
