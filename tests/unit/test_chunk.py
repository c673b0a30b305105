"""Chunking: headings bound chunks, ids are stable, an edit changes only its chunk."""

from __future__ import annotations

from knotwork.chunk import chunk_for_line, chunk_note
from knotwork.parse import parse_note

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
