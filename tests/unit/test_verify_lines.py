"""The canonical chunk line verify compares: a chunk in another language's full-text index than
a fresh parse gives is a difference, not "graph and vault agree"."""

from __future__ import annotations

from knotwork.check.verify import _chunk_line
from knotwork.graph.queries.admin import DumpChunkFieldsRow


def _row(language: str | None, labels: list[str]) -> DumpChunkFieldsRow:
    return DumpChunkFieldsRow(
        path="Bosco.md", ord=0, heading_path="Il bosco", line_start=1, line_end=3, hash="h1",
        embedding_state="done", extraction_state="done", next=[], entities=[],
        language=language, labels=labels,
    )  # fmt: skip


def test_a_chunk_in_another_languages_index_differs_from_a_fresh_parse() -> None:
    fresh = _chunk_line(_row("it", ["Italian"]))
    assert _chunk_line(_row("it", ["Italian"])) == fresh
    for stale in (_row("en", ["English"]), _row("it", ["English"]), _row(None, [])):
        line = _chunk_line(stale)
        assert line["parsed"] != fresh["parsed"] and line["line"] != fresh["line"]
    assert fresh["parsed"].endswith('"h1", "it/Italian"]')
    assert "|h1|it/Italian|done|done|" in fresh["line"]
