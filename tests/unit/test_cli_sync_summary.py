"""The summary `ingest` and `watch` print: a list cut short says how much it left out, so it
never reads as the whole; what waits says why, as the sync met it; what a stopped watcher
leaves is counted in good English."""

from __future__ import annotations

from pathlib import Path

import pytest

from knotwork.cli.app import MAX_LISTED
from knotwork.cli.printed import watch_stopped
from knotwork.cli.synced import SyncSummary, print_sync
from knotwork.graph.queries.admin import UnresolvedLinksRow
from knotwork.ingest.changes import CHAT_DOWN, LET_BE, NoteOutcome
from knotwork.ingest.modelcalls import EMBED_DOWN, EMBED_REJECTED
from knotwork.ingest.owed import Owed
from knotwork.ingest.sync import SyncReport

STATS = {"facts": {}, "pending_embeddings": 0, "pending_extractions": 0, "extraction_errors": 0}


def _printed(unresolved: list[UnresolvedLinksRow], capsys: pytest.CaptureFixture[str]) -> str:
    print_sync(SyncSummary(SyncReport(), unresolved, STATS))
    return capsys.readouterr().out


def test_the_sources_of_an_unresolved_link_cut_short_say_how_many_more(
    capsys: pytest.CaptureFixture[str],
) -> None:
    people = [f"People/{name}.md" for name in "ABCDEFGHIJ"]
    out = _printed([UnresolvedLinksRow(target="missing note", sources=people)], capsys)
    assert "  [[missing note]] from People/A.md, People/B.md, People/C.md, … and 7 more\n" in out


def test_a_link_with_few_sources_lists_them_all_and_says_no_more(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = _printed([UnresolvedLinksRow(target="gone", sources=["a.md", "b.md"])], capsys)
    assert "  [[gone]] from a.md, b.md\n" in out and "more" not in out


def test_the_unresolved_targets_cut_short_say_how_many_more(
    capsys: pytest.CaptureFixture[str],
) -> None:
    rows = [UnresolvedLinksRow(target=f"t{i:02}", sources=["a.md"]) for i in range(MAX_LISTED + 4)]
    out = _printed(rows, capsys)
    assert f"unresolved links: {MAX_LISTED + 4}\n" in out
    assert out.count("  [[t") == MAX_LISTED
    assert "  … and 4 more unresolved links\n" in out
    one = _printed(rows[: MAX_LISTED + 1], capsys)
    assert "  … and 1 more unresolved link\n" in one, one


def test_a_stopped_watcher_counts_one_change_and_one_chunk_in_the_singular() -> None:
    one, two = watch_stopped(Path("/v"), 1, Owed(0, 1)), watch_stopped(Path("/v"), 2, Owed(0, 2))
    assert one == [
        "stopped watching /v",
        "1 change was not written (see the warnings above): the next `knotwork watch` or "
        "`knotwork ingest` writes it",
        "1 chunk waits for the model's extraction: the next `knotwork watch` or `knotwork "
        "retry` does it",
    ], one
    assert two[1].startswith("2 changes were not written") and two[1].endswith("writes them")
    assert two[2].startswith("2 chunks wait for the model's extraction"), two


@pytest.mark.parametrize(
    ("waits_for", "pending", "said"),
    [
        (
            [EMBED_REJECTED],
            {"pending_embeddings": 1},
            "pending: 1 chunk waits for its embedding (the embedding model answered vectors "
            "that could not be stored); `knotwork retry` finishes them once the model answers",
        ),
        (
            [EMBED_DOWN],
            {"pending_embeddings": 2},
            "pending: 2 chunks wait for their embedding (the embedding model was not "
            "available); `knotwork retry`",
        ),
        (
            [CHAT_DOWN],
            {"pending_extractions": 2},
            "pending: 2 chunks wait for model extraction (the chat model was not available); "
            "`knotwork retry`",
        ),
        ([], {"pending_embeddings": 1}, "pending: 1 chunk waits for its embedding; `knotwork"),
        (
            [],
            {"pending_embeddings": 3, "pending_extractions": 580},
            "pending: 3 chunks wait for their embedding, 580 for model extraction; `knotwork",
        ),
    ],
)
def test_the_summary_says_why_chunks_wait_as_the_sync_met_it(
    capsys: pytest.CaptureFixture[str],
    waits_for: list[str],
    pending: dict[str, int],
    said: str,
) -> None:
    """Refused vectors used to be said as "the model was not available", and so was work an
    earlier run left, which this sync knows nothing of."""
    print_sync(SyncSummary(SyncReport(waits_for=waits_for), [], {**STATS, **pending}))
    out = " ".join(capsys.readouterr().out.split())
    assert said in out, out
    if CHAT_DOWN not in waits_for and EMBED_DOWN not in waits_for:
        assert "not available" not in out, out


def test_a_sync_report_gathers_why_its_notes_wait_each_once() -> None:
    report = SyncReport()
    report.add(NoteOutcome("a.md", "written", waits_for=[EMBED_REJECTED]))
    report.add(NoteOutcome("b.md", "written", waits_for=[EMBED_REJECTED, CHAT_DOWN]))
    report.add(NoteOutcome("c.md", "unchanged"))
    assert report.waits_for == [EMBED_REJECTED, CHAT_DOWN]


def test_a_stopped_watcher_names_the_embeddings_its_chunks_wait_for_too() -> None:
    """The model down as it stopped: "581 chunks wait for the model's extraction" left out
    that they wait for their embedding first."""
    both = watch_stopped(Path("/v"), 0, Owed(581, 581))
    assert both[1] == (
        "581 chunks wait for their embedding, 581 for the model's extraction: the next "
        "`knotwork watch` or `knotwork retry` does them"
    ), both
    embeddings = watch_stopped(Path("/v"), 0, Owed(1, 0))
    assert embeddings[1].startswith("1 chunk waits for its embedding: the next"), embeddings
    assert watch_stopped(Path("/v"), 0, Owed()) == ["stopped watching /v"]


def test_extractions_alone_are_counted_as_chunks_that_wait(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Every embedding done: "pending: 580 for model extraction" named no chunk."""
    stats = {**STATS, "pending_extractions": 580}
    print_sync(SyncSummary(SyncReport(), [], stats), "the watcher does them")
    out = capsys.readouterr().out
    assert "pending: 580 chunks wait for model extraction; the watcher does them\n" in out, out
    assert "embedding" not in out


def _down(path: str, why: str = EMBED_DOWN) -> NoteOutcome:
    """A note written while the embedding model was down, as its write warns of it."""
    warning = f"{path}: {why}; 3 chunks wait: the watcher embeds them once the model answers"
    return NoteOutcome(path, "written", warnings=[warning], models_down=True, waits_for=[why])


def test_a_model_trouble_every_note_met_is_said_once_not_once_a_note(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """186 notes synced with the model down printed 30 warnings saying so, "… and 156 more",
    under the pending line that says it; a note's own warning (its frontmatter, a text the
    model refuses alone, the extraction that found the chat model failing) stays."""
    report = SyncReport()
    for i in range(MAX_LISTED + 10):
        report.add(_down(f"n{i:02}.md"))
    report.add(_down("garbage.md", EMBED_REJECTED))  # every text refused: the model's trouble
    refused = (
        f"r.md: {EMBED_REJECTED}; 1 chunk waits: the model refuses its text; asked again by "
        "the watcher or when the note changes"
    )
    report.add(NoteOutcome("r.md", "written", warnings=[refused], waits_for=[EMBED_REJECTED]))
    failed = "c1.md: extraction postponed: model call failed: ConnectError"
    report.add(NoteOutcome("c1.md", "written", warnings=[failed], waits_for=[CHAT_DOWN]))
    let_be = f"c2.md{LET_BE}"
    report.add(NoteOutcome("c2.md", "written", warnings=[let_be], waits_for=[CHAT_DOWN]))
    report.warnings.append("odd.md: frontmatter ignored: not a mapping")
    assert len(report.warnings) == MAX_LISTED + 15  # all kept: the API's /sync lists them
    stats = {**STATS, "pending_embeddings": 124, "pending_extractions": 2}
    print_sync(SyncSummary(report, [], stats), "the watcher does them")
    out = capsys.readouterr().out
    warned = [line for line in out.splitlines() if line.startswith("warning: ")]
    assert warned == [
        f"warning: {w}" for w in (refused, failed, "odd.md: frontmatter ignored: not a mapping")
    ]
    assert "more warning" not in out
    assert "(the embedding model was not available; the embedding model answered vectors " in out


@pytest.mark.parametrize(
    ("waits_for", "said", "unsaid"),
    [
        (
            [],
            "; `knotwork retry` (or the watcher) finishes them, left by an earlier run",
            "answers",
        ),
        ([CHAT_DOWN], "; `knotwork retry` finishes them once the model answers", "earlier run"),
    ],
    ids=["left-by-an-earlier-run", "this-sync's-trouble"],
)
def test_the_retry_hint_is_worded_by_why_chunks_wait(
    capsys: pytest.CaptureFixture[str], waits_for: list[str], said: str, unsaid: str
) -> None:
    """Chunks an interrupted first sync left, with the model answering all along the next
    `ingest`, were said to wait "once the model answers"."""
    stats = {**STATS, "pending_extractions": 1317}
    print_sync(SyncSummary(SyncReport(waits_for=waits_for), [], stats))
    out = " ".join(capsys.readouterr().out.split())
    line = out[out.index("pending:") :]
    assert line.startswith(
        f"pending: 1317 chunks wait for model extraction{' (' if waits_for else ';'}"
    )
    assert said in line and unsaid not in line, line
