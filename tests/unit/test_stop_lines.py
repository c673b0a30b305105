"""`ingest`'s stop line follows the sync's progress steps (ingest/changes.SyncStep), not the
wording of its messages: a message reworded cannot silently leave it at "before any note was
written"."""

from __future__ import annotations

import pytest

from knotwork.cli.stopped import SyncStopped
from knotwork.ingest.changes import NoteOutcome, SyncReport, SyncStep


@pytest.mark.parametrize("step", list(SyncStep), ids=lambda s: s.name)
def test_each_sync_step_is_told_apart_from_its_messages(step: SyncStep) -> None:
    assert SyncStep.of(step.told()) is step
    assert SyncStep.of(step.told("Projects/a: b.md (deleted)")) is step  # ": " in a path
    assert step.told("a.md") == f"{step.value}: a.md" and type(step.told()) is str


def test_a_message_of_no_sync_step_is_none() -> None:
    assert SyncStep.of("calibrating the relevance gate") is None
    assert SyncStep.of("writing notesX: a.md") is None  # a step is named whole


def test_the_ingest_stop_line_counts_the_notes_its_sync_reports_committed() -> None:
    """The count is the report's, which each batch's commit fills in, not the bar's last tick:
    a batch committed after it (or as the stop came) is counted (it was not: 2,080 said, 2,272
    in the graph)."""
    shown: list[tuple[int, int, str]] = []
    stage = SyncStopped()
    told = stage.follow(lambda done, total, what: shown.append((done, total, what)))
    told(3, 9, SyncStep.READING.told("a.md"))
    told(0, 5, SyncStep.PARSING.told("a.md"))
    assert stage.said().startswith("stopped before any note was written; run `knotwork ingest`")
    told(2, 5, SyncStep.WRITING.told("b.md"))
    told(4, 7, SyncStep.EMBEDDING.told("c.md"))  # the next unit's chunks: not notes
    stage.report.committed_notes.update({"a.md", "b.md", "d.md"})  # a commit the bar missed
    assert stage.said() == (
        "stopped: 3 of 5 changed notes written (each batch whole or not at all); run "
        "`knotwork ingest` again to finish"
    )
    assert stage.unreachable() == (
        "stopped: 3 of 5 changed notes written (each batch whole or not at all); run "
        "`knotwork ingest` again once Neo4j is back to finish"
    )
    told(1, 3, SyncStep.EXTRACTING.told())
    assert stage.said().endswith("; chunks not extracted yet wait for `knotwork retry`")
    assert shown[2] == (2, 5, "writing notes: b.md")  # the bar told as it was


def test_a_note_written_again_one_by_one_is_committed_once_as_the_bar_counts_it() -> None:
    """A batch whose extraction failed after its commit is written again note by note: each
    note counts once, and the stop line's count is the bar's notes written."""
    from knotwork.ingest.sync import _Shown

    shown: list[tuple[int, int, str]] = []
    report = SyncReport()
    bar = _Shown(lambda done, total, what: shown.append((done, total, what)), report)
    bar.total = 3
    batch = [NoteOutcome("a.md", "written"), NoteOutcome("b.md", "deleted")]
    bar.written(batch)
    bar.written(batch[:1])  # its note written again, alone
    assert report.committed == 2
    bar.written([NoteOutcome("c.md", "written")])
    assert report.committed == 3 == shown[-1][0]
    assert shown == [
        (1, 3, "writing notes: a.md"),
        (2, 3, "writing notes: b.md (deleted)"),
        (3, 3, "writing notes: c.md"),
    ]
