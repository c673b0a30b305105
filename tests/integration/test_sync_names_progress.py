"""Before a sync's first write, every note is parsed for the vault's final names: seconds in a
large vault, which the bar spent still at "0 of 3000" on the first note's name. The parse is
told as it goes, under its own step; the rest of the bar is as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from knotwork.core import Core
from knotwork.ingest import plan
from knotwork.ingest.changes import SyncStep
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from tests.fakes.ollama import FakeOllama
from tests.integration.conftest import put


async def test_the_parse_for_the_final_names_is_told_before_the_first_write(
    core: Core, vault: Path, fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(plan, "NAMES_GROUP", 2)  # five notes: a large vault's groups
    for i in range(5):
        put(vault, f"n{i}.md", f"# Note {i}\n\nNote {i} links [[n{(i + 1) % 5}]].\n")
    calls: list[tuple[int, int, str]] = []
    ingestor = Ingestor(core, root=vault, vault="t", extract_enabled=False, embed_enabled=False)
    report = await sync_vault(ingestor, lambda *call: calls.append(call))
    assert report.written == 5 and not report.errors
    naming = [call for call in calls if SyncStep.of(call[2]) is SyncStep.NAMING]
    assert naming == [
        (0, 5, "parsing notes for their names: n0.md"),
        (2, 5, "parsing notes for their names: n2.md"),
        (4, 5, "parsing notes for their names: n4.md"),
        (5, 5, "parsing notes for their names: n4.md"),
    ], calls
    first_write = calls.index((0, 5, "writing notes: n0.md"))
    assert calls.index(naming[-1]) < first_write  # all before the first write
    assert calls[-1] == (5, 5, "linking similar entities")  # the bar ends as it did
