"""A note's content hash is one function: what ingest stores for a body a REST or MCP write
decoded is what a sync reads from the file, for every kind of body (or a note would be taken
for changed at every sync)."""

from __future__ import annotations

from pathlib import Path

import pytest

from knotwork.ingest import chunk, parse
from knotwork.text import digest
from knotwork.vault import files
from knotwork.vault.files import decode, read_group

BODIES = [
    "# Plain\n\nText.\n",
    "# Windows\r\n\r\nLines end in CR LF.\r\n",
    "\ufeff# Notepad\n\nA byte-order mark first.\n",
    "# Cafe\u0301\n\nDecomposed, as macOS types it: e\u0301te\u0301.\n",
    "\ufeff# All\r\n\r\nCafe\u0301 \u2028 and a lone CR\rhere.\r\n",
]


@pytest.mark.parametrize("body", BODIES)
def test_the_hash_ingest_stores_for_a_body_is_the_one_a_sync_reads(
    tmp_path: Path, body: str
) -> None:
    data = body.encode("utf-8")
    (tmp_path / "Note.md").write_bytes(data)  # as a PUT writes it
    text = decode(data, "Note.md", 1 << 20).text  # as the PUT ingests it
    stored = digest.text_hash(text)
    [(_, read)] = read_group(tmp_path, ["Note.md"], 1 << 20)
    assert isinstance(read, tuple) and read[1] == stored, "what a sync reads from the file"
    assert parse.parse_note("Note.md", text).content_hash == stored, "what the graph stores"


def test_every_content_hash_is_computed_by_one_function() -> None:
    assert parse.text_hash is files.text_hash is chunk.text_hash is digest.text_hash
