"""What an Obsidian vault hides or keeps beside its notes lands in the graph as Obsidian reads
it: nothing inside a ``%%comment%%`` is a link or a tag (its words stay searchable), a phone
photo, a scan or a Base embedded in a note is a file, never a missing note, and a string of
aliases is split at its commas."""

from __future__ import annotations

from pathlib import Path

from knotwork.core import Core
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from tests.integration.conftest import ad_hoc, put

HUB = (
    "# Hub\n"
    "Met [[Acme]] today. %%ask [[Legal]] first #todo%%\n"
    "%%\n"
    "Draft: [[Secret Project]] #draft\n"
    "%%\n"
    "![[IMG_0001.heic]] ![[scan.TIFF]] ![[Tasks.base]] #visible\n"
    "Ordered from Gizmo Ltd.\n"
)


async def test_comments_attachments_and_alias_strings_land_as_obsidian_reads_them(
    core: Core, vault: Path
) -> None:
    name = core.settings.vault_name
    put(vault, "Acme.md", "# Acme\n")
    put(vault, "Vendor.md", "---\naliases: Widget Co, Gizmo Ltd\n---\n# Vendor\n")
    put(vault, "Hub.md", HUB)
    report = await sync_vault(Ingestor(core, root=vault, vault=name, extract_enabled=False))
    assert report.errors == [] and report.warnings == []

    rows = await ad_hoc(
        core,
        "MATCH (:Note {vault: $vault, path: 'Hub.md'})-[r]->(o) WHERE type(r) <> 'HAS_CHUNK' "
        "RETURN type(r) AS rel, labels(o)[0] AS label, "
        "coalesce(o.path, o.key, o.name) AS target ORDER BY rel, target",
        {"vault": name},
    )
    assert [(r["rel"], r["label"], r["target"]) for r in rows] == [
        ("EMBEDS", "Entity", "img_0001.heic"),
        ("EMBEDS", "Entity", "scan.tiff"),
        ("EMBEDS", "Entity", "tasks.base"),
        ("HAS_TAG", "Entity", "#visible"),
        ("LINKS_TO", "Note", "Acme.md"),
        ("MENTIONS", "Note", "Vendor.md"),  # by its alias "Gizmo Ltd", line 7
    ]
    aliases = await ad_hoc(
        core,
        "MATCH (:Note {vault: $vault, path: 'Vendor.md'})-[:HAS_ALIAS]->(e) "
        "RETURN e.name AS name ORDER BY name",
        {"vault": name},
    )
    assert [a["name"] for a in aliases] == ["Gizmo Ltd", "Widget Co"]
    assert (
        await ad_hoc(core, "MATCH (u:Unresolved {vault: $vault}) RETURN u.key", {"vault": name})
        == []
    )
    # The hidden words are still the note's text, found as Obsidian's search finds them.
    [chunk] = await ad_hoc(
        core,
        "MATCH (:Note {vault: $vault, path: 'Hub.md'})-[:HAS_CHUNK]->(c) RETURN c.text AS text",
        {"vault": name},
    )
    assert "Secret Project" in chunk["text"] and "ask [[Legal]] first" in chunk["text"]
