"""The bodies of ``/query`` and ``/retrieve`` (and so MCP ``ask``, ``retrieve``, ``explain``)
cut a heading, a fact's names and value and a graph path's nodes at TEXT_CHARS, as a snippet
is; paths stay whole, and the answer's marker of a cut heading is cut alike, so a client still
finds each citation's marker in the answer by exact text."""

from __future__ import annotations

from knotwork.answer.respond import Answer, Cited
from knotwork.api.clipped import TEXT_CHARS, clipped
from knotwork.api.schemas import query_response
from knotwork.retrieve import FactRow, HopPath

HEADING = "Quokka " * 8000
PATH = "Notes/" + "deep/" * 100 + "long.md"  # 511 characters: a path is not cut


def test_clipped_cuts_past_the_bound_with_an_ellipsis() -> None:
    assert clipped("short") == "short"
    assert clipped("x" * TEXT_CHARS) == "x" * TEXT_CHARS
    cut = clipped("x" * (TEXT_CHARS + 1))
    assert len(cut) == TEXT_CHARS and cut.endswith("…")


def test_a_query_body_cuts_headings_facts_and_nodes_but_not_paths() -> None:
    cited = Cited(PATH, PATH, HEADING, 1, 3, 0.5, "quokkas live in the outback")
    fact = FactRow(PATH, "SUMMARY", "wombat " * 5000, PATH, "frontmatter", 1.0, 2, PATH)
    answer = Answer(
        status="ok",
        answer=f"Quokkas live in the outback [{PATH}#{HEADING}].",
        citations=[cited],
        dropped_citations=["[Nowhere.md#" + "x" * 5000 + "]"],
        facts=[fact],
        paths=[HopPath(("note:" + PATH, "entity:" + "y" * 5000), ("MENTIONS",), PATH)],
    )
    body = query_response(answer)
    [citation] = body.citations
    assert citation.path == PATH and citation.heading == clipped(HEADING)
    assert body.answer == f"Quokkas live in the outback [{PATH}#{citation.heading}]."
    assert len(body.facts[0].object) == TEXT_CHARS and body.facts[0].source == PATH
    assert all(len(node) <= TEXT_CHARS for node in body.paths[0].nodes)
    assert len(body.dropped_citations[0]) == TEXT_CHARS
    assert len(body.model_dump_json()) < 8_000  # whole: over 150,000
