"""Retrieval configurations as data (retrieve/config.py) and the retrievers behind one protocol
(retrieve/retrievers.py): each ablation is the full pipeline less one part, and every strategy
is a ``Retriever`` the context can start."""

from __future__ import annotations

import inspect
from dataclasses import fields

import pytest

from knotwork.retrieve import retrievers
from knotwork.retrieve.config import (
    ABLATIONS,
    DEFAULT,
    FULL,
    FUSION_ORDER,
    HITS_PPR_WEIGHT,
    HITS_WALK_WEIGHT,
    NAMED_FUSION_WEIGHT,
    NAMED_SHARE_FULL,
    PRESETS,
    RetrievalConfig,
)
from knotwork.retrieve.context import NEEDS, Retriever
from knotwork.retrieve.types import RETRIEVERS

FUSION = [f.name for f in fields(RetrievalConfig) if f.name not in ("retrievers", "ppr")]


def test_full_runs_every_retriever_with_pagerank_and_default_leaves_pagerank_to_settings() -> None:
    assert FULL.retrievers == frozenset(RETRIEVERS) and FULL.ppr is True
    assert DEFAULT.retrievers == FULL.retrievers and DEFAULT.ppr is None
    assert PRESETS["full"] is FULL


@pytest.mark.parametrize("name", ABLATIONS)
def test_each_ablation_is_the_full_config_less_one_part(name: str) -> None:
    config, part = PRESETS[name], name.removeprefix("no-")
    if part == "ppr":
        assert config.retrievers == FULL.retrievers and config.ppr is False
    elif part == "note-vector":  # dense retrieval by the chunks' own vectors alone
        assert config.retrievers == FULL.retrievers and config.ppr is True
        assert config.note_share == 0.0 < FULL.note_share
    else:
        assert config.retrievers == FULL.retrievers - {part} and config.ppr is True
    # Nothing else differs: the fusion's weights and bounds are the full pipeline's.
    changed = {"note_share"} if part == "note-vector" else set()
    assert all(getattr(config, f) == getattr(FULL, f) for f in FUSION if f not in changed)


def test_the_ablations_cover_every_retriever_and_pagerank_in_the_eval_order() -> None:
    assert tuple(f"no-{p}" for p in (*RETRIEVERS, "ppr", "note-vector")) == ABLATIONS
    assert list(PRESETS)[:4] == ["dense", "fulltext", "hybrid", "full"]


def test_text_baselines_rank_without_the_graph() -> None:
    assert PRESETS["dense"] == RetrievalConfig(frozenset({"vector"}), ppr=False)
    assert PRESETS["fulltext"] == RetrievalConfig(frozenset({"fulltext"}), ppr=False)
    assert PRESETS["hybrid"].retrievers == {"vector", "fulltext"}
    assert PRESETS["hybrid"].label == "fulltext+vector"
    assert FULL.label == "+".join(sorted(RETRIEVERS)) + " + PPR"


def test_unknown_names_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown retrievers"):
        RetrievalConfig(frozenset({"vector", "bm25"}))
    with pytest.raises(ValueError, match="is not among"):
        PRESETS["dense"].without("graph")


def test_the_graph_weighs_what_the_question_names() -> None:
    """The named-weight rule: names, the graph and PageRank count the named note's specificity
    times NAMED_FUSION_WEIGHT; naming nothing, the walk from the best hits counts
    HITS_WALK_WEIGHT and PageRank HITS_PPR_WEIGHT."""
    assert FULL.weights(0.0) == {"names": 0.0, "graph": HITS_WALK_WEIGHT, "ppr": HITS_PPR_WEIGHT}
    named = NAMED_FUSION_WEIGHT
    assert FULL.weights(1.0) == {"names": named, "graph": named, "ppr": named}
    low = 0.5 * HITS_PPR_WEIGHT / NAMED_FUSION_WEIGHT
    assert FULL.weights(low)["ppr"] == HITS_PPR_WEIGHT


def test_a_name_the_question_is_not_about_weighs_less() -> None:
    """Under NAMED_SHARE_FULL of the question's content words, the names' weight shrinks in
    proportion; from it up, it is whole. Naming nothing keeps the hits' weights as floor."""
    whole = FULL.weights(1.0, share=NAMED_SHARE_FULL)
    assert whole == FULL.weights(1.0, share=1.0) == FULL.weights(1.0)
    half = FULL.weights(1.0, share=NAMED_SHARE_FULL / 2)
    assert half["names"] == half["graph"] == NAMED_FUSION_WEIGHT / 2
    assert FULL.weights(1.0, share=0.0) == FULL.weights(0.0)
    off = RetrievalConfig(named_share_full=0.0)
    assert off.weights(1.0, share=0.01) == FULL.weights(1.0)


def test_every_retriever_satisfies_the_protocol() -> None:
    assert [r.name for r in retrievers.RETRIEVERS] == list(FUSION_ORDER)
    assert sorted(FUSION_ORDER) == sorted(RETRIEVERS)
    for retriever in retrievers.RETRIEVERS:
        assert isinstance(retriever, Retriever)
        assert inspect.iscoroutinefunction(retriever.rank)
        assert retriever.needs <= NEEDS, retriever.name
    seeds = [r.name for r in retrievers.RETRIEVERS if r.seed]
    assert seeds == ["vector", "fulltext", "names", "temporal"]  # the walks come after them
    needing = {r.name for r in retrievers.RETRIEVERS if "keywords" in r.needs}
    assert needing == {"synonym"}  # the only one that calls the chat model


@pytest.mark.parametrize("name", list(PRESETS))
def test_a_config_runs_its_retrievers_in_the_fusion_order(name: str) -> None:
    chosen = [r.name for r in retrievers.for_config(PRESETS[name])]
    assert chosen == [r for r in FUSION_ORDER if r in PRESETS[name].retrievers]


def test_dense_ranks_by_the_chunk_and_its_note_and_keeps_the_chunk_score() -> None:
    # (chunk, own score, its note's): b's own text is a little less near than a's, but its
    # note is about the question; c's note is not among the nearest notes, so it counts the
    # lowest of theirs (0.5), which no note outside them exceeds.
    found = [("a", 0.80, 0.60), ("c", 0.79, None), ("b", 0.76, 0.90)]
    assert retrievers.note_weighed(found, 0.5, 0.35) == [("b", 0.76), ("a", 0.80), ("c", 0.79)]
    # Without the note's share, or without any note vector, the order is the chunk index's.
    assert retrievers.note_weighed(found, 0.5, 0.0) == [("a", 0.80), ("c", 0.79), ("b", 0.76)]
    assert retrievers.note_weighed([("a", 0.8, None), ("b", 0.9, None)], None, 0.35) == [
        ("b", 0.9),
        ("a", 0.8),
    ]
