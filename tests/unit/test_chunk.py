"""Chunking: headings bound chunks, ids are stable, an edit changes only its chunk."""

from __future__ import annotations

import unicodedata

import pytest

from knotwork.ingest.chunk import chunk_for_line, chunk_note
from knotwork.ingest.facts import structural_facts
from knotwork.ingest.parse import parse_note
from knotwork.text.anchors import heading_anchor
from knotwork.text.names_found import chunk_grams

TEXT = """---
title: T
---
Intro line.

# One
Para one.

## Sub
Para sub.

```
# not a heading
```

# Two
Para two.
"""


def test_heading_paths_and_lines() -> None:
    chunks = chunk_note(parse_note("T.md", TEXT), "v", 1200)
    assert [c.heading_path for c in chunks] == ["", "One", "One > Sub", "Two"]
    assert chunks[0].line_start == 4 and chunks[0].text == "Intro line."
    assert chunks[2].text.endswith("```") and "# not a heading" in chunks[2].text
    assert chunks[3].line_start == 16 and chunks[3].line_end == 17
    assert chunk_for_line(chunks, 17) == chunks[3].id
    assert chunk_for_line(chunks, 2) is None


def test_ids_are_stable_and_an_edit_changes_only_its_chunk() -> None:
    a = chunk_note(parse_note("T.md", TEXT), "v", 1200)
    b = chunk_note(parse_note("T.md", TEXT.replace("Para sub.", "Para sub, edited.")), "v", 1200)
    assert [c.id for c in a] == [c.id for c in chunk_note(parse_note("T.md", TEXT), "v", 1200)]
    changed = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x.hash != y.hash]
    assert changed == [2]
    assert chunk_note(parse_note("U.md", TEXT), "v", 1200)[0].id != a[0].id


def test_long_sections_are_split_under_the_size() -> None:
    body = "\n\n".join(f"Sentence {i} is here. Another one follows it." for i in range(100))
    chunks = chunk_note(parse_note("L.md", body), "v", 300)
    assert len(chunks) > 5
    assert all(len(c.text) <= 300 for c in chunks)
    one_line = "word " * 2000
    assert all(len(c.text) <= 300 for c in chunk_note(parse_note("W.md", one_line), "v", 300))
    assert (
        "".join(c.text.replace(" ", "") for c in chunk_note(parse_note("W.md", one_line), "v", 300))
        == "word" * 2000
    )


def test_a_long_line_is_cut_at_spaces_and_never_inside_a_link() -> None:
    line = "x" * 95 + " [[Target Note]] " + "y " * 150 + "[see](Other%20(2).md) and [[Last|shown]]"
    chunks = chunk_note(parse_note("W.md", line), "v", 100)
    texts = [c.text for c in chunks]
    assert all(len(t) <= 100 for t in texts), [len(t) for t in texts]
    for link in ("[[Target Note]]", "[see](Other%20(2).md)", "[[Last|shown]]"):
        assert any(link in t for t in texts), link  # whole in one chunk
    assert all(not t.startswith("y") or t.startswith("y ") for t in texts)  # cut at spaces


def test_one_fence_rule_for_parser_chunker_and_mentions() -> None:
    # An inline code line that starts with three backticks is no fence; a four-backtick fence
    # is not closed by three; tildes hold backticks. Old chunker rules disagreed on each.
    text = (
        "# Top\n```js `not a fence` here\n# Real heading\n````\n# in code\n```\nstill code\n"
        "````\n# After\n~~~\n```\n# tilde code\n~~~\n# End\nBob.\n"
    )
    note = parse_note("F.md", text)
    assert [h.text for h in note.headings] == ["Top", "Real heading", "After", "End"]
    chunks = chunk_note(note, "v", 1200)
    headings = {c.heading_path.rsplit(" > ", 1)[-1] for c in chunks}
    assert headings == {"Top", "Real heading", "After", "End"}


def test_a_code_block_split_over_chunks_leaves_its_fence_open_in_the_later_ones() -> None:
    code = "\n".join(f"call_marco_rossi({i})  # Marco Rossi" for i in range(60))
    note = parse_note(
        "Code.md", f"# Code\nBefore.\n\n```python\n{code}\n```\n\nMarco Rossi after.\n"
    )
    chunks = chunk_note(note, "v", 400)
    assert len(chunks) > 3
    assert chunks[1].text.startswith("```python") and chunks[1].fence == ""
    assert sum(c.fence == "```" for c in chunks) >= 2  # the parts past the opening line
    found = [
        line
        for c in chunks
        for gram, line in chunk_grams(c.text, c.line_map, fence=c.fence).items()
        if gram == "marco rossi"
    ]
    assert found == [note.text.splitlines().index("Marco Rossi after.") + 1]


def test_line_numbers_count_only_line_breaks_a_file_has() -> None:
    """U+2028, U+2029, U+0085 and form feeds (pasted from the web, Word, Notion) stay inside
    their line: a chunk's lines and its tags' lines are the file's, as the parser's are."""
    text = (
        "# Title\n\nPasted\u2028soft\u2029break\x85and\x0cfeed #pasted.\r\n\r\n"
        "## Budget\n\nThe budget is 40k. #money\n"
    )
    note = parse_note("T.md", text)
    file = text.replace("\r\n", "\n").split("\n")
    budget = next(i for i, line in enumerate(file, 1) if line == "## Budget")
    assert [h.line for h in note.headings] == [1, budget]
    chunks = chunk_note(note, "v", 1200)
    assert [(c.heading_path, c.line_start, c.line_end) for c in chunks] == [
        ("Title", 1, 3),
        ("Title > Budget", budget, budget + 2),
    ]
    assert "soft\u2029break\x85and\x0cfeed" in chunks[0].text
    tags = {f.object: f.line for f in structural_facts(note, chunks) if f.extractor == "tag"}
    assert tags == {"#pasted": 3, "#money": budget + 2}


@pytest.mark.parametrize(
    "line",
    [
        "# Learning C#",
        "## Closed ##",
        "  ## Indented sub",
        "#\u00a0not a heading",
        "#no space",
        "# a" + " \t" * 5_000 + "x",  # a regex that trims the closing run itself backtracks here
        "####### seven",
    ],
)
def test_the_chunker_and_the_parser_read_headings_alike(line: str) -> None:
    note = parse_note("H.md", f"Intro.\n\n{line}\n\nText.\n")
    chunks = chunk_note(note, "v", 100_000)
    paths = [c.heading_path for c in chunks]
    assert paths == ["", *(heading_anchor(h.text) for h in note.headings)]


def test_a_comment_hides_a_heading_and_is_no_part_of_one_for_the_chunker_and_parser() -> None:
    note = parse_note(
        "H.md",
        "# One %%draft%%\nText.\n%%\n# Hidden\nDraft.\n%%\nMore. `%%`\n%%c%% # Not one\n"
        "#%%c%% Nor this\n# Two `%%`\nEnd. %%x\n# Gone\n",
    )
    chunks = chunk_note(note, "v", 100_000)
    assert [h.text for h in note.headings] == ["One", "Two `%%`"]
    assert [c.heading_path for c in chunks] == ["One", "Two"]  # '%%' refused in a link
    assert "# Hidden" in chunks[0].text and "# Gone" in chunks[1].text  # still searchable
    assert "# Not one" in chunks[0].text and "Nor this" in chunks[0].text  # paragraphs of "One"


def test_a_chunk_after_a_list_items_open_fence_is_read_as_text() -> None:
    """The chunker and the mention grams agree with the parser: the item's unclosed fence ends
    with the item, so a later section is a section and its words are text."""
    text = "# Setup\n\n- ```bash\n  make # not a heading\n\n# Usage\n\nAsk Alice.\n"
    note = parse_note("S.md", text)
    chunks = chunk_note(note, "v", 100_000)
    assert [c.heading_path for c in chunks] == ["Setup", "Usage"]
    usage = chunks[1]
    assert "alice" in chunk_grams(usage.text, usage.line_map, fence=usage.fence)


def test_a_long_line_cut_inside_a_list_items_fence_stays_code() -> None:
    """A line longer than a chunk is cut into pieces without its indent; a piece is part of
    its line, so it does not end the list item whose fence holds it."""
    code = "  " + " ".join(f"step{i}. Alice Smith runs it." for i in range(8))
    note = parse_note("C.md", f"# Run\n\n- ```text\n{code}\n\nAfter.\n")
    chunks = chunk_note(note, "v", 60)
    assert len(chunks) > 2  # the code line was cut
    for chunk in chunks:
        grams = chunk_grams(chunk.text, chunk.line_map, fence=chunk.fence)
        assert "alice smith" not in grams, chunk.text


def test_a_line_of_only_indent_cut_into_pieces_stays_within_the_chunk_size() -> None:
    """A long run of '>' or spaces is no indent to repeat on every piece of the line."""
    note = parse_note("Q.md", "> " * 10 + ">" * 20_000 + "\n")
    chunks = chunk_note(note, "v", 1000)
    assert sum(len(c.text) for c in chunks) < 25_000


def test_a_decomposed_note_is_chunked_in_nfc_on_the_files_lines() -> None:
    """Text typed or pasted decomposed (NFD: macOS, Vietnamese or pointed Hebrew in keyboard
    order) is indexed as the composed words a question is searched by; the lines, the links
    and the note's own hash stay the file's."""
    composed = (
        "---\ntitle: Caf\u00e9 na\u00efve\naliases: [R\u00e9sum\u00e9]\n---\n"
        "# Caf\u00e9 na\u00efve\n\nA na\u00efve [[Caf\u00e9]] note, Ti\u1ebfng Vi\u1ec7t.\n\n"
        "## \u05e9\u05b8\u05c1\u05dc\u05d5\u05b9\u05dd\n\nText.\n"
    )
    # Hebrew written shin, shin dot, qamats: NFC puts the vowel before the dot.
    decomposed = unicodedata.normalize("NFD", composed).replace(
        "\u05e9\u05b8\u05c1", "\u05e9\u05c1\u05b8"
    )
    assert decomposed != composed and unicodedata.normalize("NFC", decomposed) == composed
    note = parse_note("N.md", decomposed)
    assert note.text == decomposed and note.links[0].target == "Cafe\u0301"  # as written
    chunks = chunk_note(note, "v", 1200)
    expected = chunk_note(parse_note("N.md", composed), "v", 1200)
    assert [(c.text, c.heading_path, c.context, c.id) for c in chunks] == [
        (c.text, c.heading_path, c.context, c.id) for c in expected
    ]
    assert chunks[0].context == "Caf\u00e9 na\u00efve (R\u00e9sum\u00e9)"  # the title said once
    assert [(c.line_start, c.line_end, c.line_map) for c in chunks] == [
        (5, 7, (5, 7, 7)),
        (9, 11, (9, 11, 11)),
    ]
    lines = decomposed.split("\n")
    for chunk in chunks:  # each line of a chunk is its file line, composed
        for text, number in zip(chunk.text.split("\n"), chunk.line_map, strict=True):
            assert not text or text == unicodedata.normalize("NFC", lines[number - 1])


def test_a_character_nfc_turns_into_markdown_is_kept_as_written() -> None:
    """The Greek varia (U+1FEF) is a backtick in NFC: three of them composed would read as a
    code fence the parser never saw, so their line stays as the file has it."""
    text = "# V\n\n\u1fef\u1fef\u1fef cafe\u0301\n\nAfter cafe\u0301.\n"
    [chunk] = chunk_note(parse_note("V.md", text), "v", 1200)
    assert "\u1fef\u1fef\u1fef cafe\u0301" in chunk.text and "```" not in chunk.text
    assert "After caf\u00e9." in chunk.text  # the other lines composed


@pytest.mark.parametrize(
    ("heading", "anchor"),
    [
        ("Latch [[latch SR]] timing", "Latch latch SR timing"),
        ("Latch [[latch SR|SR latch]] timing", "Latch SR latch timing"),
        ("See [[Plan#Budget]] and [the plan](Plan.md)", "See Plan Budget and the plan"),
        ("**Bold** *it* ~~gone~~ ==lit== __init__ snake_case", "Bold it gone lit init snake_case"),
        ("Run `a|b` #todo", "Run a b todo"),
        ("Step 1: plan ^x [y]", "Step 1 plan x y"),
        ("Learning C#", "Learning C"),
        (r"Not \*emphasis\*", "Not *emphasis*"),
    ],
)
def test_a_heading_path_holds_headings_as_shown_and_linked(heading: str, anchor: str) -> None:
    """A chunk's heading path (a citation's anchor) was the raw Markdown of its headings."""
    note = parse_note("H.md", f"# Top [[Root]]\n\n## {heading}\n\nText.\n")
    chunks = chunk_note(note, "v", 100_000)
    assert chunks[-1].heading_path == f"Top Root > {anchor}"
