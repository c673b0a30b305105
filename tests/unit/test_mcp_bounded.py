"""The MCP note tools' bounds, on rows shaped as the graph returns them: what the integration
test's note (links and tags, short chunks) does not reach — a long chunk cut, a list absent."""

from __future__ import annotations

from knotwork.mcp.bounded import CHUNK_CHARS, FACT_KEYS, NAMES, fact_keys, names, note_page


def test_a_long_chunk_is_cut_and_says_its_length() -> None:
    long = "x" * (CHUNK_CHARS + 500)
    detail = {
        "note": {"path": "A.md", "aliases": None, "tags": ["t"] * (NAMES + 1), "dates": []},
        "chunks": [{"ord": 0, "text": long}, {"ord": 1, "text": "short"}],
        "facts": [{"line": n} for n in range(10)],
    }
    page = note_page(detail, chunk_offset=0, chunk_limit=5, fact_offset=8, fact_limit=5)
    cut, short = page["chunks"]
    assert cut["text"] == long[:CHUNK_CHARS] and cut["text_chars"] == len(long)
    assert short["text"] == "short" and short["text_chars"] == 5
    assert page["facts"] == [{"line": 8}, {"line": 9}] and page["facts_total"] == 10
    note = page["note"]
    assert note["aliases"] is None and note["aliases_total"] is None  # a placeholder's
    assert len(note["tags"]) == NAMES and note["tags_total"] == NAMES + 1
    assert note["dates"] == [] and note["dates_total"] == 0


def test_fact_keys_keep_the_first_and_count_them_all() -> None:
    added = [f"k{n}" for n in range(FACT_KEYS * 3)]
    row = fact_keys({"kind": "ingest", "added": added, "removed": None})
    assert row["added"] == added[:FACT_KEYS] and row["added_total"] == len(added)
    assert row["removed"] is None and row["removed_total"] is None
    assert names({"tags": ["a", "b"]}, ("tags",)) == {"tags": ["a", "b"], "tags_total": 2}
