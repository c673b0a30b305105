"""An editor's save that renames the note away (to a backup name beside it) and writes it anew
later than the debounce: an edit of the note, its history kept and only its changed chunks
embedded again, not a delete followed by a new note."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from knotwork.core import Core
from knotwork.watch.events import GONE_WAIT_S
from tests.fakes.ollama import FakeOllama
from tests.integration.conftest import ad_hoc
from tests.integration.test_watcher import assert_verified, graph_paths, settle, watched

FIRST = "# Alice\n\nAlice works with Bob.\n\n## Garden\n\nAlice grows tomatoes.\n"
SAVED = "# Alice\n\nAlice works with Bob.\n\n## Garden\n\nAlice grows beans now.\n"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    (root / "People").mkdir(parents=True)
    (root / "People/Alice.md").write_text(FIRST)
    return root


async def _kinds(core: Core) -> list[str]:
    rows = await ad_hoc(
        core,
        "MATCH (r:Revision {vault: 'w', path: 'People/Alice.md'}) RETURN r.kind AS kind "
        "ORDER BY r.at",
        {},
    )
    return [r["kind"] for r in rows]


@pytest.mark.parametrize("away", ["Alice.md~", "Alice.md.bak", ".Alice.md.swp"])
async def test_a_save_renaming_the_note_away_then_writing_it_late_is_an_edit(
    core: Core, vault: Path, fake_ollama: FakeOllama, away: str
) -> None:
    """The new file comes 1 s after the rename, past the 300 ms debounce."""
    note = vault / "People/Alice.md"
    async with watched(core, vault) as running:
        before = await _kinds(core)
        fake_ollama.calls.clear()
        heard = running.status.events
        backup = note.with_name(away)
        note.rename(backup)
        await asyncio.sleep(1.0)
        note.write_text(SAVED)
        backup.unlink()
        await settle(running, since=heard)
        await assert_verified(running)
        assert await graph_paths(core) == ["People/Alice.md"]
        kinds = await _kinds(core)
        assert kinds[: len(before)] == before and len(kinds) == len(before) + 1, kinds
        assert "delete" not in kinds, kinds
        assert fake_ollama.embedded_texts() == [
            "Alice > Garden\n\n## Garden\n\nAlice grows beans now."
        ]


async def test_a_note_renamed_away_and_not_written_again_is_deleted_after_the_grace(
    core: Core, vault: Path
) -> None:
    """No note comes back: the delete waits out the grace (not the debounce alone), then
    lands."""
    async with watched(core, vault) as running:
        heard = running.status.events
        (vault / "People/Alice.md").rename(vault / "People/Alice.md~")
        await asyncio.sleep(GONE_WAIT_S - 0.8)  # past the debounce and a pass
        assert running.status.events > heard  # heard, and waiting out its grace
        assert await graph_paths(core) == ["People/Alice.md"]
        await settle(running, since=heard)
        assert await graph_paths(core) == []
