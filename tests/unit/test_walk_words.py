"""How a walk ranks what it reached by the question's own words (retrieve/graphrank.py)."""

from __future__ import annotations

import asyncio
from typing import cast

from knotwork.core import Core
from knotwork.graph.queries.reads import ReachedChunk, WalkScoresRow
from knotwork.retrieve.graphrank import lexical, question_stems, walk_ranking
from knotwork.retrieve.walk import Walk


def _chunk(path: str, cosine: float, held: list[int]) -> ReachedChunk:
    return {"path": path, "note": path, "id": f"c-{path}", "ord": 0, "score": cosine, "held": held}


def test_the_stems_leave_out_stop_words_and_the_seeds_names() -> None:
    seeds = ["note:films/Billy Elliot.md", "entity:stephen daldry"]
    stems = question_stems("Where was the composer of film Billy Elliot born, Daldry?", seeds)
    assert stems == ("compos", "film", "born")


def test_a_word_few_reached_chunks_hold_weighs_more() -> None:
    chunks = [_chunk("a", 0.5, [1]), _chunk("b", 0.5, [1]), _chunk("c", 0.5, [0, 1])]
    share = lexical(chunks)
    assert share["c-c"] == 1.0  # holds every word
    assert share["c-a"] == share["c-b"] < 0.5  # "born" alone, which most of them hold
    assert lexical([_chunk("a", 0.5, [])]) == {}


def test_the_neighbour_holding_the_questions_words_ranks_first() -> None:
    """Among a film's cast and crew, the page that says "composer" is what the question
    about the composer asks for, though an actor's page is a little nearer by cosine."""
    walk = Walk(names={"film": "note:Film.md"}, depth={"film": 0})
    for path in ("Ann.md", "Ben.md", "Cy.md"):
        walk.names[path] = f"note:{path}"
        walk.depth[path] = 1
        walk.parent[path] = ("film", "MENTIONS", None)
    core = cast(Core, None)  # not read: the scores are given

    def first(ann: list[int], ben: list[int], cy: list[int]) -> str:
        scores: WalkScoresRow = {
            "notes": [
                _chunk("Ann.md", 0.50, ann),
                _chunk("Ben.md", 0.48, ben),
                _chunk("Cy.md", 0.45, cy),
            ],
            "asserting": [],
        }
        found = asyncio.run(walk_ranking(core, "t", walk, [1.0], {}, scores, ("compos", "born")))
        return found[0][0]

    assert first([], [], []) == "c-Ann.md"  # by cosine alone
    assert first([1], [1], [0, 1]) == "c-Cy.md"  # "compos" only Cy's page holds
    assert first([0, 1], [1], [0, 1]) == "c-Ann.md"  # … unless Ann's holds it too


def test_the_question_beyond_the_names_it_writes_out() -> None:
    from knotwork.retrieve.search import beyond_names

    question = "Who wrote the music of Film X?"
    assert beyond_names(question, ["film x"]) == "who wrote the music of"  # for full text
    assert beyond_names(question, []) is None  # names nothing: the whole question
    assert beyond_names("What is Film X?", ["film x"]) is None  # only stop words left
    # A spaceless name goes where it is written whole; the characters left stay runs.
    assert beyond_names("東京タワーと京都の距離", ["東 京 タ ワ ー"]) == "と京都の距離"
    assert beyond_names("서울 인구는?", ["서 울"]) == "인구는"


def test_a_spaceless_question_counts_its_characters() -> None:
    """A Chinese or Korean question is about the note it names by its characters: each one
    is a word of the question, and the walk's stems are its pairs of neighbours."""
    from knotwork.retrieve.graphrank import question_stems
    from knotwork.retrieve.search import NamedNote, named_share

    assert named_share("서울 인구", [NamedNote("서 울", "서울.md", "x", ())]) == 0.5
    assert question_stems("北京大学的校长", ["note:北京.md"]) == (
        "京 大",
        "大 学",
        "学 的",
        "的 校",
        "校 长",
    )


def test_two_rankings_interleave_by_rank_keeping_their_scores() -> None:
    from knotwork.retrieve.retrievers import interleave

    merged = interleave([("a", 9.0), ("b", 8.0)], [("c", 0.5), ("d", 0.4), ("e", 0.3)])
    assert merged == [("a", 9.0), ("c", 0.5), ("b", 8.0), ("d", 0.4), ("e", 0.3)]
