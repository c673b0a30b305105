"""The pure parts of bench/compare.py: the wikilink extractor, the edit script, stale facts."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any

from bench.compare import (
    LINK_RELATION,
    QUESTIONS_UNTIMED,
    Script,
    WikilinkExtractor,
    Workload,
    knotwork_expected,
    llamaindex_expected,
    note_name,
    questions,
    run_watched,
    sides_in_round,
    stale_and_missing,
    table,
    wikilink_targets,
)
from llama_index.core.graph_stores.types import KG_NODES_KEY, KG_RELATIONS_KEY, Relation
from llama_index.core.indices.property_graph import ImplicitPathExtractor
from llama_index.core.schema import Document, NodeRelationship, RelatedNodeInfo, TextNode


def test_wikilink_targets_drop_folder_heading_alias_and_extension() -> None:
    text = (
        "See [[Alpha]], [[notes/Beta.md|the beta]], ![[Gamma#Part]] and [[Delta#^block|d]]; "
        "[[#Only a heading]] and [[ ]] link no note."
    )
    assert wikilink_targets(text) == ["Alpha", "Beta", "Gamma", "Delta"]
    assert note_name("area1/Note 00001.md") == "Note 00001"


def test_wikilink_extractor_adds_links_beside_implicit_paths() -> None:
    doc = Document(text="whole", id_="a/Source.md")
    node = TextNode(
        text="Works with [[Target One]] and [[Target One|again]], see [[b/Target Two]].",
        metadata={"path": "a/Source.md"},
        relationships={NodeRelationship.SOURCE: RelatedNodeInfo(node_id=doc.id_)},
    )
    (out,) = WikilinkExtractor()(ImplicitPathExtractor()([node]))

    relations: list[Relation] = out.metadata[KG_RELATIONS_KEY]
    assert [r.label for r in relations] == ["SOURCE", LINK_RELATION, LINK_RELATION]
    assert [(r.source_id, r.target_id) for r in relations[1:]] == [
        ("Source", "Target One"),
        ("Source", "Target Two"),
    ]
    assert relations[1].properties["path"] == "a/Source.md"
    names = [n.name for n in out.metadata[KG_NODES_KEY]]
    assert names == ["Source", "Target One", "Target Two"]

    bare = TextNode(text="no links", metadata={"path": "c.md"})
    (none,) = WikilinkExtractor()([bare])
    assert none.metadata[KG_NODES_KEY] == [] and none.metadata[KG_RELATIONS_KEY] == []


def _vault(folder: Path) -> Path:
    (folder / "sub").mkdir(parents=True)
    (folder / "a.md").write_text("# A\n\nSee [[b]] and [[c|C]].\n", encoding="utf-8")
    (folder / "sub" / "b.md").write_text("# B\n\nBack to [[a]].\n", encoding="utf-8")
    (folder / "c.md").write_text("# C\n\nAlone.\n", encoding="utf-8")
    return folder


def test_the_script_is_the_same_on_two_copies_and_unlinks_and_links(tmp_path: Path) -> None:
    one = _vault(tmp_path / "one")
    two = shutil.copytree(one, tmp_path / "two")
    before = llamaindex_expected(one)
    scripts = [Script(one, seed=3), Script(two, seed=3)]
    edited = [[s.edit(n) for n in range(4)] for s in scripts]
    deleted = [s.delete() for s in scripts]
    assert edited[0] == edited[1] and deleted[0] == deleted[1]
    for path in {*edited[0]} - {deleted[0]}:
        assert (one / path).read_text() == (two / path).read_text()
        assert "now works with [[" in (one / path).read_text()
    assert not (one / deleted[0]).exists()
    assert llamaindex_expected(one) == llamaindex_expected(two) != before


def test_llamaindex_stale_links_are_those_no_current_file_has(tmp_path: Path) -> None:
    folder = _vault(tmp_path)
    assert llamaindex_expected(folder) == {("a", "b"), ("a", "c"), ("b", "a")}
    # The graph after editing a.md (its [[c]] unlinked) and deleting b.md, as delete + insert
    # leaves it: the relations from the old versions are still there.
    (folder / "a.md").write_text("# A\n\nSee [[b]] and C.\n", encoding="utf-8")
    (folder / "sub" / "b.md").unlink()
    graph = [("a", "b"), ("a", "c"), ("b", "a")]
    assert stale_and_missing(graph, llamaindex_expected(folder)) == (2, 0)
    assert stale_and_missing([], llamaindex_expected(folder)) == (0, 1)


def test_knotwork_stale_facts_against_its_own_parse(tmp_path: Path) -> None:
    folder = _vault(tmp_path)
    expected = knotwork_expected(folder)
    assert {(path, key) for path, _, key in expected} == {
        ("a.md", "b"),
        ("a.md", "c"),
        ("sub/b.md", "a"),
    }
    assert stale_and_missing(expected.elements(), expected) == (0, 0)

    (folder / "a.md").write_text("# A\n\nSee [[b]] and C.\n", encoding="utf-8")
    after = knotwork_expected(folder)
    assert stale_and_missing(expected.elements(), after) == (1, 0)
    # A relation held twice but asserted once is one stale relation.
    doubled = [*after.elements(), *after.elements()]
    assert stale_and_missing(doubled, after) == (sum(after.values()), 0)


def test_the_sides_take_turns_going_first_warm_up_rounds_included() -> None:
    orders = [sides_in_round(r) for r in range(-1, 4)]
    assert orders[0] == ("llamaindex", "knotwork")  # a warm-up round
    assert orders[1:] == [
        ("knotwork", "llamaindex"),
        ("llamaindex", "knotwork"),
        ("knotwork", "llamaindex"),
        ("llamaindex", "knotwork"),
    ]


def test_questions_name_a_note_and_none_are_asked_when_none_are_wanted(tmp_path: Path) -> None:
    (tmp_path / "Alpha note.md").write_text("Lighthouses guard harbours at night.\n", "utf-8")
    asked = questions(tmp_path, 2, seed=5)
    assert len(asked) == 2 + QUESTIONS_UNTIMED
    assert all(q.startswith("What does Alpha note say about ") for q in asked)
    assert questions(tmp_path, 0, seed=5) == []


def test_a_side_past_its_memory_limit_is_stopped_and_recorded_not_finished() -> None:
    grow = (
        "import time\nheld = []\nwhile True:\n    held.append(b'x' * 20**6)\n    time.sleep(0.05)"
    )
    failed = run_watched([sys.executable, "-c", grow], dict(os.environ), 150, timeout=60)
    assert failed is not None and failed.startswith("stopped at ") and "GB resident" in failed

    slow = run_watched(
        [sys.executable, "-c", "import time; time.sleep(30)"], dict(os.environ), 10_000, 0.5
    )
    assert slow is not None and "--timeout 0" in slow  # stopped well before its 30 s
    assert run_watched([sys.executable, "-c", "pass"], dict(os.environ), 10_000, None) is None
    crashed = run_watched(
        [sys.executable, "-c", "raise SystemExit(3)"], dict(os.environ), 10_000, None
    )
    assert crashed is not None and crashed.startswith("exited with status 3")


def test_a_side_that_did_not_finish_shows_as_a_dash_and_a_note(tmp_path: Path) -> None:
    def row(seconds: float) -> dict[str, Any]:
        summary = {"median_ms": 10.0, "p95_ms": 20.0}
        return {
            "notes": 100,
            "chunks": 200,
            "seconds": seconds,
            "edit": summary,
            "delete": summary,
            "retrieve": summary,
            "peak_rss_mb": 100.0,
            "links": 5,
            "stale": 0,
            "missing": 0,
        }

    workload = Workload("generated vault, 100 notes", tmp_path, generated=True)
    workload.rows["knotwork"] = [row(1.0), row(3.0)]
    workload.rows["llamaindex"] = [{"failed": "stopped at 12.1 GB resident after 300 s"}, row(4.0)]
    text = table(workload, updates=20, questions=20)
    assert "| notes/s | 66.7 (100.0, 33.3) | 25.0 (—, 25.0) | 2.67\N{MULTIPLICATION SIGN} |" in text
    assert "LlamaIndex, round 1: did not finish (stopped at 12.1 GB resident after 300 s)." in text

    workload.rows["llamaindex"] = [{"failed": "stopped after 60 s (--timeout 60)"}]
    workload.rows["knotwork"] = [row(2.0)]
    lone = table(workload, updates=20, questions=20)
    assert "| notes/s | 50.0 | — |  |" in lone
