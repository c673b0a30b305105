"""Mentions matched in memory: the name index, its per-batch view, and equality with the
plain word-run lookup it replaces."""

from __future__ import annotations

import random

from knotwork.graph.names import NameIndex, NameView
from knotwork.ingest.mentions import chunk_mentions, mention_rows
from knotwork.text.names_found import chunk_grams


def _index() -> NameIndex:
    return NameIndex.from_rows(
        [
            {
                "path": "people/Marco Rossi.md",
                "lpath": "people/marco rossi",
                "mkeys": ["marco rossi"],
            },
            {"path": "Marco Rossi.md", "lpath": "marco rossi", "mkeys": ["marco rossi", "mr x"]},
            {"path": "Graph.md", "lpath": "graph", "mkeys": ["graph", "knowledge graph"]},
        ]
    )


def test_shortest_path_wins_and_a_note_never_mentions_itself() -> None:
    index = _index()
    assert index.resolve("marco rossi", "other.md") == "Marco Rossi.md"
    assert index.resolve("graph", "Graph.md") is None
    assert index.resolve("nobody", "x.md") is None


def test_a_note_s_own_names_mention_no_namesake() -> None:
    """A name the note bears itself, written in its text ("# Marco Rossi"), is the note's
    own, from either bearer; its other names' keys still name other notes."""
    index = _index()
    assert index.resolve("marco rossi", "Marco Rossi.md") is None
    assert index.resolve("marco rossi", "people/Marco Rossi.md") is None
    assert index.resolve("graph", "people/Marco Rossi.md") == "Graph.md"
    assert index.resolve("mr x", "people/Marco Rossi.md") == "Marco Rossi.md"
    view = NameView(index)
    view.put("b/Marco Rossi.md", "b/marco rossi", ["marco rossi"])
    assert view.resolve("marco rossi", "b/Marco Rossi.md") is None
    assert view.resolve("marco rossi", "x.md") == "Marco Rossi.md"
    chunk = {
        "id": "c",
        "text": "# Marco Rossi\n\nMarco Rossi drew the graph.",
        "line_map": [1, 2, 3],
    }
    rows, _ = mention_rows("people/Marco Rossi.md", [chunk], index)
    assert [(r["target_path"], r["props"]["line"]) for r in rows] == [("Graph.md", 3)]


def test_case_variants_resolve_by_exact_path_after_the_folded_one() -> None:
    index = NameIndex.from_rows(
        [
            {"path": "b/ALICE.md", "lpath": "b/alice", "mkeys": ["alice"]},
            {"path": "b/Alice.md", "lpath": "b/alice", "mkeys": ["alice"]},
        ]
    )
    assert index.resolve("alice", "x.md") == "b/ALICE.md"  # 'A' < 'a': stable, not history


def test_link_targets_resolve_as_obsidian_and_follow_removals() -> None:
    """Obsidian's rule, the one every written or moved link follows: path equal to the key or
    ending in '/' + key, shortest first, then by folded path, then by path (capitals first)."""
    index = _index()
    index.put("b/ALICE.md", "b/alice", [])
    index.put("b/Alice.md", "b/alice", [])
    index.put("Talice.md", "talice", [])  # same ending, not the same last segment
    assert index.link_target("marco rossi") == "Marco Rossi.md"
    assert index.link_target("people/marco rossi") == "people/Marco Rossi.md"
    assert index.link_target("ople/marco rossi") is None  # a segment must match whole
    assert index.link_target("alice") == "b/ALICE.md"
    assert index.link_target("b/alice") == "b/ALICE.md"
    assert index.link_target("knowledge graph") is None  # a mention name is not a link key
    index.remove("Marco Rossi.md")
    assert index.link_target("marco rossi") == "people/Marco Rossi.md"
    index.remove("b/ALICE.md")
    assert index.link_target("alice") == "b/Alice.md"
    index.remove("people/Marco Rossi.md")
    assert index.link_target("marco rossi") is None


def test_view_shows_the_batch_and_leaves_the_index_until_applied() -> None:
    index = _index()
    view = NameView(index)
    view.remove("Marco Rossi.md")
    view.put("a/New.md", "a/new", ["graph"])  # ties with Graph.md on length, wins on lpath
    view.put("G.md", "g", ["graph"])
    assert view.resolve("marco rossi", "x.md") == "people/Marco Rossi.md"
    assert view.resolve("graph", "x.md") == "G.md"
    assert view.resolve("mr x", "x.md") is None
    assert view.starts("mr") is True  # first words are a filter, not a truth
    assert index.resolve("marco rossi", "x.md") == "Marco Rossi.md"  # untouched
    view.apply()
    assert index.resolve("marco rossi", "x.md") == "people/Marco Rossi.md"
    assert index.resolve("graph", "x.md") == "G.md"
    assert "Marco Rossi.md" not in index and len(index) == 4


def test_matching_equals_the_lookup_of_every_word_run() -> None:
    """chunk_mentions builds only runs that start a name; the result must equal looking up
    every run chunk_grams yields and keeping the smallest (line, key) per note."""
    rng = random.Random(3)
    words = ["marco", "rossi", "graph", "knowledge", "mr", "x", "the", "of", "`code`", "[[Graph]]"]
    index = _index()
    for _ in range(300):
        lines = [
            " ".join(rng.choices(words, k=rng.randint(0, 9))) for _ in range(rng.randint(1, 5))
        ]
        if rng.random() < 0.2:
            lines.insert(rng.randint(0, len(lines)), "```")
        text = "\n".join(lines)
        line_map = tuple(range(10, 10 + len(lines)))
        expected: dict[str, tuple[int, str]] = {}
        for gram, line in sorted(chunk_grams(text, line_map).items(), key=lambda g: (g[1], g[0])):
            target = index.resolve(gram, "me.md")
            if target is not None:
                expected.setdefault(target, (line, gram))
        assert chunk_mentions(text, line_map, index, "me.md") == expected, text


def test_mention_rows_are_one_fact_per_chunk_and_note() -> None:
    chunks = [
        {"id": "c1", "text": "Marco Rossi and marco rossi, the knowledge graph", "line_map": [4]},
        {"id": "c2", "text": "no names here", "line_map": [6]},
    ]
    rows, strings = mention_rows("me.md", chunks, _index())
    assert [(r["target_path"], r["props"]["target"]) for r in rows] == [
        ("Graph.md", "graph"),  # (line, key): 'graph' < 'knowledge graph' on the same line
        ("Marco Rossi.md", "marco rossi"),
    ]
    assert strings == ["MENTIONS||graph|mention|4||c1", "MENTIONS||marco rossi|mention|4||c1"]
    assert all(r["props"]["source"] == "me.md" for r in rows)


def test_view_resolves_links_as_the_batch_leaves_the_names() -> None:
    """A single edit resolves its links, and re-points other notes' links, against the graph's
    names with the batch applied: removed notes gone, added or moved ones in, the base's own
    order kept among the rest."""
    index = _index()
    view = NameView(index)
    view.remove("Marco Rossi.md")
    assert view.link_target("marco rossi") == "people/Marco Rossi.md"
    view.put("Marco Rossi.md", "marco rossi", [])  # deleted and written again in the batch
    assert view.link_target("marco rossi") == "Marco Rossi.md"
    view.put("x/Graph.md", "x/graph", [])  # longer than Graph.md: the base's note still wins
    assert view.link_target("graph") == "Graph.md"
    view.remove("Graph.md")
    assert view.link_target("graph") == "x/Graph.md"
    assert view.link_target("x/graph") == "x/Graph.md"
    view.put("New.md", "new", [])
    assert view.link_target("new") == "New.md"
    assert index.link_target("new") is None and index.link_target("graph") == "Graph.md"
