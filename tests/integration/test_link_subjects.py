"""Against the real Neo4j, the facts stored for links whose cue has another subject, and for a
note's own names in its own text: no edge says more than the note does."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from knotwork.check.verify import verify_vault
from knotwork.core import Core
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from tests.integration.conftest import ad_hoc, put

NOTES = {
    "Meeting.md": (
        "# Meeting\n\n[[Dana]] reports to [[Bob]] since May.\n"
        "[[Erin]] manages [[Acme Corp]] budget.\n"
    ),
    "Project X.md": "# Project X\n\n[[Alice]] leads it, with [[people/Bob]].\n",
    "Beacon.md": (
        '---\nowner: "[[Dieter]]"\n---\n# Beacon\n\nBeacon uses [[Atlas]] and [[Zeta]].\n'
        "Beacon ships weekly. Owner: [[Dieter]].\n"
    ),
    "people/Dana.md": "# Dana\n\nAn engineer.\n",
    "people/Bob.md": "# Bob\n\nA manager.\n",
    "people/Erin.md": "# Erin\n\nFinance.\n",
    "Acme Corp.md": "# Acme Corp\n\nA client.\n",
    "Atlas.md": "# Atlas\n\nA library.\n",
    "Zeta.md": "# Zeta\n\nA service.\n",
    "Dieter.md": "# Dieter\n\nRuns Beacon.\n",
}
ALICE = "---\nrole: engineer\naliases:\n  - Ally\n---\n\n\n# Alice\n\nAlice pairs with Dana.\n"
NOTES["people/Alice.md"] = ALICE
NAMESAKE = "# Alice (duplicate)\n\nAlice, a namesake, lives in Lyon.\n"


async def links(core: Core, path: str) -> list[tuple[str, str, str]]:
    """(relation, target note, extractor) of every link or frontmatter fact ``path`` asserts."""
    rows = await ad_hoc(
        core,
        "MATCH (n:Note {vault: 't', path: $path})-[r]->(m:Note) "
        "WHERE r.extractor IN ['wikilink', 'frontmatter'] "
        "RETURN type(r) AS relation, m.path AS target, r.extractor AS extractor "
        "ORDER BY r.line, relation, target",
        {"path": path},
    )
    return [(r["relation"], r["target"], r["extractor"]) for r in rows]


async def mentions(core: Core) -> list[dict[str, Any]]:
    return await ad_hoc(
        core,
        "MATCH (n:Note {vault: 't'})-[r:MENTIONS]->(m:Note) "
        "RETURN n.path AS source, m.path AS target, r.line AS line ORDER BY source, target",
    )


async def test_a_cue_with_another_subject_gives_a_plain_link(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    for path, text in NOTES.items():
        put(vault, path, text)
    await sync_vault(ingestor)
    wl = "wikilink"
    assert await links(core, "Meeting.md") == [
        ("LINKS_TO", "people/Bob.md", wl),
        ("LINKS_TO", "people/Dana.md", wl),
        ("LINKS_TO", "Acme Corp.md", wl),
        ("LINKS_TO", "people/Erin.md", wl),
    ]
    assert await links(core, "Project X.md") == [
        ("LINKS_TO", "people/Alice.md", wl),
        ("LINKS_TO", "people/Bob.md", wl),
    ]
    assert await links(core, "Beacon.md") == [
        ("HAS_OWNER", "Dieter.md", "frontmatter"),
        ("USES", "Atlas.md", wl),
        ("USES", "Zeta.md", wl),
        ("LINKS_TO", "Dieter.md", wl),
    ]
    assert await verify_vault(ingestor) == []


async def test_a_note_s_own_name_mentions_no_namesake(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    """From both ends: the namesake written after the first Alice (its forward pass, and the
    reverse pass that rewrites the older note's mentions of the new name), then the first one
    edited (its forward pass, the namesake present)."""
    put(vault, "people/Dana.md", "# Dana\n\nAn engineer.\n")
    put(vault, "people/Alice.md", ALICE)
    await sync_vault(ingestor)
    expected = [{"source": "people/Alice.md", "target": "people/Dana.md", "line": 10}]
    assert await mentions(core) == expected

    put(vault, "people/dup/Alice.md", NAMESAKE)
    await ingestor.upsert_path("people/dup/Alice.md")
    assert await mentions(core) == expected
    put(vault, "people/Alice.md", ALICE + "\nAlice met Ally's namesake.\n")
    await ingestor.upsert_path("people/Alice.md")
    assert await mentions(core) == expected
    # A note that only writes the name still mentions its bearer, the shortest path.
    put(vault, "Standup.md", "# Standup\n\nAlice demoed the parser.\n")
    await ingestor.upsert_path("Standup.md")
    assert await mentions(core) == [
        {"source": "Standup.md", "target": "people/Alice.md", "line": 3},
        *expected,
    ]
    assert await verify_vault(ingestor) == []
