"""Filters on a vault where the filtered notes rank far down: the vector and full-text
searches look among the notes that pass, so a narrow filter still finds its notes."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pytest

from knotwork.core import Core
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from knotwork.retrieve import Filters, retrieve, search

CROWD = 150  # notes that match the question better than the filtered one, past k * 5 = 100
QUESTION = "Who runs the rocket launch schedule?"


def _fill(vault: Path) -> None:
    for i in range(CROWD):
        (vault / "launch").mkdir(exist_ok=True)
        (vault / f"launch/Crew {i:03d}.md").write_text(
            f"# Crew {i:03d}\n\nCrew {i:03d} runs the rocket launch schedule. "
            "The rocket launch schedule is what the crew runs.\n"
        )
    (vault / "garden").mkdir()
    (vault / "garden/Tomatoes.md").write_text(
        "---\ntags: [garden/summer]\ndate: 2021-07-04\n---\n# Tomatoes\n\n"
        "Water the tomatoes at dawn, stake them, pick the ripe ones, and keep the basil near. "
        "Once a neighbour's child drew a rocket on the fence.\n"
    )


async def test_a_filter_finds_its_notes_however_far_down_the_whole_vault_ranks_them(
    core: Core, vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fill(vault)
    ingestor = Ingestor(core, root=vault, vault=core.settings.vault_name)
    await sync_vault(ingestor)
    name = ingestor.vault
    everything = await retrieve(core, name, QUESTION, top_k=2)
    assert all(h.path.startswith("launch/") for h in everything.hits)  # the crowd ranks first
    # Ranked over the whole vault, the garden note is past the searches' usual depth …
    qvec = list(await core.embedder.aget_query_embedding(QUESTION))
    near = [c for c, _ in await search.vector(core.store, name, qvec, 100)]
    text = [c for c, _ in await search.fulltext(core.store, name, QUESTION, 100)]
    garden = {**_NONE, "folder": "garden/"}
    assert not await search.placed(core.store, name, near, garden)
    assert not await search.placed(core.store, name, text, garden)
    # … yet each filter finds it.
    for filters in (
        Filters(folder="garden/"),
        Filters(folder="garden"),  # a prefix all the same: never "garden-archive/"
        Filters(tags=("garden",)),
        Filters(date_from=date(2021, 7, 1), date_to=date(2021, 7, 31)),
    ):
        found = await retrieve(core, name, QUESTION, top_k=2, filters=filters)
        assert [h.path for h in found.hits] == ["garden/Tomatoes.md"], filters
        assert {"vector", "fulltext"} <= set(found.hits[0].retrievers), filters
    nowhere = await retrieve(core, name, QUESTION, filters=Filters(folder="nowhere/"))
    assert nowhere.hits == []
    # A filter that no chunk passes asks each index once, not ever deeper.
    asked: list[str] = []
    read = core.store.read

    async def counting(query: Any, /, **params: Any) -> Any:
        asked.append(query.name)
        return await read(query, **params)

    monkeypatch.setattr(core.store, "read", counting)
    empty = search.Narrow(core.store, name, {**_NONE, "folder": "nowhere/"})
    assert await search.vector(core.store, name, qvec, 2, empty) == []
    assert await search.fulltext(core.store, name, QUESTION, 2, None, empty) == []
    assert asked.count("search_vector") == 1 and asked.count("search_fulltext") == 1


_NONE: dict[str, object] = {"folder": None, "tags": [], "date_from": None, "date_to": None}


async def test_filters_that_no_note_passes_say_so(core: Core, vault: Path) -> None:
    """Nothing found under a folder, tag or date range that no note has is a filter to check,
    not notes that say nothing: a warning names the filters. A filter that notes pass, with
    nothing in them about the question, says nothing of the kind."""
    (vault / "People").mkdir()
    (vault / "People/Alice.md").write_text(
        "---\ntags: [team]\ndate: 2024-03-05\n---\n# Alice\n\nAlice works with Bob.\n"
    )
    ingestor = Ingestor(core, root=vault, vault=core.settings.vault_name, extract_enabled=False)
    await sync_vault(ingestor)
    question = "Who does Alice work with?"
    for filters, named in (
        (Filters(folder="people/"), "folder 'people/'"),  # the folder's letter case differs
        (Filters(tags=("nosuchtag",)), "tags #nosuchtag"),
        (Filters(date_from=date(2025, 1, 1)), "dated 2025-01-01 to …"),
    ):
        found = await retrieve(core, ingestor.vault, question, filters=filters)
        assert found.hits == [], filters
        [warning] = [w for w in found.warnings if "passes the filters" in w]
        assert named in warning and repr(ingestor.vault) in warning, warning
    passing = await retrieve(core, ingestor.vault, question, filters=Filters(folder="People"))
    assert passing.hits and not any("passes the filters" in w for w in passing.warnings)
