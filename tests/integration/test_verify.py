"""verify reads the graph's fields by name, never by position in a canonical line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from knotwork.check.verify import snapshot, verify_vault
from knotwork.core import Core
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from tests.fakes.ollama import FakeOllama
from tests.integration.conftest import put


def extraction(body: dict[str, Any]) -> str:
    """The model finds one triple in every chunk."""
    return json.dumps(
        {
            "entities": [{"name": "Ann"}, {"name": "Ben"}],
            "triples": [{"subject": "Ann", "predicate": "works with", "object": "Ben"}],
        }
    )


async def test_a_bar_in_a_note_path_or_heading_is_no_stale_fact(
    core: Core, vault: Path, fake_ollama: FakeOllama
) -> None:
    """A `|` in a path shifted the fields verify cut out of a fact's line, so a model fact was
    reported stale; one in a heading shifted a chunk's, so its embedding state counted."""
    fake_ollama.chat_script = extraction
    put(vault, "a|b/Ann.md", "# Ann | notes\n\nAnn works with [[Ben]].\n")
    ingestor = Ingestor(core, root=vault, vault="t", extract_enabled=True)
    report = await sync_vault(ingestor)
    assert report.written == 1 and report.extracted == 1
    facts = (await snapshot(core.store, "t"))["facts"]
    assert any(line.startswith("a|b/Ann.md|") and "|llm|" in line for line in facts)
    assert await verify_vault(ingestor) == []


async def test_verify_reports_the_progress_of_its_fresh_parse(core: Core, vault: Path) -> None:
    """The scratch sync of a large vault takes minutes: the progress callback follows it."""
    for name in ("Ann", "Ben", "Cy"):
        put(vault, f"{name}.md", f"# {name}\n\n{name} knows [[Ann]].\n")
    ingestor = Ingestor(core, root=vault, vault="t", extract_enabled=False)
    await sync_vault(ingestor)
    calls: list[tuple[int, int, str]] = []
    assert await verify_vault(ingestor, lambda *call: calls.append(call)) == []
    assert calls[-1][:2] == (3, 3), calls
    assert {what for _, _, what in calls} >= {
        f"writing notes: {n}.md" for n in ("Ann", "Ben", "Cy")
    }
