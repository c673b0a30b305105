"""One picture is one entity however the notes link to it (``![[photo.png]]`` in one note,
``![](../attachments/Photo.PNG)`` in another): keyed by its file name, each link keeping the path
its note writes, and gone with the last note that links to it."""

from __future__ import annotations

from pathlib import Path

from knotwork.check.verify import verify_vault
from knotwork.core import Core
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from knotwork.models import read_fact_key
from knotwork.retrieve.notes import note_detail
from tests.integration.conftest import ad_hoc, put


async def links_to_files(core: Core, vault: str) -> list[tuple[str, str, str, str, str]]:
    """(entity key, entity name, relation, linking note, target_text) of every link to an
    entity that some note's link asserts."""
    rows = await ad_hoc(
        core,
        "MATCH (e:Entity {vault: $vault}) OPTIONAL MATCH (n:Note)-[r]->(e) "
        "WHERE r.extractor IN ['wikilink', 'frontmatter'] "
        "RETURN e.key AS key, e.name AS name, type(r) AS rel, n.path AS path, "
        "r.target_text AS written ORDER BY key, path",
        {"vault": vault},
    )
    return [(r["key"], r["name"], r["rel"], r["path"], r["written"]) for r in rows]


async def test_one_picture_linked_two_ways_is_one_entity_until_its_last_note_goes(
    core: Core, vault: Path
) -> None:
    name = core.settings.vault_name  # the vault `note` reads
    ingestor = Ingestor(core, root=vault, vault=name, extract_enabled=False)
    put(vault, "Trip.md", "# Trip\n\n![[photo.png|300]]\n")
    report = await sync_vault(ingestor)
    assert report.errors == [] and report.warnings == []
    # Written after, as the watcher writes an edit: the entity keeps its first link's name.
    put(vault, "notes/Album.md", "# Album\n\nThe view: ![](../attachments/Photo.PNG)\n")
    assert (await ingestor.upsert_path("notes/Album.md")).status == "written"

    assert await links_to_files(core, name) == [
        ("photo.png", "photo.png", "EMBEDS", "Trip.md", "photo.png"),
        ("photo.png", "photo.png", "EMBEDS", "notes/Album.md", "../attachments/Photo.PNG"),
    ]
    facts = (await note_detail(core, "notes/Album.md"))["facts"]
    assert [(f["predicate"], f["object"], f["object_kind"]) for f in facts] == [
        ("EMBEDS", "photo.png", "entity")
    ]
    assert await verify_vault(ingestor) == []  # as a fresh build of the vault has it

    # One note goes: its link goes, the picture stays the other note's.
    (vault / "Trip.md").unlink()
    gone = await ingestor.delete("Trip.md")
    [removed] = [read_fact_key(k) for k in gone.removed]
    assert removed is not None and removed[:5] == ("EMBEDS", "", "photo.png", "wikilink", "3")
    assert await links_to_files(core, name) == [
        ("photo.png", "photo.png", "EMBEDS", "notes/Album.md", "../attachments/Photo.PNG"),
    ]
    assert await verify_vault(ingestor) == []

    # The last one goes: no entity is left behind.
    (vault / "notes/Album.md").unlink()
    await ingestor.delete("notes/Album.md")
    assert await links_to_files(core, name) == []
    assert (
        await ad_hoc(
            core,
            "MATCH (x {vault: $vault}) WHERE x:Entity OR x:Unresolved RETURN x",
            {"vault": name},
        )
        == []
    )
