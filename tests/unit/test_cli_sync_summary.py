"""The summary `ingest` and `watch` print: a list cut short says how much it left out, so it
never reads as the whole."""

from __future__ import annotations

import pytest

from knotwork.cli.app import MAX_LISTED
from knotwork.cli.synced import SyncSummary, print_sync
from knotwork.graph.queries.admin import UnresolvedLinksRow
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
