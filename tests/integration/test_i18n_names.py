"""Names and tags of non-English notes on the real Neo4j: inline tags keep their combining
marks and are composed, and the note search folds case as Python does ("GRÖSSE" finds
"Größe"), also for a graph written before it kept folded names, once its next sync ran."""

from __future__ import annotations

import unicodedata
from pathlib import Path

from knotwork.core import Core
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.rows import FACTS_VERSION
from knotwork.ingest.sync import sync_vault
from knotwork.retrieve.notes import search_notes
from tests.integration.conftest import ad_hoc, put


async def _vault(core: Core, vault: Path) -> Ingestor:
    put(vault, "Tags.md", "# Tags\n\nInline: #भारत #हिन्दी #เชียงใหม่ #שָׁלוֹם #भाषा\n")
    reunion = "---\ntags: [réunion]\n---\n# Réunion\n\nNotes de la réunion #été #café.\n"
    put(vault, "reunion-nfd.md", unicodedata.normalize("NFD", reunion))  # as macOS types it
    put(vault, "Deutsch/Größe.md", "---\ntags: [Straße]\n---\n# Größe\n\nDes Gebäudes.\n")
    put(vault, "Ελληνικά/Οδός.md", "# ΟΔΟΣ\n\nΟδός.\n")  # noqa: RUF001 (Greek)
    ingestor = Ingestor(core, root=vault, vault=core.settings.vault_name, extract_enabled=False)
    await sync_vault(ingestor)
    return ingestor


async def _found(core: Core, text: str | None = None, tag: str | None = None) -> list[str]:
    return [r["path"] for r in await search_notes(core, text, tag=tag)]


async def test_inline_tags_keep_their_marks_and_are_found_composed(core: Core, vault: Path) -> None:
    await _vault(core, vault)
    [tags] = await search_notes(core, "tags")
    assert tags["tags"] == ["भारत", "हिन्दी", "เชียงใหม่", "שָׁלוֹם", "भाषा"]
    assert await _found(core, tag="भारत") == ["Tags.md"]
    assert await _found(core, tag="भ") == []  # no tag cut at its first vowel sign
    assert await _found(core, tag="été") == ["reunion-nfd.md"]
    assert await _found(core, tag=unicodedata.normalize("NFD", "CAFÉ")) == ["reunion-nfd.md"]
    assert await _found(core, tag="e") == []
    [row] = await ad_hoc(
        core,
        "MATCH (:Note {path: 'Tags.md'})-[:HAS_TAG]->(e:Entity) RETURN collect(e.name) AS names",
    )
    assert sorted(row["names"]) == sorted(["#भारत", "#हिन्दी", "#เชียงใหม่", "#שָׁלוֹם", "#भाषा"])


async def test_the_note_search_folds_case_as_python_does(core: Core, vault: Path) -> None:
    ingestor = await _vault(core, vault)
    for text in ("GRÖSSE", "Grösse", "größe"):
        assert await _found(core, text) == ["Deutsch/Größe.md"], text
    assert await _found(core, tag="STRASSE") == ["Deutsch/Größe.md"]
    assert await _found(core, "ΟΔΌΣ") == ["Ελληνικά/Οδός.md"]

    # A graph written before notes kept folded names: "ß" and a final "ς" are folded in the
    # query until the next sync (an older FACTS_VERSION) rewrites every note.
    await ad_hoc(
        core,
        "MATCH (n:Note) WHERE n.content_hash IS NOT NULL "
        "SET n.facts_version = $old REMOVE n.fnames, n.ftags",
        {"old": FACTS_VERSION - 1},
        write=True,
    )
    assert await _found(core, "GRÖSSE") == ["Deutsch/Größe.md"]
    assert await _found(core, tag="strasse") == ["Deutsch/Größe.md"]
    assert (await sync_vault(ingestor)).written == 4
    [row] = await ad_hoc(
        core, "MATCH (n:Note {path: 'Deutsch/Größe.md'}) RETURN n.fnames AS f, n.ftags AS t"
    )
    assert row == {"f": ["grösse"], "t": ["strasse"]}
