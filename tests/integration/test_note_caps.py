"""A note past the per-note caps is written with the caps' worth of tags and links and a
warning; another note of the same sync is written whole."""

from __future__ import annotations

from pathlib import Path

from knotwork.core import Core
from knotwork.ingest.caps import MAX_NOTE_LINKS, MAX_NOTE_TAGS
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from tests.integration.conftest import ad_hoc, put


async def _count(core: Core, source: str, relation: str) -> int:
    [row] = await ad_hoc(
        core,
        "MATCH (:Note {vault: 't', path: $source})-[r]->() WHERE type(r) = $relation "
        "AND r.source = $source RETURN count(r) AS n",
        {"source": source, "relation": relation},
    )
    return int(row["n"])


async def test_a_note_past_the_caps_keeps_the_first_and_the_others_are_whole(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    tags = " ".join(f"#t{i}" for i in range(MAX_NOTE_TAGS + 50))
    links = " ".join(f"[[n{i}]]" for i in range(MAX_NOTE_LINKS + 50))
    put(vault, "dos/flood.md", f"# Flood\n{tags}\n{links}\n")
    put(vault, "Alice.md", "# Alice\n#team #lead\nAlice works with [[Bob]] and [[Carol]].\n")
    report = await sync_vault(ingestor)
    assert report.written == 2 and report.errors == []
    assert report.warnings == [
        f"dos/flood.md: {MAX_NOTE_TAGS + 50:,} tags, more than the {MAX_NOTE_TAGS:,} a note "
        f"may hold: ignored from #t{MAX_NOTE_TAGS} at line 2 on",
        f"dos/flood.md: {MAX_NOTE_LINKS + 50:,} links, more than the {MAX_NOTE_LINKS:,} a "
        "note may hold: ignored from the link at line 3 on",
    ]
    assert await _count(core, "dos/flood.md", "HAS_TAG") == MAX_NOTE_TAGS
    assert await _count(core, "dos/flood.md", "LINKS_TO") == MAX_NOTE_LINKS
    [row] = await ad_hoc(
        core,
        "MATCH (e:Entity {vault: 't'}) WHERE e.key =~ '#t[0-9]+' "
        "RETURN count(e) AS n, max(toInteger(substring(e.key, 2))) AS last",
    )
    assert (row["n"], row["last"]) == (MAX_NOTE_TAGS, MAX_NOTE_TAGS - 1)  # the first kept
    [row] = await ad_hoc(
        core, "MATCH (p:Unresolved {vault: 't'}) WHERE p.key =~ 'n[0-9]+' RETURN count(p) AS n"
    )
    assert row["n"] == MAX_NOTE_LINKS  # a placeholder per link kept, none past the cap
    assert await _count(core, "Alice.md", "HAS_TAG") == 2
    assert (
        await _count(core, "Alice.md", "WORKS_WITH") + await _count(core, "Alice.md", "LINKS_TO")
        == 2
    )
