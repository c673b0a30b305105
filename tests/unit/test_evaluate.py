"""The evaluation's pure parts: reading question and corpus files, turning a corpus into notes,
and the recall and latency figures, each checked against numbers worked out by hand."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import pytest

from knotwork.errors import EvalInputError
from knotwork.eval.data import (
    MARKER,
    Passage,
    corpus_notes,
    load_corpus,
    load_questions,
    normalise_heading,
    note_filename,
    note_text,
    read_jsonl,
    section_key,
    write_corpus_vault,
)
from knotwork.eval.metrics import (
    ConfigResult,
    QuestionResult,
    answer_f1,
    contains_answer,
    distinct_keys,
    exact_match,
    hit_section,
    normalize_answer,
    percentile,
    recall_at,
    recall_table,
    summarise,
    title_key,
    type_table,
)
from knotwork.eval.retrieval import (
    ABLATIONS,
    CONFIGS,
    EvalSpec,
    check_spec,
    default_name,
    expand_configs,
)
from knotwork.ingest.parse import parse_note
from knotwork.retrieve.config import NOTE_SHARE
from knotwork.retrieve.types import Hit


def hit(path: str, heading: str = "", title: str = "") -> Hit:
    return Hit("c", path, title or path[:-3], heading, 1, 2, "text", 0.0)


def jsonl(tmp_path: Path, rows: list[Any], name: str = "q.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


# -- files ---------------------------------------------------------------------------------


def test_read_jsonl_names_the_file_and_line_of_what_is_wrong(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"a": 1}\n\n{"a": \n')
    with pytest.raises(EvalInputError, match=r"bad.jsonl:3: not valid JSON"):
        read_jsonl(bad)
    bad.write_text('{"a": 1}\n[1, 2]\n')
    with pytest.raises(EvalInputError, match=r"bad.jsonl:2: expected a JSON object"):
        read_jsonl(bad)
    bad.write_text("\n\n")
    with pytest.raises(EvalInputError, match="holds no rows"):
        read_jsonl(bad)
    with pytest.raises(EvalInputError, match="cannot be read"):
        read_jsonl(tmp_path / "absent.jsonl")


def test_questions_with_gold_titles(tmp_path: Path) -> None:
    path = jsonl(
        tmp_path,
        [
            {"id": "a", "question": "Who?", "type": "comparison", "gold_titles": ["X", "Y", "X"],
             "gold_unmatched_subjects": []},
            {"question": "When?", "gold_titles": [], "gold_unmatched_subjects": ["Z"]},
        ],
    )  # fmt: skip
    first, second = load_questions(path)
    assert (first.id, first.kind, first.gold, first.type, first.unmatched) == (
        "a", "titles", ("X", "Y"), "comparison", False,
    )  # fmt: skip
    assert (second.id, second.gold, second.type, second.unmatched) == ("2", (), "", True)


def test_questions_with_gold_sections_compare_headings_loosely(tmp_path: Path) -> None:
    path = jsonl(
        tmp_path,
        [{"id": "d", "question": "How?", "gold_notes": [
            {"path": "en/a.md", "heading": "Creating  Test Cases"},
            {"path": "en/b.md", "heading": "1. Choose the right model:"},
        ]}],
    )  # fmt: skip
    (question,) = load_questions(path)
    assert question.kind == "sections"
    assert question.gold == ("en/a.md#creating test cases", "en/b.md#1. choose the right model")
    assert normalise_heading(" Cafe\u0301  Menu ## ") == "caf\u00e9 menu"
    assert section_key("a.md", "Intro") == "a.md#intro"
    # A gold heading copied from the note names the chunk's anchor (text.anchors).
    assert section_key("a.md", "Latch [[latch SR]]: timing") == "a.md#latch latch sr timing"


def test_gold_sections_may_be_the_lead_or_a_full_heading_path(tmp_path: Path) -> None:
    """A note with no heading has only the lead section (""); a heading path "A > B" is scored
    by its last part, as hits are; ``kind`` is the question type when ``type`` is absent."""
    path = jsonl(
        tmp_path,
        [{"id": "i", "question": "Che cos'è?", "kind": "paraphrase", "gold_notes": [
            {"path": "cd/teorema.md", "heading": ""},
            {"path": "cd/relazioni.md", "heading": "tipi di relazioni > equivalenza"},
        ]},
         {"id": "o", "question": "Capitale?", "kind": "off_topic", "gold_notes": []}],
    )  # fmt: skip
    answerable, off_topic = load_questions(path)
    assert answerable.gold == ("cd/teorema.md#", "cd/relazioni.md#equivalenza")
    assert answerable.gold[0] == hit_section(hit("cd/teorema.md", ""))
    assert answerable.gold[1] == hit_section(
        hit("cd/relazioni.md", "tipi di relazioni > equivalenza")
    )
    assert (answerable.type, off_topic.type, off_topic.gold) == ("paraphrase", "off_topic", ())


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ({"id": 1, "gold_titles": ["X"]}, "'question' must be a non-empty string"),
        ({"question": "  ", "gold_titles": ["X"]}, "'question' must be a non-empty string"),
        ({"question": "Q"}, "no gold evidence"),
        ({"question": "Q", "gold_titles": "X"}, "'gold_titles' must be a list"),
        ({"question": "Q", "gold_titles": [1]}, "list of strings"),
        ({"question": "Q", "gold_notes": ["a.md"]}, r"\{path, heading\}"),
        ({"question": "Q", "gold_notes": [{"path": "a.md"}]}, "'heading' must be"),
    ],
)
def test_bad_questions_are_refused_with_the_line(
    tmp_path: Path, row: dict[str, Any], message: str
) -> None:
    path = jsonl(tmp_path, [{"question": "fine", "gold_titles": []}, row])
    with pytest.raises(EvalInputError, match=r"q.jsonl:2: .*" + message):
        load_questions(path)


def test_mixed_gold_kinds_are_refused(tmp_path: Path) -> None:
    rows = [{"question": "a", "gold_titles": ["X"]},
            {"question": "b", "gold_notes": [{"path": "a.md", "heading": "H"}]}]  # fmt: skip
    with pytest.raises(EvalInputError, match="mixes"):
        load_questions(jsonl(tmp_path, rows))


def test_corpus_needs_title_and_text(tmp_path: Path) -> None:
    good = jsonl(tmp_path, [{"idx": 0, "title": "T", "text": "body"}], "c.jsonl")
    assert load_corpus(good) == [Passage("T", "body")]
    bad = jsonl(tmp_path, [{"idx": 0, "title": "T", "text": "b"}, {"idx": 1, "text": "b"}], "d")
    with pytest.raises(EvalInputError, match=r"d:2: field 'title' must be a non-empty string"):
        load_corpus(bad)


# -- corpus → vault ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("title", "filename"),
    [
        ("Lothair II", "Lothair II.md"),
        ("AC/DC: Live?", "AC DC Live.md"),
        ("Back in the U.S.A.", "Back in the U.S.A.md"),
        (".hidden", "hidden.md"),
        ("~temp", "temp.md"),
        ('a\\b*c"d<e>f|g#h^i[j]k\tl', "a b c d e f g h i j k l.md"),
        ("CON", "_CON.md"),
        ("nul.txt", "_nul.txt.md"),
        ("///", "_.md"),
        ("Ermengarde of Tours", "Ermengarde of Tours.md"),
    ],
)
def test_note_filenames_are_portable(title: str, filename: str) -> None:
    assert note_filename(title) == filename


def test_long_titles_are_cut_on_a_character_boundary() -> None:
    name = note_filename("é" * 200)
    assert name.endswith(".md") and len(name[:-3].encode()) <= 150
    assert name[:-3] == "é" * 75


@pytest.mark.parametrize(
    "title",
    ["Plain Title", 'Merry Go Round (Royce da 5\'9" song)', "Wrong Turn 2: Dead End", "Do My...",
     "Princess Iman bint ِHussein", "#hashtag: [[link]] | x", "yes", "null", "- item"],
)  # fmt: skip
def test_the_note_parses_back_to_the_passage_title(title: str) -> None:
    filename = note_filename(title)
    text = note_text(title, "  Some text.\n", filename)
    note = parse_note(filename, text)
    assert note.title == title
    assert note.frontmatter_error is None
    assert text.endswith(f"# {title}\n\nSome text.\n")
    assert text.startswith("---\n") == (filename[:-3] != title)


def test_names_colliding_without_case_get_a_number() -> None:
    notes = corpus_notes(
        [Passage("Queen of Spades", "a"), Passage("Queen of spades", "b"), Passage("A/B", "c"),
         Passage("A B", "d")]
    )  # fmt: skip
    assert list(notes) == ["Queen of Spades.md", "Queen of spades (2).md", "A B.md", "A B (2).md"]
    assert notes["Queen of spades (2).md"][0] == "Queen of spades"
    assert parse_note("A B (2).md", notes["A B (2).md"][1]).title == "A B"


def test_the_corpus_vault_is_written_once_and_kept_in_step(tmp_path: Path) -> None:
    folder = tmp_path / "cache" / "set"
    titles = write_corpus_vault([Passage("One", "1"), Passage("Two/2", "2")], folder)
    assert titles == {"One.md": "One", "Two 2.md": "Two/2"}
    assert json.loads((folder / MARKER).read_text()) == titles
    assert (folder / "One.md").read_text() == "# One\n\n1\n"
    os.utime(folder / "One.md", (1, 1))
    write_corpus_vault([Passage("One", "1"), Passage("Three", "3")], folder)
    assert sorted(p.name for p in folder.glob("*.md")) == ["One.md", "Three.md"]
    assert (folder / "One.md").stat().st_mtime == 1, "an unchanged note is not rewritten"
    write_corpus_vault([Passage("One", "1")], folder, fresh=True)
    assert (folder / "One.md").stat().st_mtime != 1


def test_a_folder_the_evaluation_did_not_write_is_never_cleared(tmp_path: Path) -> None:
    (tmp_path / "mine.md").write_text("precious")
    with pytest.raises(EvalInputError, match="not written by the evaluation"):
        write_corpus_vault([Passage("One", "1")], tmp_path, fresh=True)
    assert (tmp_path / "mine.md").read_text() == "precious"


# -- metrics -------------------------------------------------------------------------------


def test_distinct_notes_keep_the_rank_of_their_best_chunk() -> None:
    hits = [hit("A.md"), hit("B.md"), hit("A.md"), hit("C.md"), hit("B.md"), hit("D.md")]
    assert distinct_keys(hits, title_key(None)) == ["A", "B", "C", "D"]
    mapped = title_key({"A B.md": "A/B"})
    assert [mapped(h) for h in (hit("A B.md"), hit("X.md", title="Y"))] == ["A/B", "Y"]


def test_recall_at_k_by_hand() -> None:
    ranked = ["A", "B", "C", "D", "E"]
    assert recall_at(ranked, ["B", "E"], 1) == 0.0
    assert recall_at(ranked, ["B", "E"], 2) == 0.5
    assert recall_at(ranked, ["B", "E"], 5) == 1.0
    assert recall_at(ranked, ["B", "Z", "Y", "A"], 10) == 0.5
    assert recall_at([], ["A"], 5) == 0.0
    assert recall_at(ranked, [], 5) is None


def test_sections_are_the_last_heading_normalised() -> None:
    assert hit_section(hit("en/a.md", "eval tool > Creating Test Cases")) == (
        "en/a.md#creating test cases"
    )
    assert hit_section(hit("en/a.md", "Top")) == "en/a.md#top"
    assert hit_section(hit("en/a.md", "")) == "en/a.md#"
    hits = [hit("a.md", "T > One"), hit("a.md", "T > One"), hit("a.md", "T > Two")]
    assert distinct_keys(hits, hit_section) == ["a.md#one", "a.md#two"]


def test_percentiles_interpolate_between_ranks() -> None:
    values = [float(v) for v in range(10, 0, -1)]  # 10 … 1, unsorted on purpose
    assert percentile(values, 50) == pytest.approx(5.5)
    assert percentile(values, 95) == pytest.approx(9.55)
    assert percentile([7.0], 95) == 7.0
    assert math.isnan(percentile([], 50))


def result(qid: str, recalls: dict[int, float] | None, ms: float, **kw: Any) -> QuestionResult:
    return QuestionResult(qid, kw.get("type", ""), kw.get("unmatched", False), recalls, ms)


def test_summaries_average_over_questions_with_gold() -> None:
    results = [
        result("1", {2: 0.5, 5: 1.0}, 10.0, type="comparison"),
        result("2", {2: 0.0, 5: 0.5}, 20.0, type="inference", unmatched=True),
        result("3", None, 30.0, type="comparison"),  # no gold: latency counts, recall does not
    ]
    s = summarise(results, (2, 5))
    assert (s.n, s.recall, s.p50_ms) == (2, {2: 0.25, 5: 0.75}, 20.0)
    kept = summarise(results, (2, 5), lambda r: not r.unmatched)
    assert (kept.n, kept.recall, kept.p50_ms) == (1, {2: 0.5, 5: 1.0}, 20.0)
    empty = summarise(results, (2,), lambda r: False)
    assert empty.n == 0 and math.isnan(empty.recall[2])
    config = ConfigResult("dense", "vector", results)
    table = recall_table([config], (2, 5))
    assert "| dense | vector | 2 | 25.0 | 75.0 | 20 | 29 |" in table.splitlines()
    types = type_table([config], (2, 5)).splitlines()
    assert "| dense | comparison | 1 | 50.0 | 100.0 |" in types
    assert "| dense | inference | 1 | 0.0 | 50.0 |" in types


# -- spec ----------------------------------------------------------------------------------


def test_default_names_come_from_the_data_folder(tmp_path: Path) -> None:
    q = Path("q.jsonl")
    corpus = Path("../shared/eval/2wikimultihopqa/corpus.jsonl")
    assert default_name(EvalSpec(q, corpus=corpus)) == "2wikimultihopqa"
    notes = Path("../shared/eval/docsqa-claude-docs/notes")
    assert default_name(EvalSpec(q, vault_dir=notes)) == "docsqa-claude-docs"
    assert default_name(EvalSpec(q, vault_dir=Path("My Vault!"))) == "My-Vault"


def test_a_spec_that_cannot_run_is_refused_first(tmp_path: Path) -> None:
    q = jsonl(tmp_path, [{"question": "a", "gold_titles": []}])
    cases: list[tuple[EvalSpec, str]] = [
        (EvalSpec(q), "exactly one of"),
        (EvalSpec(q, vault_dir=tmp_path, corpus=q), "exactly one of"),
        (EvalSpec(q, vault_dir=tmp_path / "nope"), "not a folder"),
        (EvalSpec(tmp_path / "absent.jsonl", vault_dir=tmp_path), "no such file"),
        (EvalSpec(q, vault_dir=tmp_path, ks=(0, 5)), "each k must be"),
        (EvalSpec(q, vault_dir=tmp_path, ks=()), "--k names no cut-off"),
        (EvalSpec(tmp_path, vault_dir=tmp_path), "a folder, not a JSONL file"),
        (EvalSpec(q, corpus=tmp_path), "a folder, not a JSONL file"),
        (EvalSpec(q, vault_dir=tmp_path, configs=("dense", "bm25")), "unknown configs"),
        (EvalSpec(q, vault_dir=tmp_path, limit=0), "--limit"),
    ]
    for spec, message in cases:
        with pytest.raises(EvalInputError, match=message):
            check_spec(spec)
    check_spec(EvalSpec(q, vault_dir=tmp_path))


def test_ablations_are_the_full_pipeline_less_one_part() -> None:
    full = CONFIGS["full"]
    for name in ABLATIONS:
        config = CONFIGS[name]
        if name == "no-ppr":
            assert (config.retrievers, config.ppr) == (full.retrievers, False)
        elif name == "no-note-vector":
            assert config.retrievers == full.retrievers and config.ppr
            assert (full.note_share, config.note_share) == (NOTE_SHARE, 0.0) and NOTE_SHARE > 0
        else:
            assert config.ppr and config.retrievers == full.retrievers - {name.removeprefix("no-")}
    assert expand_configs(["hybrid", "ablations", "no-graph"]) == ("hybrid", *ABLATIONS)
    check_spec_configs = EvalSpec(Path("q.jsonl"), configs=expand_configs(["ablations"]))
    assert all(c in CONFIGS for c in check_spec_configs.configs)


def test_answer_metrics_follow_squad_normalisation() -> None:
    assert normalize_answer("The  Eiffel-Tower, in Paris!") == "eiffel tower in paris"
    assert exact_match("the Eiffel Tower.", ["Eiffel Tower"]) == 1.0
    assert exact_match("Eiffel Tower in Paris", ["Eiffel Tower"]) == 0.0
    # "tower in paris" against "eiffel tower": 1 common of 3 said and 2 gold → P 1/3, R 1/2
    assert answer_f1("Tower in Paris", ["Eiffel Tower"]) == pytest.approx(2 * (1 / 6) / (5 / 6))
    assert answer_f1("Tower in Paris", ["London", "Eiffel Tower"]) == answer_f1(
        "Tower in Paris", ["Eiffel Tower"]
    )  # the best gold answer counts
    assert answer_f1("", ["Eiffel Tower"]) == 0.0
    assert contains_answer("It died on 20 March 851, at Tours.", ["20 March 851"]) == 1.0
    assert contains_answer("On 120 March 8510", ["20 March 851"]) == 0.0  # whole words only
    assert contains_answer("anything", [""]) == 0.0


def test_answers_load_from_either_field(tmp_path: Path) -> None:
    rows = [
        {"id": "a", "question": "q", "gold_titles": ["T"], "answers": ["x", "y"]},
        {"id": "b", "question": "q", "gold_titles": ["T"], "answer": "z"},
        {"id": "c", "question": "q", "gold_titles": ["T"]},
    ]
    path = tmp_path / "q.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert [q.answers for q in load_questions(path)] == [("x", "y"), ("z",), ()]
    path.write_text(json.dumps({**rows[0], "answers": [1]}) + "\n")
    with pytest.raises(EvalInputError, match="'answers' must be a list of strings"):
        load_questions(path)
    with pytest.raises(EvalInputError, match="--answer slow"):
        check_spec(EvalSpec(path, vault_dir=tmp_path, answer_mode="slow"))  # type: ignore[arg-type]
