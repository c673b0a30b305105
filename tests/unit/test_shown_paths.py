"""The walk's paths shown beside the evidence under a note filter (retrieve/pipeline.py): a
path through a note the filter leaves out is not shown."""

from __future__ import annotations

from knotwork.retrieve import Hit
from knotwork.retrieve.pipeline import _shown
from knotwork.retrieve.types import HopPath


def _hit(path: str) -> Hit:
    return Hit(f"{path}#0", path, path[:-3], "", 1, 2, "text", 0.0)


def test_under_a_filter_only_paths_through_passing_notes_are_shown() -> None:
    hits = [_hit("work/Alice.md"), _hit("work/Orion.md")]
    through_work = HopPath(
        ("note:work/Alice.md", "entity:orion", "note:work/Orion.md"),
        ("MENTIONS", "HAS_ENTITY"),
        "work/Orion.md#0",
    )
    through_diary = HopPath(
        ("note:personal/Diary.md", "note:work/Alice.md"), ("LINKS_TO",), "work/Alice.md#0"
    )
    paths = [through_work, through_diary]
    assert _shown(hits, paths, narrowing=True) == [through_work]
    assert _shown(hits, paths, narrowing=False) == paths  # no filter: every path
