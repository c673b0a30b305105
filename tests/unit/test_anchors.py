"""A heading as a citation's anchor (text/anchors.py): bounded work on any heading."""

from __future__ import annotations

import gc
import time

import pytest

from knotwork.text.anchors import MARKUP_MAX, heading_anchor


@pytest.mark.parametrize(
    "heading",
    ["`" * 100_000, "_" * 100_000, "**x " * 25_000, "==a " * 25_000, "*" + "_" * 99_999 + "*"],
)
def test_a_heading_of_markup_runs_is_read_in_bounded_time(heading: str) -> None:
    """A heading of 10,000 backticks held the interpreter ten seconds (the code-span pattern
    backtracks), 100,000 for hours: a note so written froze every loop of its process. CPU
    time measured with the collector held off, as the parser's megabyte test does."""
    gc.disable()
    try:
        started = time.process_time()
        anchor = heading_anchor(heading)
        spent = time.process_time() - started
    finally:
        gc.enable()
    assert spent < 1.0, spent
    assert len(anchor) <= len(heading)


def test_a_long_heading_keeps_its_markup_but_loses_what_links_refuse() -> None:
    long = "**bold** [[x]] " * (MARKUP_MAX // 10)
    assert "[" not in heading_anchor(long) and "**bold**" in heading_anchor(long)
    assert heading_anchor("**bold** [[x|y]]") == "bold y"
