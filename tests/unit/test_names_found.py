"""Names written in unspaced scripts: overlapping names settled leftmost-longest."""

from __future__ import annotations

from knotwork.graph.names import NameIndex
from knotwork.ingest.mentions import chunk_mentions
from knotwork.text.keys import name_key
from knotwork.text.names_found import leftmost_longest, names_found, question_names


def _index(*stems: str) -> NameIndex:
    return NameIndex.from_rows(
        [{"path": f"{s}.md", "lpath": s, "mkeys": [name_key(s) or ""]} for s in stems]
    )


def test_the_tail_of_a_longer_name_is_no_name() -> None:
    """ "東京都庁" (the Tokyo Metropolitan Government building) holds 京都 (Kyoto) only as the
    overlap of 東京 and 都: the leftmost name, 東京, consumes 京."""
    index = _index("京都", "東京", "都庁")
    text = "# 都庁\n\n東京都庁に行った。展望台が無料。"
    assert chunk_mentions(text, (1, 2, 3), index, "メモ.md") == {
        "東京.md": (3, "東 京"),
        "都庁.md": (1, "都 庁"),  # the heading; 庁 and 都 after 東京 too
    }
    # 都庁 mentions no namesake of its own, yet its name still consumes what it is written with.
    assert chunk_mentions(text, (1, 2, 3), index, "都庁.md") == {"東京.md": (3, "東 京")}


def test_names_that_do_not_overlap_all_count() -> None:
    index = _index("京都", "東京")
    found = chunk_mentions("東京から京都まで。", (4,), index, "旅.md")
    assert found == {"東京.md": (4, "東 京"), "京都.md": (4, "京 都")}
    # The longest name starting leftmost wins: 北京大学, not 北京 inside it.
    index = _index("北京", "北京大学", "大学")
    assert chunk_mentions("我在北京大学工作", (1,), index, "x.md") == {
        "北京大学.md": (1, "北 京 大 学")
    }
    # A name consumed in one place still counts where it stands alone (the line of that place).
    index = _index("京都", "東京")
    found = chunk_mentions("東京都庁\n京都の寺", (1, 2), index, "x.md")
    assert found == {"東京.md": (1, "東 京"), "京都.md": (2, "京 都")}


def test_thai_names_overlap_by_letters_too() -> None:
    """Thai runs words together: the leftmost name consumes the letters it is written with."""
    names = {name_key("ไปเชียง"), name_key("เชียงใหม่")}
    found = names_found("ฉันไปเชียงใหม่", (1,), names.__contains__)
    assert set(found) == {name_key("ไปเชียง")}


def test_spaced_words_are_never_consumed() -> None:
    """Latin names keep matching as they always did: inside one another and side by side."""
    found = names_found(
        "Lunch with Marco Rossi", (1,), {"marco", "marco rossi", "rossi"}.__contains__
    )
    assert set(found) == {"marco", "marco rossi", "rossi"}
    assert leftmost_longest(["a", "b", "c"], [(0, 2), (1, 3)]) == [(0, 2), (1, 3)]
    assert leftmost_longest(["東", "京", "都"], [(1, 3), (0, 2)]) == [(0, 2)]


def test_a_question_names_what_its_leftmost_longest_names_are() -> None:
    """Retrieval asks the graph which of a question's runs are names, then keeps these."""
    assert question_names("東京都庁はどこ\uff1f", {"東 京", "京 都"}) == {"東 京"}
    assert question_names("東京都庁はどこ\uff1f", {"京 都"}) == {"京 都"}  # nothing overlaps it
    assert question_names("Who is Marco Rossi?", {"marco", "marco rossi"}) == {
        "marco",
        "marco rossi",
    }
