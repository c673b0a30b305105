"""The bodies of ``/query`` and ``/retrieve`` (and so MCP ``ask``, ``retrieve``, ``explain``)
cut a heading, a fact's names and value and a graph path's entity nodes at TEXT_CHARS, as a
snippet is; paths stay whole (a ``note:`` node too), and the answer's marker of a cut heading is
cut alike, so a client still finds each citation's marker in the answer by exact text. A cut
heading ends in a hash of the whole one: headings that start alike stay apart, as their
markers must, and a heading that starts another's never rewrites the other's marker."""

from __future__ import annotations

import hashlib

import knotwork.answer.respond as respond
import knotwork.api.clipped as clipped_module
from knotwork.answer.cite_match import markers
from knotwork.answer.respond import Answer, Cited
from knotwork.api.clipped import clipped, clipped_heading
from knotwork.api.cut_markers import MarkerCut
from knotwork.api.schemas import CitationOut, query_response
from knotwork.mcp.bounded import note_page
from knotwork.retrieve import FactRow, Hit, HopPath
from knotwork.text.quoted import TEXT_CHARS

HEADING = "Quokka " * 8000
PATH = "Notes/" + "deep/" * 100 + "long.md"  # 511 characters: a path is not cut


def _cited(heading: str, lines: tuple[int, int] = (1, 3), path: str = PATH) -> Cited:
    return Cited(f"{path}:{lines[0]}", path, heading, *lines, 0.5, "quokkas")


def _answer(text: str, *cited: Cited) -> Answer:
    return Answer(status="ok", answer=text, citations=list(cited))


def _found_once(answer: str | None, citations: list[CitationOut]) -> list[str]:
    """Each citation's marker by the README's rule on the body, each found once in ``answer``."""
    found = markers(citations)
    assert answer is not None and all(answer.count(m) == 1 for m in found), (found, answer)
    return found


def test_clipped_cuts_past_the_bound_with_an_ellipsis() -> None:
    assert clipped("short") == "short"
    assert clipped("x" * TEXT_CHARS) == "x" * TEXT_CHARS
    cut = clipped("x" * (TEXT_CHARS + 1))
    assert len(cut) == TEXT_CHARS and cut.endswith("…")


def test_a_cut_heading_ends_in_the_hash_of_the_whole_heading() -> None:
    assert clipped_heading("x" * TEXT_CHARS) == "x" * TEXT_CHARS
    cut = clipped_heading(HEADING)
    digest = hashlib.sha256(HEADING.encode()).hexdigest()[:12]
    assert len(cut) == TEXT_CHARS and cut.endswith(f"… sha256:{digest}"), cut
    assert HEADING.startswith(cut.split("…")[0])


def test_the_snippet_and_the_quoted_text_share_one_bound() -> None:
    """A snippet is cut as a heading's start or a fact's value is: at the one bound, ending
    in "…" (it stopped mid-word with no sign of the cut)."""
    assert clipped_module.TEXT_CHARS is TEXT_CHARS and not hasattr(respond, "SNIPPET_CHARS")
    text = "Vendor08 supplies items. " * 40
    hit = Hit(
        id="c1", path=PATH, title="T", heading="H", line_start=1, line_end=2, text=text, score=1.0
    )
    snippet = Cited.of(hit).snippet
    assert len(snippet) == TEXT_CHARS and snippet == text[: TEXT_CHARS - 1] + "…"
    short = Hit(
        id="c2", path=PATH, title="T", heading="H", line_start=1, line_end=2, text="ok", score=1.0
    )
    assert Cited.of(short).snippet == "ok"


def test_a_query_body_cuts_headings_facts_and_entities_but_not_paths() -> None:
    fact = FactRow(PATH, "SUMMARY", "wombat " * 5000, PATH, "frontmatter", 1.0, 2, PATH)
    note = "note:" + PATH
    answer = Answer(
        status="ok",
        answer=f"Quokkas live in the outback [{PATH}#{HEADING}].",
        citations=[_cited(HEADING)],
        dropped_citations=["[Nowhere.md#" + "x" * 5000 + "]"],
        facts=[fact],
        paths=[HopPath((note, "entity:" + "y" * 5000), ("MENTIONS",), PATH)],
    )
    body = query_response(answer)
    [citation] = body.citations
    assert citation.path == PATH and citation.heading == clipped_heading(HEADING)
    assert body.answer == f"Quokkas live in the outback [{PATH}#{citation.heading}]."
    assert len(body.facts[0].object) == TEXT_CHARS and body.facts[0].source == PATH
    note_node, entity = body.paths[0].nodes
    assert note_node == note, note_node  # the note's path, whole: it names the note to read
    assert len(entity) == TEXT_CHARS and entity.endswith("…")
    assert len(body.dropped_citations[0]) == TEXT_CHARS
    assert len(body.model_dump_json()) < 8_000  # whole: over 150,000


def test_sibling_headings_that_start_alike_stay_apart() -> None:
    """Two sections whose headings share their first 300 characters were both cited by one
    text: the citations and their markers could not be told apart."""
    one, two = _cited(HEADING + "one", (1, 3)), _cited(HEADING + "two", (5, 7))
    body = query_response(
        _answer(f"A [{PATH}#{one.heading}] and B [{PATH}#{two.heading}].", one, two)
    )
    first, second = body.citations
    assert first.heading != second.heading
    assert all(len(c.heading) <= TEXT_CHARS for c in body.citations)
    found = _found_once(body.answer, body.citations)
    assert body.answer == f"A {found[0]} and B {found[1]}."
    assert found == [f"[{PATH}#{first.heading}]", f"[{PATH}#{second.heading}]"]
    # A client finds the section: get_note cuts its chunk's heading path alike.
    detail = {
        "note": {"path": PATH, "aliases": [], "tags": [], "dates": []},
        "chunks": [{"id": "c", "heading_path": one.heading, "text": "t"}],
        "facts": [],
    }
    page = note_page(detail, chunk_offset=0, chunk_limit=5, fact_offset=0, fact_limit=5)
    assert page["chunks"][0]["heading_path"] == first.heading


def test_a_heading_that_starts_another_leaves_its_marker_alone() -> None:
    """A cited heading that starts another's (a section and its subsection, cut or not): its
    marker's start was replaced inside the other's marker too, which then cited nothing."""
    section, sub = HEADING, HEADING + " > Burrows"
    short = "w" * (TEXT_CHARS - 10)
    longer = short + "z" * 20  # cut: its start is the short heading's
    cited = [
        _cited(section, (1, 3)),
        _cited(sub, (4, 6)),
        _cited(section, (7, 9)),  # the section's second chunk: its marker has its lines
        _cited(short, (10, 12)),
        _cited(longer, (13, 15)),
    ]
    whole = markers(cited)
    assert whole[2] == f"[{PATH}#{section}:7-9]"
    body = query_response(_answer("Q " + " and ".join(whole) + ".", *cited))
    found = _found_once(body.answer, body.citations)
    assert body.answer == "Q " + " and ".join(found) + "."
    assert found[3] == f"[{PATH}#{short}]" and len(set(found)) == len(found)
    assert len(body.answer or "") < 5_000  # whole: over 170,000


def test_a_streamed_answer_is_cut_alike_even_with_its_markers_split() -> None:
    """Token texts carried the whole heading while the final answer cut it; a token that ends
    inside a marker is held until the marker is complete."""
    one, two = _cited(HEADING + "one", (1, 3)), _cited(HEADING + "one > Sub", (4, 6))
    text = f"[x] A [{PATH}#{one.heading}] and B [{PATH}#{two.heading}]: [{PATH}#{one.heading}] ["
    final = query_response(_answer(text, one, two)).answer
    for size in (3, 1000, len(text)):
        cut = MarkerCut([two, one])  # evidence order, not citation order
        pieces = [cut.feed(text[i : i + size]) for i in range(0, len(text), size)]
        pieces.append(cut.close())
        assert "".join(pieces) == final, size
        assert all(len(p) <= len(final or "") < 3_000 for p in pieces), size  # whole: 170,000
    cut = MarkerCut([one])
    assert cut.feed(f"Quokkas [{PATH}#Quokka Quo") == "Quokkas "  # held: a marker may follow
    assert cut.feed("kka ") == "" and cut.close() == f"[{PATH}#Quokka Quokka "
