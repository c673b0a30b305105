"""Relative links (``[[../people/Alice]]``, ``[x](../people/Bob.md)``, ``[[./sub/Note]]``): each
points at the note its path names from the linking note's folder, and keeps the link as the note
writes it (``target_text``); a missing note's shared placeholder is named by the vault path the
link names, never by a spelling that means it only from one folder."""

from __future__ import annotations

from pathlib import Path

from knotwork.check.verify import snapshot, verify_vault
from knotwork.cli.printed import revision_fact
from knotwork.core import Core
from knotwork.graph import names as names_cache
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from knotwork.retrieve.notes import note_detail, note_history
from tests.integration.conftest import ad_hoc, put

MEETING = (
    '---\nowner: "[[../people/Alice]]"\n---\n# Meeting\n'
    "Works with [[../people/Alice|Alice]].\n"
    "See [Bob](../people/Bob.md) and [[./sub/Note]].\n"
    "Waiting on [[../people/Zed]].\n"
)


async def links_of(core: Core, vault: str, path: str) -> list[tuple[str, str, str, str]]:
    """(relation, target_text, target key, where it points) of each link ``path`` asserts."""
    rows = await ad_hoc(
        core,
        "MATCH (n:Note {vault: $vault, path: $path})-[r]->(o) "
        "WHERE r.extractor IN ['wikilink', 'frontmatter'] "
        "RETURN type(r) AS relation, r.target_text AS written, r.target AS key, "
        "coalesce(o.path, 'unresolved:' + o.key) AS points ORDER BY r.line, relation, written",
        {"vault": vault, "path": path},
    )
    return [(r["relation"], r["written"], r["key"], r["points"]) for r in rows]


async def placeholders(core: Core, vault: str) -> list[str]:
    return [n for n in (await snapshot(core.store, vault))["nodes"] if n.startswith("unresolved:")]


async def test_a_relative_link_keeps_the_link_as_written_and_points_at_its_note(
    core: Core, vault: Path
) -> None:
    name = core.settings.vault_name
    ingestor = Ingestor(core, root=vault, vault=name, extract_enabled=False)
    put(vault, "people/Alice.md", "# Alice\n")
    put(vault, "people/Bob.md", "# Bob\n")
    put(vault, "notes/sub/Note.md", "# Sub note\n")
    put(vault, "notes/Meeting.md", MEETING)
    put(vault, "Other.md", "# Other\nAlso waiting on [[people/zed]].\n")
    await sync_vault(ingestor)

    assert await links_of(core, name, "notes/Meeting.md") == [
        ("HAS_OWNER", "../people/Alice", "people/alice", "people/Alice.md"),
        ("WORKS_WITH", "../people/Alice", "people/alice", "people/Alice.md"),
        ("SEE_ALSO", "../people/Bob", "people/bob", "people/Bob.md"),
        ("SEE_ALSO", "./sub/Note", "notes/sub/note", "notes/sub/Note.md"),
        ("LINKS_TO", "../people/Zed", "people/zed", "unresolved:people/zed"),
    ]
    # `note` and GET /notes show a missing note as each note writes its link.
    facts = (await note_detail(core, "notes/Meeting.md"))["facts"]
    assert [f["object"] for f in facts if f["object_kind"] == "unresolved"] == ["../people/Zed"]
    facts = (await note_detail(core, "Other.md"))["facts"]
    assert [f["object"] for f in facts if f["object_kind"] == "unresolved"] == ["people/zed"]
    # The shared placeholder is named by the path the links name ("people/Zed" before
    # "people/zed", capitals first), not by "../people/Zed", which names it from notes/ only.
    assert await placeholders(core, name) == ["unresolved:people/zed|people/Zed"]

    # History keeps each link by the key of the note it names, shown as that note.
    [revision] = await note_history(core, "notes/Meeting.md")
    keys = {k.split("|")[2] for k in revision["added"] if "|wikilink|" in k}
    assert keys == {"people/alice", "people/bob", "notes/sub/note", "people/zed"}
    index = (await names_cache.cached(core.store, core.names, name))[1]
    shown = [revision_fact(k, index, "notes/Meeting.md") for k in revision["added"]]
    assert "WORKS_WITH → people/Alice.md  [wikilink, line 5]" in shown
    assert "LINKS_TO ('owner') → people/Alice.md  [frontmatter, line 2]" not in shown
    assert "HAS_OWNER ('owner') → people/Alice.md  [frontmatter, line 2]" in shown
    assert "SEE_ALSO → notes/sub/Note.md  [wikilink, line 6]" in shown
    assert "LINKS_TO → people/zed  [wikilink, line 7]" in shown
    assert await verify_vault(ingestor) == []


async def test_a_moved_note_keeps_its_relative_links_as_written_and_resolves_them_anew(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    """Moved to another folder, the same text names other paths: its links point there (at
    placeholders, named by the paths they name now) and still read as the note writes them."""
    put(vault, "people/Alice.md", "# Alice\n")
    put(vault, "notes/Meeting.md", "# Meeting\nWorks with [[../people/Alice]].\n")
    await sync_vault(ingestor)
    (vault / "archive/old").mkdir(parents=True)
    (vault / "notes/Meeting.md").rename(vault / "archive/old/Meeting.md")
    assert (await sync_vault(ingestor)).renamed == 1
    assert await links_of(core, "t", "archive/old/Meeting.md") == [
        ("WORKS_WITH", "../people/Alice", "archive/people/alice", "unresolved:archive/people/alice")
    ]
    assert await placeholders(core, "t") == ["unresolved:archive/people/alice|archive/people/Alice"]
    assert await verify_vault(ingestor) == []
    # Moved back as the watcher reports it: the link is on its note again.
    (vault / "archive/old/Meeting.md").rename(vault / "notes/Meeting.md")
    await ingestor.rename("archive/old/Meeting.md", "notes/Meeting.md")
    assert await links_of(core, "t", "notes/Meeting.md") == [
        ("WORKS_WITH", "../people/Alice", "people/alice", "people/Alice.md")
    ]
    assert await placeholders(core, "t") == []
    assert await verify_vault(ingestor) == []
