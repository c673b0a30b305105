"""What is said of the chunks a model left pending: `ingest`'s summary says why they wait as
the sync met it (the embedding model away, or answering vectors that cannot be stored; the chat
model away), never a reason it did not meet; `doctor` and `/health` say who finishes them (the
watcher while it holds the vault, which refuses `knotwork retry`; the server; else `retry`)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from knotwork.cli import app as cli
from knotwork.settings import Settings
from tests.fakes.ollama import ChatRefusal, FakeOllama
from tests.integration.conftest import Neo4jTarget, get_health, hold_vault

EMBED_DOWN = "(the embedding model was not available)"
REJECTED = "(the embedding model answered vectors that could not be stored)"
CHAT_DOWN = "(the chat model was not available)"
WATCHED = {"mode": "inotify", "watches": True}


def _ingest(vault: Path, *extra: str) -> str:
    result = CliRunner().invoke(cli, ["ingest", str(vault), *extra])
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())  # a long line may wrap


def _doctor() -> str:
    return " ".join(CliRunner().invoke(cli, ["doctor"]).output.split())


def _pending_line(out: str) -> str:
    return out[out.index("pending:") :].partition(" warning:")[0]


def test_vectors_that_cannot_be_stored_are_said_as_such_not_as_a_model_away(
    env: None, ann_vault: Path, fake_ollama: FakeOllama
) -> None:
    fake_ollama.embed_script = lambda texts, dim: [[0.0] * dim for _ in texts]
    said = _pending_line(_ingest(ann_vault, "--no-extract"))
    assert said.startswith(f"pending: 1 chunk waits for its embedding {REJECTED}; "), said
    assert "`knotwork retry` finishes them once the model answers" in said, said
    assert "not available" not in said, said
    # Synced again with the model sane and nothing changed: the chunk still waits, and the
    # sync met no trouble, so it gives no reason it does not know.
    fake_ollama.embed_script = None
    again = _pending_line(_ingest(ann_vault, "--no-extract"))
    assert again.startswith("pending: 1 chunk waits for its embedding; `knotwork retry`"), again


def test_an_embedding_model_away_is_said_as_away(
    env: None, ann_vault: Path, fake_ollama: FakeOllama
) -> None:
    fake_ollama.down = True
    said = _pending_line(_ingest(ann_vault, "--no-extract"))
    assert said.startswith(f"pending: 1 chunk waits for its embedding {EMBED_DOWN}; "), said
    assert "could not be stored" not in said, said


def test_a_chat_model_away_during_extraction_is_said_as_the_chat_model(
    env: None, ann_vault: Path, fake_ollama: FakeOllama
) -> None:
    def down(body: dict[str, Any]) -> str:
        raise ChatRefusal(503, "model overloaded")

    fake_ollama.chat_script = down
    said = _pending_line(_ingest(ann_vault))
    assert said.startswith(f"pending: 1 chunk waits for model extraction {CHAT_DOWN}; `knotwork"), (
        said
    )
    assert "embedding" not in said, said


def test_a_chat_model_answering_garbage_is_said_as_garbage_not_as_away(
    env: None, tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    """The warning said the model answers garbage, the pending line that it "was not
    available"; the notes after the first, postponed for the garbage, said so too."""
    vault = tmp_path / "v"
    vault.mkdir()
    for name in ("A", "B", "C"):
        (vault / f"{name}.md").write_text(f"# {name}\n\n{name} works with Ann.\n")
    fake_ollama.chat_script = lambda body: "Sure! The entities are: Alice, Bob. Hope it helps."
    out = _ingest(vault)
    said = _pending_line(out)
    assert said.startswith(
        "pending: 3 chunks wait for model extraction (the chat model answered garbage); "
    ), said
    assert "not available" not in said, said
    assert "extraction postponed: the model answers garbage to every request" in out, out


def test_doctor_sends_waiting_extraction_to_retry_unless_a_watcher_holds_the_vault(
    env: None, fake_ollama: FakeOllama
) -> None:
    """`knotwork retry` is refused while a watcher holds the vault, which extracts the chunks
    itself: doctor used to send to it all the same."""
    assert CliRunner().invoke(cli, ["init"]).exit_code == 0
    del fake_ollama.models["llama3.1:8b"]
    alone = _doctor()
    assert (
        "FAIL extraction: model llama3.1:8b is not pulled; chunks wait for extraction; "
        "`knotwork retry` extracts them once the model answers"
    ) in alone, alone
    asyncio.run(hold_vault(WATCHED))
    watched = _doctor()
    assert (
        "chunks wait for extraction; the watcher extracts them once the model answers"
    ) in watched, watched
    assert "knotwork retry" not in watched, watched


def test_health_says_the_server_extracts_what_waits_unless_a_watcher_holds_the_vault(
    settings: Settings, empty_db: Neo4jTarget, fake_ollama: FakeOllama, vault: Path
) -> None:
    health = get_health(settings, vault, fake_ollama, missing="llama3.1:8b")
    served = health.json()["capabilities"]["extraction"]
    assert not served["ready"]
    assert served["reason"].endswith(
        "chunks wait for extraction; the server extracts them once the model answers"
    ), served
    asyncio.run(hold_vault(WATCHED, settings))
    watched = get_health(settings, vault, fake_ollama).json()["capabilities"]["extraction"]
    assert watched["reason"].endswith(
        "chunks wait for extraction; the watcher extracts them once the model answers"
    ), watched


def test_a_model_down_for_every_note_is_said_by_the_pending_line_not_once_a_note(
    env: None, tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    """Ollama down on a vault of more notes than the summary lists: thirty warnings saying
    the model was unavailable, "… and 11 more", under the pending line that says it. A note's
    own warning stays."""
    vault = tmp_path / "v"
    vault.mkdir()
    for i in range(40):
        (vault / f"N{i:02}.md").write_text(f"# N{i:02}\n\nNote {i} works with Ann.\n")
    (vault / "Odd.md").write_text("---\nkey: [unclosed\n---\nOdd works.\n")
    fake_ollama.down = True
    out = _ingest(vault, "--no-extract")
    assert _pending_line(out).startswith(
        f"pending: 41 chunks wait for their embedding {EMBED_DOWN}"
    )
    assert "embedding model unavailable;" not in out, out
    assert "more warning" not in out, out
    assert out.count("warning: ") == 1 and "warning: Odd.md: frontmatter ignored" in out, out


def test_a_chat_model_away_is_said_by_the_note_that_met_it_not_by_each_after(
    env: None, tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    """The first extraction that fails says why; the notes after it, left to the model's
    back-off, only repeated "extraction postponed: model unavailable"."""
    vault = tmp_path / "v"
    vault.mkdir()
    for name in ("Ann", "Ben", "Cai"):
        (vault / f"{name}.md").write_text(f"# {name}\n\n{name} works with Dee.\n")

    def down(body: dict[str, Any]) -> str:
        raise ChatRefusal(503, "model overloaded")

    fake_ollama.chat_script = down
    out = _ingest(vault)
    assert _pending_line(out).startswith(f"pending: 3 chunks wait for model extraction {CHAT_DOWN}")
    assert out.count("extraction postponed") == 1, out
    assert "model overloaded" in out.partition("extraction postponed")[2], out
    assert "postponed: model unavailable" not in out, out
