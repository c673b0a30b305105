"""Log records on a terminal that progress bars share start on a line of their own: under
scripts/run the API's log and the watcher's bar share one terminal, and a record ran on from
the bar ("…14/16 0:00:07[12/06/26 05:11:01] INFO … serving on …")."""

from __future__ import annotations

import io
import logging
import re
from collections.abc import Iterator

import pytest
from rich.console import Console
from rich.progress import Progress

from knotwork.cli.logs import terminal_log

_CONTROL = re.compile(r"\x1b\[(\??[0-9;]*)([A-Za-z])")
BAR = "reading the vault ━━━━━━━━━━━━━━━━━━━━━ 14/16 0:00:07"


def _screen(written: str) -> list[str]:
    """What a terminal shows of ``written``: carriage returns, line feeds, a line erased
    (ESC[2K), the cursor up (ESC[nA); colours and the cursor's visibility are left out."""
    rows, row, col, at = [""], 0, 0, 0
    while at < len(written):
        if control := _CONTROL.match(written, at):
            arg, code = control.groups()
            if code == "K":
                rows[row] = ""
            elif code == "A":
                row = max(0, row - int(arg or 1))
            at = control.end()
            continue
        char = written[at]
        if char == "\r":
            col = 0
        elif char == "\n":
            row, col = row + 1, 0
            rows += [""] * (row + 1 - len(rows))
        else:
            line = rows[row].ljust(col)
            rows[row], col = line[:col] + char + line[col + 1 :], col + 1
        at += 1
    return [r.rstrip() for r in rows]


@pytest.fixture
def terminal() -> Iterator[tuple[logging.Logger, Console, io.StringIO]]:
    """A logger writing through ``terminal_log`` to a terminal of 100 columns."""
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=100)
    logger = logging.getLogger("knotwork.test.terminal")
    handler = terminal_log(console)
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    yield logger, console, out
    logger.removeHandler(handler)


def test_a_record_after_another_process_bar_starts_its_own_line(
    terminal: tuple[logging.Logger, Console, io.StringIO],
) -> None:
    logger, _, out = terminal
    out.write(f"\r\x1b[2K{BAR}")  # the watcher's bar, as rich draws it: the cursor at its end
    logger.info("serving on http://127.0.0.1:8000 (Ctrl+C stops it)")
    shown = _screen(out.getvalue())
    line = next(row for row in shown if "serving on" in row)
    assert re.fullmatch(r"\[[^]]+\] INFO +serving on http://127\.0\.0\.1:8000 \(Ctrl\+C .*", line)
    assert not any("0:00:07" in row and "INFO" in row for row in shown), shown


def test_a_record_while_this_process_bar_runs_goes_above_it(
    terminal: tuple[logging.Logger, Console, io.StringIO],
) -> None:
    logger, console, out = terminal
    with Progress(console=console, transient=True) as bar:
        task = bar.add_task("writing notes", total=16)
        bar.update(task, completed=14)
        bar.refresh()
        logger.warning("a.md: looks binary")
        shown = _screen(out.getvalue())
    record = next(i for i, row in enumerate(shown) if "a.md: looks binary" in row)
    assert "WARNING" in shown[record] and "writing notes" not in shown[record], shown
    assert "writing notes" in shown[record + 1], shown  # the bar, drawn again below
