"""The read commands — ask, retrieve, note, history, stats, search — against the real Neo4j and
the fake Ollama: human output by default, the API's body with --json, documented exit codes."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from typer.testing import CliRunner

from knotwork.cli import app as cli
from tests.fakes.ollama import FakeOllama
from tests.integration.conftest import put


@pytest.fixture
def ingested(env: None, tmp_path: Path) -> Path:
    vault = tmp_path / "v"
    put(vault, "People/Alice.md", "---\ntags: [team/graph]\naliases: [Ally]\n---\n# Alice\n"
        "Alice works with [[Bob]] on the knowledge graph.\n")  # fmt: skip
    put(vault, "People/Bob.md", "# Bob\nBob maintains the Neo4j cluster.\n")
    put(vault, "Ideas.md", "# Ideas\nA garden of loose thoughts.\n")
    result = CliRunner().invoke(cli, ["ingest", str(vault), "--no-extract"])
    assert result.exit_code == 0, result.output
    return vault


# The two read commands that embed a question: as evidence, and as an answer without a model.
BOTH_WAYS = (
    ("retrieve", "Who maintains the Neo4j cluster?"),
    ("ask", "Who maintains the Neo4j cluster?", "--mode", "retrieve"),
)


def setting(monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> None:
    """A setting changed for the commands run next (the CLI reads the environment once)."""
    from knotwork.settings import get_settings

    monkeypatch.setenv(name, value)
    get_settings.cache_clear()


def run(*args: str, input: str | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), input=input)
    return result.exit_code, result.output


def test_ask_answers_and_json_is_the_query_body(ingested: Path, fake_ollama: FakeOllama) -> None:
    fake_ollama.chat_script = lambda body: "Alice works with Bob on the knowledge graph [S1]."
    code, out = run("ask", "Who does Alice work with?", "--mode", "fast")
    assert code == 0, out
    assert out.startswith("Alice works with Bob on the knowledge graph [People/")
    assert "\nsources:\n  - People/" in out
    code, out = run("ask", "Who does Alice work with?", "--mode", "retrieve", "--json")
    body = json.loads(out)
    assert code == 0 and body["status"] == "ok" and body["answer"] is None
    assert body["citations"][0]["path"].startswith("People/")


def test_ask_says_a_dropped_citation_once(ingested: Path, fake_ollama: FakeOllama) -> None:
    """An invented citation is named once: it was also counted in a warning line after it."""
    fake_ollama.chat_script = lambda body: "Alice works with Bob on the graph [S1] [S99]."
    code, out = run("ask", "Who does Alice work with?", "--mode", "fast")
    assert code == 0, out
    said = [line for line in out.splitlines() if "citation" in line]
    assert said == ["dropped a citation no source supports: [S99]"], out


def test_ask_exit_codes_for_no_evidence_a_silent_model_and_bad_arguments(
    ingested: Path, fake_ollama: FakeOllama
) -> None:
    code, out = run("ask", "zyxwvut qwerty plugh", "--mode", "fast")
    assert code == 3, out  # the notes do not cover it
    fake_ollama.down = True
    code, out = run("ask", "Who does Alice work with?", "--mode", "fast")
    assert code == 4 and "did not answer" in out, out
    code, out = run("ask", "Who?", "--top-k", "99")
    assert code == 2 and out.startswith("error: --top-k: "), out  # the option, not top_k
    for command in ("ask", "retrieve"):  # no word to ask about: refused as the API does
        code, out = run(command, "🤔🤔?")
        assert code == 2 and "question holds no words" in out, (command, out)


def test_ask_says_an_uncited_answer_is_unsupported_and_labels_a_refusals_passages(
    ingested: Path, fake_ollama: FakeOllama
) -> None:
    """An answer that cites none of the notes: the passages it was given, exit 5; a refusal's
    passages are the closest found, not sources (exit 3)."""
    fake_ollama.chat_script = lambda body: "Alice works with Bob on the knowledge graph."
    code, out = run("ask", "Who does Alice work with?", "--mode", "fast")
    assert code == 5, out
    said = out.split("unsupported: the answer cites none of your notes", 1)[1]
    assert "People/Alice.md#Alice:" in said and "works with [[Bob]] on the knowledge" in said
    code, out = run("ask", "Who does Alice work with?", "--mode", "fast", "--json")
    body = json.loads(out)
    assert code == 5 and body["uncited"] is True and body["evidence"], out
    fake_ollama.chat_script = lambda body: "I don't know."
    code, out = run("ask", "Who does Alice work with?", "--mode", "fast")
    assert code == 3, out
    assert "closest passages found (not enough to answer):\n  - People/" in out
    assert "sources:" not in out


def test_ask_says_a_model_that_is_down_once_without_a_log_record(
    ingested: Path, fake_ollama: FakeOllama, caplog: pytest.LogCaptureFixture
) -> None:
    """The warning printed with the answer is the one message: no raw log record beside it
    (the server and the MCP server, which print no body, keep theirs)."""
    fake_ollama.down = True
    caplog.set_level(logging.INFO)
    code, out = run("ask", "Who does Alice work with?", "--mode", "fast")
    assert code == 4 and out.count("running, with the model available?") == 1, out
    assert not [r for r in caplog.records if r.name == "knotwork.answer.respond"]
    assert logging.getLogger("knotwork.answer.respond").level == logging.NOTSET  # restored


def test_ask_without_a_question_is_an_interactive_session(
    ingested: Path, fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("knotwork.cli.read._at_terminal", lambda: True)
    fake_ollama.chat_script = lambda body: "Bob maintains the cluster."
    code, out = run("ask", "--mode", "fast", input="What does Bob maintain?\n\n")
    assert code == 0, out
    assert "Bob maintains the cluster." in out and "empty line or Ctrl-D ends" in out


def test_an_interactive_session_reports_a_refused_question_and_goes_on(
    ingested: Path, fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("knotwork.cli.read._at_terminal", lambda: True)
    fake_ollama.chat_script = lambda body: "Bob maintains the cluster."
    too_long = "why " * 600  # over the 2,000 characters a question may have
    code, out = run("ask", "--mode", "fast", input=f"{too_long}\nWhat does Bob maintain?\n\n")
    assert code == 0, out
    assert "error: QUESTION: " in out and "2000 characters" in out
    assert "Bob maintains the cluster." in out  # the question after the refused one


def test_questions_piped_into_ask_get_answers_alone_and_their_exit_code(
    ingested: Path, fake_ollama: FakeOllama
) -> None:
    """`echo q | knotwork ask` printed the session's banner and prompts into the output and
    exited 0 for an answer that cites nothing, which asked as an argument exits 5."""
    fake_ollama.chat_script = lambda body: "Bob maintains the cluster [S1]."
    code, out = run("ask", "--mode", "fast", input="What does Bob maintain?\n\nWho is Bob?\n")
    assert code == 0, out
    assert out.count("Bob maintains the cluster [") == 2, out  # a blank line ends nothing
    assert "Ctrl-D" not in out and "? " not in out, out
    fake_ollama.chat_script = lambda body: "Bob maintains the cluster."  # cites no note
    code, out = run("ask", "--mode", "fast", input="What does Bob maintain?\n")
    assert code == run("ask", "What does Bob maintain?", "--mode", "fast")[0] == 5, out


def test_ask_and_retrieve_refuse_a_graph_embedded_by_another_model(
    ingested: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    setting(monkeypatch, "KNOTWORK_EMBED_MODEL", "another-embedder")
    for args in BOTH_WAYS:
        code, out = run(*args)
        assert code == 1, out
        assert "another-embedder" in out and "knotwork reembed" in out, out
        assert "People/Bob.md" not in out  # no evidence ranked by the other model's vectors


def test_retrieve_lists_citations_as_path_heading_lines(ingested: Path) -> None:
    code, out = run("retrieve", "Who maintains the Neo4j cluster?")
    assert code == 0, out
    first = out.splitlines()[0]
    assert "People/Bob.md#Bob:" in first and "fulltext" in first


def test_note_history_stats_and_search(ingested: Path) -> None:
    code, out = run("note", "People/Alice.md")
    assert code == 0, out
    assert "tags: team/graph" in out and "aliases: Ally" in out
    assert "WORKS_WITH → People/Bob.md (note)  [wikilink, line 6]" in out
    assert run("note", "Nobody.md")[0] == 3
    assert run("note", "../etc/passwd")[0] == 2
    code, out = run("search", "ally")
    assert code == 0 and out.startswith("People/Alice.md  — Alice  #team/graph")
    code, out = run("search", "--tag", "#Team", "--json")  # a nested tag, any case
    assert code == 0 and [r["path"] for r in json.loads(out)] == ["People/Alice.md"]
    code, out = run("search", "--tag", "#")  # no tag: refused as /retrieve's filters do
    assert code == 2 and "a tag is empty" in out, out

    put(ingested, "People/Alice.md", "# Alice\nAlice now works alone.\n")
    assert run("ingest", str(ingested), "--no-extract")[0] == 0
    code, out = run("history", "People/Alice.md", "--json")
    rows = json.loads(out)
    assert code == 0 and [r["kind"] for r in rows] == ["upsert", "upsert"]
    assert any("WORKS_WITH" in fact for fact in rows[0]["removed"])
    code, out = run("history", "People/Alice.md")
    assert "upsert" in out and "    - WORKS_WITH → " in out
    assert "[wikilink, line 6]" in out and "||" not in out  # as `note` prints a fact
    assert run("history", "Nobody.md")[0] == 3
    code, out = run("history", "alice")  # as `note` names it: one path for every entry point
    assert code == 3 and "did you mean 'People/Alice.md'?" in out, out

    code, out = run("stats", "--json")
    assert code == 0 and json.loads(out)["notes"] == 3
    assert "notes: 3" in run("stats")[1]

    assert run("search", "ALIC")[1].startswith("People/Alice.md")  # title, any case
    code, out = run("search", "--tag", "team", "--json")
    assert code == 3 and json.loads(out) == []  # Alice lost her tag in the edit
    code, out = run("search", "--folder", "People", "--json")
    assert [r["path"] for r in json.loads(out)] == ["People/Alice.md", "People/Bob.md"]
    assert run("search", "nothing-like-this")[0] == 3

    # Moved with its text unchanged: a rename that keeps every fact, none listed.
    put(ingested, "Team.md", "#crew\nWorks with [[Alice]] and Bob.\n")
    assert run("ingest", str(ingested), "--no-extract")[0] == 0
    (ingested / "Team.md").rename(ingested / "People/Team.md")
    assert run("ingest", str(ingested), "--no-extract")[0] == 0
    code, out = run("history", "People/Team.md")
    assert code == 0 and out.splitlines()[0].endswith("  renamed from Team.md  +0 -0"), out
    assert out.splitlines()[1].endswith("  upsert  [Team.md]  +3 -0"), out
    code, out = run("history", "Team.md")  # the old path's history ends with the move
    assert code == 0 and out.splitlines()[0].endswith("  renamed to People/Team.md  +0 -0"), out
    # A link or a mention as the note it names, as `note` shows it: not its key ("bob").
    assert "    + MENTIONS → People/Bob.md  [mention, line 2]" in out, out
    assert "    + WORKS_WITH → People/Alice.md  [wikilink, line 2]" in out, out


def test_history_shows_frontmatter_links_as_their_notes_and_aliases_as_written(
    env: None, tmp_path: Path
) -> None:
    """A frontmatter link under a key with a relation of its own (``owner``) and an alias, as
    `note` shows them, not as their lower-case keys; a plain value under such a key as its
    key. An edit that keeps them lists no change of them."""
    vault = tmp_path / "v"
    put(vault, "People/Alice.md", '---\naliases: [Ali]\nworks_at: "[[Acme]]"\n'
        'owner: "[[Bob]]"\nstatus: Active\n---\n# Alice\nAlice builds anvils.\n')  # fmt: skip
    put(vault, "People/Bob.md", "# Bob\nBob sells anvils.\n")
    put(vault, "Acme.md", "# Acme\nAcme makes anvils.\n")
    assert run("ingest", str(vault), "--no-extract")[0] == 0
    code, out = run("note", "People/Alice.md")
    assert code == 0 and "HAS_OWNER → People/Bob.md (note)  [frontmatter, line 4]" in out, out
    code, out = run("history", "People/Alice.md")
    assert code == 0, out
    assert "    + HAS_OWNER ('owner') → People/Bob.md  [frontmatter, line 4]" in out, out
    assert "    + LINKS_TO ('works_at') → Acme.md  [frontmatter, line 3]" in out, out
    assert "    + HAS_ALIAS → Ali  [alias, line 2]" in out, out
    assert "    + HAS_STATUS ('status') → active  [frontmatter, line 5]" in out, out

    put(vault, "People/Alice.md", '---\naliases: [Ali]\nworks_at: "[[Acme]]"\n'
        'owner: "[[Bob]]"\nstatus: Done\n---\n# Alice\nAlice builds anvils.\n')  # fmt: skip
    assert run("ingest", str(vault), "--no-extract")[0] == 0
    code, out = run("history", "People/Alice.md", "--limit", "1")
    assert code == 0 and out.splitlines()[0].endswith("  upsert  +1 -1"), out  # the status
    put(vault, "People/Alice.md", "---\naliases: [Ali]\n---\n# Alice\nAlice builds anvils.\n")
    assert run("ingest", str(vault), "--no-extract")[0] == 0
    code, out = run("history", "People/Alice.md", "--limit", "1")
    assert code == 0 and out.splitlines()[0].endswith("  upsert  +0 -3"), out
    assert "    - HAS_OWNER ('owner') → People/Bob.md  [frontmatter, line 4]" in out, out
    assert "    - LINKS_TO ('works_at') → Acme.md  [frontmatter, line 3]" in out, out


def test_a_question_to_a_vault_the_graph_holds_nothing_of_says_so(
    ingested: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A vault name mistyped (or not ingested yet) is not "the notes do not cover it"."""
    code, out = run("retrieve", "zyxwvut qwerty plugh")
    assert code == 3 and "holds no notes" not in out, out  # a vault that has notes
    setting(monkeypatch, "KNOTWORK_VAULT_NAME", "fresh")
    for args in BOTH_WAYS:
        code, out = run(*args)
        assert code == 3, out
        assert "the graph holds no notes of vault 'fresh'" in out and "KNOTWORK_VAULT_NAME" in out


def test_note_and_search_in_a_vault_the_graph_holds_nothing_of_say_so(
    ingested: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As `ask` does: a mistyped KNOTWORK_VAULT_NAME is not "no such note", nor a vault that
    is merely empty (`stats`, `history`)."""
    code, out = run("search", "zyxwvut")
    assert code == 3 and "no note matches" in out and "holds no notes" not in out, out
    for args in (("note", "Nowhere.md"), ("history", "Nowhere.md")):
        code, out = run(*args)
        assert code == 3 and "holds no notes" not in out, out
    code, out = run("stats")
    assert code == 0 and "holds no notes" not in out, out
    setting(monkeypatch, "KNOTWORK_VAULT_NAME", "typo")
    for args in (("search", "Alice"), ("note", "People/Alice.md"), ("search", "--json"),
                 ("history", "People/Alice.md"), ("stats",), ("stats", "--json")):  # fmt: skip
        code, out = run(*args)
        assert code == (0 if args[0] == "stats" else 3), out
        assert "warning: the graph holds no notes of vault 'typo'" in out, out
        assert "check KNOTWORK_VAULT_NAME" in out


def test_note_shows_why_its_frontmatter_was_ignored_on_every_read(ingested: Path) -> None:
    put(ingested, "Bad.md", "---\ntitle: [unclosed\ntags: : :\n---\n# Bad YAML\nBody\n")
    assert "Bad.md: frontmatter ignored" in run("ingest", str(ingested), "--no-extract")[1]
    for _ in range(2):  # the ingest said it once; the note says it as long as it holds
        code, out = run("note", "Bad.md")
        assert code == 0 and "\nfrontmatter ignored: invalid YAML" in out, out
    code, out = run("note", "People/Bob.md")
    assert code == 0 and "frontmatter ignored" not in out, out
