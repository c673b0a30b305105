"""A note moved over another note's path: the replaced note's names go from other notes'
mentions, as a delete of it would take them."""

from __future__ import annotations

from pathlib import Path

from knotwork.check.verify import verify_vault
from knotwork.core import Core
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from tests.integration.conftest import ad_hoc, put


async def _mentioned(core: Core) -> list[str]:
    rows = await ad_hoc(
        core,
        "MATCH (:Note {vault: 't', path: 'X.md'})-[r:MENTIONS]->(o:Note) "
        "RETURN o.path + ' as ' + r.target AS mention",
        {},
        write=False,
    )
    return sorted(row["mention"] for row in rows)


async def test_moving_a_note_over_another_takes_the_replaced_names_mentions(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    put(vault, "Draft.md", "# Draft\n\nThe new text.\n")
    put(vault, "Final.md", "---\naliases: [Beeswax]\n---\n# Final\n\nThe old text.\n")
    put(vault, "X.md", "# X\n\nX reads Beeswax and the Draft.\n")
    await sync_vault(ingestor)
    assert await _mentioned(core) == ["Draft.md as draft", "Final.md as beeswax"]

    text = (vault / "Draft.md").read_text()
    (vault / "Draft.md").replace(vault / "Final.md")
    outcome = await ingestor.rename("Draft.md", "Final.md", text)
    assert outcome.status == "renamed"
    # The moved note is named by its new file name only ("Final"): "Beeswax", the replaced
    # note's alias, and "Draft", the moved note's old name, name no note now.
    assert await _mentioned(core) == []
    assert await verify_vault(ingestor) == []
