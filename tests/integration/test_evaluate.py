"""`knotwork eval` end to end on a tiny corpus and a tiny vault, with recall worked out by hand.

Only the full-text config is scored against hand figures: its ranking follows from which words
each passage holds (a passage matching two of the question's rare words outranks one matching
one). The other configs run to show they work; their order depends on the hashing embedder.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from knotwork.answer.refusal import INSUFFICIENT
from knotwork.cli import app as cli
from knotwork.core import Core
from knotwork.errors import ModelUnavailableError
from knotwork.eval.metrics import summarise
from knotwork.eval.retrieval import EvalSpec, render, run_eval
from tests.fakes.ollama import FakeOllama
from tests.integration.test_answer import prompt_of

PASSAGES = [
    ("Alpha Fjord", "The quokka sings beside the old zeppelin hangar."),
    ("Beta/Gamma: Two", "A quokka dances along the quiet river bank."),
    ("Delta", "A marzipan tower stands in the market square."),
    ("Epsilon", "The volcano glows above the harbour at night."),
    ("Queen of Spades", "A card game played with a standard deck."),
]
QUESTIONS: list[dict[str, Any]] = [
    # ranked: Alpha Fjord (quokka + zeppelin), then Beta/Gamma: Two (quokka) → R@1 0, R@2 1
    {"id": "q1", "question": "quokka zeppelin", "type": "compositional",
     "gold_titles": ["Beta/Gamma: Two"], "gold_unmatched_subjects": []},
    # ranked: Delta only → half the gold at every k
    {"id": "q2", "question": "marzipan", "type": "comparison",
     "gold_titles": ["Delta", "Epsilon"], "gold_unmatched_subjects": []},
    # ranked: Epsilon → 1 at every k; its gold has an unmatched subject
    {"id": "q3", "question": "volcano", "type": "inference",
     "gold_titles": ["Epsilon"], "gold_unmatched_subjects": ["Somebody"]},
    # nothing matches → 0
    {"id": "q4", "question": "xylophonist", "type": "compositional",
     "gold_titles": ["Alpha Fjord"], "gold_unmatched_subjects": []},
    # no gold: asked and timed, never scored
    {"id": "q5", "question": "quokka", "type": "comparison",
     "gold_titles": [], "gold_unmatched_subjects": []},
]  # fmt: skip


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def data(tmp_path: Path) -> tuple[Path, Path]:
    corpus = write_jsonl(
        tmp_path / "corpus.jsonl",
        [{"idx": i, "title": t, "text": x} for i, (t, x) in enumerate(PASSAGES)],
    )
    return corpus, write_jsonl(tmp_path / "questions.jsonl", QUESTIONS)


async def test_corpus_recall_matches_the_hand_figures(
    core: Core, data: tuple[Path, Path], tmp_path: Path
) -> None:
    corpus, questions = data
    spec = EvalSpec(
        questions, corpus=corpus, name="tiny", cache=tmp_path / "cache", ks=(1, 2, 5),
        configs=("fulltext", "dense", "hybrid", "full"),
    )  # fmt: skip
    report = await run_eval(core, spec)
    assert (report.vault, report.sync.notes, report.sync.written) == ("eval-tiny", 5, 5)
    assert (tmp_path / "cache" / "tiny" / "Beta Gamma Two.md").is_file()
    assert (report.gold_total, report.gold_missing) == (4, [])
    fulltext = report.configs[0]
    ranked = {r.id: r.ranked for r in fulltext.results}
    assert ranked["q1"][:2] == ["Alpha Fjord", "Beta/Gamma: Two"]
    assert ranked["q2"] == ["Delta"] and ranked["q4"] == []
    every = summarise(fulltext.results, (1, 2, 5))
    assert every.n == 4
    assert every.recall == pytest.approx({1: 1.5 / 4, 2: 2.5 / 4, 5: 2.5 / 4})
    matched = summarise(fulltext.results, (1, 2, 5), lambda r: not r.unmatched)
    assert matched.n == 3
    assert matched.recall == pytest.approx({1: 0.5 / 3, 2: 1.5 / 3, 5: 1.5 / 3})
    composed = summarise(fulltext.results, (1, 2), lambda r: r.type == "compositional")
    assert (composed.n, composed.recall) == (2, {1: 0.0, 2: 0.5})
    for config in report.configs:
        assert len(config.results) == 5 and all(r.latency_ms > 0 for r in config.results)
    dense = {r.id: r.ranked for r in report.configs[1].results}
    assert dense["q4"], "the vector retriever always returns its nearest notes"
    again = await run_eval(core, spec)
    assert (again.sync.written, again.sync.unchanged) == (0, 5), "the ingested vault is reused"


ANSWERED: dict[str, tuple[str, list[str]]] = {
    # question → (what the model says, gold answers)
    "marzipan": ("A marzipan tower [Delta.md#Delta].", ["marzipan tower"]),  # EM 1
    # said "it sings", gold "quokka sings": 1 word of 2 in common → F1 0.5, EM 0
    "quokka zeppelin": ("It sings [Alpha Fjord.md#Alpha Fjord]", ["The quokka sings"]),
    # 6 words said, "glows" among them → F1 2/7, contained
    "volcano": ("The volcano glows above the harbour at night [Epsilon.md#Epsilon].", ["glows"]),
    "xylophonist": (INSUFFICIENT, ["a xylophone"]),  # the notes fall short: all 0
}


def question_of(prompt: str) -> str:
    return prompt.rsplit("Question: ", 1)[-1].strip()


async def test_answers_are_scored_by_exact_match_and_f1(
    core: Core, data: tuple[Path, Path], tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    corpus, _ = data
    rows = [
        {"id": f"a{i}", "question": q, "gold_titles": ["Delta"], "answers": gold, "type": "t"}
        for i, (q, (_, gold)) in enumerate(ANSWERED.items())
    ]
    rows.append({"id": "a9", "question": "quokka", "gold_titles": ["Delta"]})  # no answer
    questions = write_jsonl(tmp_path / "qa.jsonl", rows)
    fake_ollama.chat_script = lambda body: ANSWERED[question_of(prompt_of(body))][0]
    spec = EvalSpec(
        questions, corpus=corpus, name="qa", cache=tmp_path / "cache", configs=("fulltext",),
        answer_mode="fast",
    )  # fmt: skip
    report = await run_eval(core, spec)
    assert report.answers is not None and report.answers.skipped == 1
    got = {r.id: (r.status, r.em, r.f1, r.contains, r.cited) for r in report.answers.results}
    assert got["a0"] == ("ok", 1.0, 1.0, 1.0, 1)
    assert got["a1"] == ("ok", 0.0, 0.5, 0.0, 1)
    assert got["a2"][:2] == ("ok", 0.0) and got["a2"][2] == pytest.approx(2 / 7)
    assert got["a2"][3:] == (1.0, 1)
    assert got["a3"] == ("insufficient_context", 0.0, 0.0, 0.0, 0)
    assert report.answers.results[0].prediction == "A marzipan tower ."
    table = render(report, "test settings")
    assert "| all | 4 | 25.0 | 44.6 | 50.0 | 1 | 1.0 |" in table
    # A model that does not answer stops the run with the reason, rather than scoring zeros.
    fake_ollama.down = True
    with pytest.raises(ModelUnavailableError, match="did not answer"):
        await run_eval(core, spec)


async def test_a_vault_with_chunks_left_unembedded_is_not_measured(
    core: Core, data: tuple[Path, Path], tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    """An embedder that fails during the ingest leaves chunks out of the vector index; the
    evaluation asks again, and refuses to report recall while any are missing."""
    corpus, questions = data
    await core.ensure_ready()
    fake_ollama.down = True
    spec = EvalSpec(
        questions, corpus=corpus, name="unembedded", cache=tmp_path / "cache", configs=("dense",)
    )
    with pytest.raises(ModelUnavailableError, match=r"5 of the vault's 5 chunks have no embed"):
        await run_eval(core, spec)
    fake_ollama.down = False
    report = await run_eval(core, spec)  # the notes are kept; the retry embeds them
    assert (report.sync.written, report.sync.unchanged) == (0, 5)
    assert all(r.ranked for r in report.configs[0].results), "every chunk is in the index"


async def test_sections_match_on_the_last_heading(core: Core, tmp_path: Path) -> None:
    vault = tmp_path / "handbook"
    (vault / "docs").mkdir(parents=True)
    (vault / "docs" / "guide.md").write_text(
        "# Guide\n\n## Install Steps\n\nRun the frobnicator twice.\n\n"
        "## Removal\n\nDelete the wibble folder.\n"
    )
    (vault / "other.md").write_text("# Other\n\n## Misc\n\nA frobnicator and a wibble.\n")
    gold = [{"path": "docs/guide.md", "heading": "install  steps:"},
            {"path": "docs/guide.md", "heading": "Nowhere"}]  # fmt: skip
    questions = write_jsonl(
        tmp_path / "q.jsonl",
        [
            {"id": "s1", "question": "frobnicator", "gold_notes": gold},
            {"id": "s2", "question": "wibble folder", "gold_notes": [
                {"path": "docs/guide.md", "heading": "Removal"},
                {"path": "other.md", "heading": "Misc"}]},
        ],
    )  # fmt: skip
    spec = EvalSpec(questions, vault_dir=vault, ks=(2, 5), configs=("fulltext",))
    report = await run_eval(core, spec)
    assert report.vault == "eval-handbook"
    assert report.gold_missing == ["docs/guide.md#nowhere"]
    results = {r.id: r for r in report.configs[0].results}
    assert set(results["s1"].ranked) == {"docs/guide.md#install steps", "other.md#misc"}
    assert results["s1"].recalls == {2: 0.5, 5: 0.5}
    assert results["s2"].recalls == {2: 1.0, 5: 1.0}


def test_the_cli_writes_the_table(env: None, data: tuple[Path, Path], tmp_path: Path) -> None:
    corpus, questions = data
    out = tmp_path / "results.md"
    args = ["eval", "--corpus", str(corpus), "--questions", str(questions), "--k", "1,2,5",
            "--configs", "fulltext,dense", "--out", str(out), "--cache", str(tmp_path / "c"),
    ]  # fmt: skip
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert text in result.output
    lines = text.splitlines()
    rows = [line for line in lines if line.startswith("| fulltext | fulltext |")]
    assert [row.split(" | ")[2:6] for row in rows] == [
        ["4", "37.5", "62.5", "62.5"],  # every question with gold
        ["3", "16.7", "50.0", "50.0"],  # without the unmatched-subject one
    ]
    assert "| fulltext | inference | 1 | 100.0 | 100.0 | 100.0 |" in lines
    assert "Without the 1 question whose gold has an unmatched subject:" in lines
    assert "5 questions, 1 without gold evidence (not scored)" in text
    assert len(list((tmp_path / "c").glob("*/Delta.md"))) == 1


def test_the_cli_names_a_bad_file(env: None, data: tuple[Path, Path], tmp_path: Path) -> None:
    corpus, _ = data
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "q", "gold_titles": ["A"]}\n{"gold_titles": []}\n')
    result = CliRunner().invoke(cli, ["eval", "--corpus", str(corpus), "--questions", str(bad)])
    assert result.exit_code == 2, "input the user must fix, not the service failing"
    assert "bad.jsonl:2: field 'question' must be a non-empty string" in result.output
    result = CliRunner().invoke(cli, ["eval", "--questions", str(bad)])
    assert result.exit_code == 2, result.output
    assert result.output == "error: give exactly one of --vault FOLDER or --corpus FILE\n"
    result = CliRunner().invoke(
        cli, ["eval", "--corpus", str(corpus), "--questions", str(bad), "--k", "2,x"]
    )
    assert result.exit_code == 2 and "not a comma-separated list" in result.output


def test_the_cli_refuses_an_out_it_cannot_write_before_the_run(
    env: None, data: tuple[Path, Path], tmp_path: Path
) -> None:
    corpus, questions = data
    cache = tmp_path / "c"
    missing = tmp_path / "no" / "r.md"
    for out, problem in ((missing, f"no folder {missing.parent}"), (tmp_path, "is a folder")):
        args = ["eval", "--corpus", str(corpus), "--questions", str(questions),
                "--configs", "fulltext", "--out", str(out), "--cache", str(cache)]  # fmt: skip
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 2, result.output
        assert result.output == f"error: --out {out}: {problem}\n"
    assert not cache.exists(), "nothing was ingested"
