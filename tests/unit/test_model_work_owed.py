"""What a run of background passes says it does names only the steps its chunks owe: with
every embedding done during the writes, "580 extractions", where it said "580 embeddings and
extractions"; both when both are owed, or when nothing says which (no count, no pass)."""

from __future__ import annotations

import logging

import pytest

from knotwork.errors import GraphUnavailableError
from knotwork.ingest import model_work
from knotwork.ingest.changes import Progress
from knotwork.ingest.model_work import ModelWork
from knotwork.ingest.owed import Owed, named
from tests.unit.test_model_work import _ran, infos


class Vault:
    """Chunks owing ``embeddings`` and ``extractions``; each pass does at most ``limit`` of
    them, the embeddings first, telling its progress as ``retry_pending`` does."""

    def __init__(self, embeddings: int, extractions: int) -> None:
        self.embeddings, self.extractions = embeddings, extractions
        self.counted = True  # False: Neo4j cannot count them

    async def one_pass(self, limit: int, progress: Progress) -> int:
        embed = min(limit, self.embeddings)
        extract = min(limit - embed, self.extractions)
        if embed:
            progress(embed, embed + extract, f"embedded {embed}/{embed} chunks")
        for i in range(1, extract + 1):
            progress(embed + i, embed + extract, f"extracting facts: chunk {i}/{extract}")
        self.embeddings -= embed
        self.extractions -= extract
        return embed + extract

    async def left(self) -> Owed:
        if not self.counted:
            raise GraphUnavailableError("Neo4j is not reachable")
        return Owed(self.embeddings, self.extractions)


async def _said(vault: Vault, caplog: pytest.LogCaptureFixture) -> list[str]:
    work = ModelWork(vault.one_pass, vault.left)
    with caplog.at_level(logging.INFO, logger=model_work.__name__):
        work.wanted()
        await _ran(work)
    return infos(caplog)


async def test_a_run_owing_extractions_alone_names_them_alone(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The watcher's start-up sync embedded all 580 chunks as it wrote them: what follows owes
    their extractions only."""
    monkeypatch.setattr(model_work, "PROGRESS_S", 0.0)  # a line each time it moves
    monkeypatch.setattr(model_work, "MODEL_PASS", 290)
    said = await _said(Vault(0, 580), caplog)
    assert said[0] == "pending model work: 1 of 580 extractions done, 0 s", said[0]
    assert said[-1].startswith("pending model work done: 580 extractions in "), said[-1]
    assert not [line for line in said if "embedding" in line], said


async def test_a_run_owing_both_names_both_and_one_owing_embeddings_names_them(
    caplog: pytest.LogCaptureFixture,
) -> None:
    both = await _said(Vault(3, 5), caplog)
    assert both[-1].startswith("pending model work done: 8 embeddings and extractions in ")
    caplog.clear()
    embeddings = await _said(Vault(4, 0), caplog)
    assert embeddings[-1].startswith("pending model work done: 4 embeddings in "), embeddings


async def test_uncounted_the_run_names_what_its_passes_did(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Neo4j cannot count what is owed: the steps the passes told of name the run."""
    vault = Vault(0, 6)
    vault.counted = False
    said = await _said(vault, caplog)
    assert said[-1].startswith("pending model work done: 6 extractions in "), said


def test_the_steps_owed_are_named_in_one_order() -> None:
    assert named({"extractions"}) == "extractions"
    assert named({"extractions", "embeddings"}) == "embeddings and extractions"
    assert named(()) == "embeddings and extractions"  # nothing says which
    assert Owed(2, 0).kinds == {"embeddings"} and Owed(2, 3).steps == 5
    assert Owed().kinds == set()
