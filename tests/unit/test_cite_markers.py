"""One inline marker, one entry of ``citations``: two cited chunks of one section (a long
section split, two ``## Log`` in a note) are told apart by their lines, and a client finds each
entry's marker by exact text, as the README says."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from knotwork.answer.cite import check_citations
from knotwork.answer.cite_match import markers
from knotwork.answer.cite_stream import CitationStream
from knotwork.answer.prompt import build_prompt
from knotwork.answer.respond import finish
from knotwork.retrieve import Evidence
from tests.conftest import hit

# Garden.md holds "## Log" twice: two chunks of one label, as the review's repro had them.
HARVEST = replace(hit("Garden.md", "Garden > Log", "Harvested in August."), line_start=49)
HARVEST = replace(HARVEST, id="Garden.md#Log/2", line_end=51)
PLANTING = replace(hit("Garden.md", "Garden > Log", "Planted in May.", line=45), line_end=47)
ALICE = hit("People/Alice.md", "Alice > Work", "Alice works at Acme.")
HITS = [HARVEST, PLANTING, ALICE]
SOURCES = {1: HARVEST, 2: PLANTING, 3: ALICE}


def client_markers(citations: list[Any]) -> list[str]:
    """The README's rule, as a client would write it from the entries alone."""
    found: list[str] = []
    for c in citations:
        name = f"{c.path}#{c.heading}" if c.heading else c.path
        lined, number = f"[{name}:{c.line_start}-{c.line_end}", 2
        written = f"[{name}]" if f"[{name}]" not in found else f"{lined}]"
        while written in found:  # that too taken: numbered, the first number free
            written, number = f"{lined} ({number})]", number + 1
        found.append(written)
    return found


def test_two_chunks_of_one_label_get_one_marker_each() -> None:
    raw = "Tomatoes were planted in May [S2] and harvested in August [S1]. Acme [S3]."
    checked = check_citations(raw, HITS, SOURCES)
    assert checked.text == (
        "Tomatoes were planted in May [Garden.md#Garden > Log] and harvested in August "
        "[Garden.md#Garden > Log:49-51]. Acme [People/Alice.md#Alice > Work]."
    )
    assert checked.cited == [PLANTING, HARVEST, ALICE]
    assert checked.markers == markers(checked.cited) == client_markers(checked.cited)


def test_a_client_maps_each_marker_to_the_entry_whose_lines_hold_the_claim() -> None:
    """Through ``finish``, as REST, MCP and the CLI answer: each sentence's marker names the
    entry of ``citations`` whose chunk says what the sentence claims."""
    evidence = Evidence(HITS, {})
    prompt = build_prompt("When were the tomatoes planted and harvested?", evidence, 8192)
    assert prompt.sources == SOURCES
    raw = "Planted in May [S2]. Harvested in August [S1]. Harvested in August [S1]."
    result = finish(evidence, raw, time.perf_counter(), prompt)
    assert result.status == "ok" and result.answer is not None
    entries = dict(zip(client_markers(result.citations), result.citations, strict=True))
    assert len(entries) == 2
    for sentence in result.answer.split(". "):
        found = [entry for written, entry in entries.items() if written in sentence]
        assert len(found) == 1, sentence
        chunk = next(h for h in HITS if h.line_start == found[0].line_start)
        assert sentence.startswith(chunk.text.rstrip(".")), (sentence, found[0])


def test_one_chunk_per_label_keeps_the_plain_label() -> None:
    checked = check_citations("Planted [S2]. Works [S3]. Again [S2].", HITS, SOURCES)
    assert checked.text == (
        "Planted [Garden.md#Garden > Log]. Works [People/Alice.md#Alice > Work]. "
        "Again [Garden.md#Garden > Log]."
    )


def test_a_marker_with_lines_written_by_the_model_cites_that_chunk() -> None:
    """The prompt names each block with its lines: a model may copy them into its citation."""
    raw = "Harvested [Garden.md#Garden > Log:49-51]. Planted [Garden.md#Garden > Log:45-47]."
    checked = check_citations(raw, HITS, SOURCES)
    assert checked.cited == [HARVEST, PLANTING] and checked.dropped == []
    assert checked.text == (
        "Harvested [Garden.md#Garden > Log]. Planted [Garden.md#Garden > Log:45-47]."
    )


def test_the_streamed_markers_are_the_checked_ones() -> None:
    raw = "Planted [S2] and harvested [S1, S2]; Acme [S3] [S1]."
    whole = check_citations(raw, HITS, SOURCES)
    assert whole.markers[1] == "[Garden.md#Garden > Log:49-51]"
    for size in (1, 2, 5):
        stream = CitationStream(HITS, SOURCES)
        pieces = [stream.feed(raw[i : i + size]) for i in range(0, len(raw), size)]
        assert "".join([*pieces, stream.close()]) == whole.text
        assert stream.checked.markers == whole.markers


def test_a_heading_named_like_a_marker_with_lines_takes_no_other_chunks_marker() -> None:
    """P.md holds "## Log" twice and "## Log:3-4": the second Log chunk's marker with lines
    is already the third heading's label, so it is numbered; each marker names one entry."""
    first = replace(hit("P.md", "Log", "Slate decided."), id="P.md#Log/1", line_end=2)
    second = replace(hit("P.md", "Log", "Tiles ordered.", line=3), id="P.md#Log/2", line_end=4)
    named = replace(hit("P.md", "Log:3-4", "Gutter cleaned.", line=5), line_end=6)
    hits = [first, second, named]
    raw = "Slate was decided [S1], the gutter cleaned [S3] and tiles ordered [S2]."
    checked = check_citations(raw, hits, {1: first, 2: second, 3: named})
    assert checked.text == (
        "Slate was decided [P.md#Log], the gutter cleaned [P.md#Log:3-4] and tiles ordered "
        "[P.md#Log:3-4 (2)]."
    )
    assert checked.markers == markers(checked.cited) == client_markers(checked.cited)
    assert len(set(checked.markers)) == 3
    assert markers([named, first, second, second]) == [
        "[P.md#Log:3-4]", "[P.md#Log]", "[P.md#Log:3-4 (2)]", "[P.md#Log:3-4 (3)]"
    ]  # fmt: skip
