"""Log records on a terminal that progress bars share start on a line of their own: under
scripts/run the API's log and the watcher's bar share one terminal, and a record ran on from
the bar ("…14/16 0:00:07[12/06/26 05:11:01] INFO … serving on …"). Every record's credentials
are masked, then its control characters escaped, by the one installer the entry point calls."""

from __future__ import annotations

import io
import logging
import re
from collections.abc import Iterator

import pytest
from rich.console import Console
from rich.progress import Progress

from knotwork.cli.escaped import EscapingFilter
from knotwork.cli.logs import install_log_filters, terminal_log
from knotwork.redact import RedactingFilter

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


def test_one_installer_masks_then_escapes_every_root_handlers_records(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Masked first: the redaction formats a traceback afresh, so escaped first, a traceback
    would be written raw (an ESC a note's path put in an error cleared the screen)."""
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    monkeypatch.setattr(logging.getLogger(), "handlers", [handler])
    install_log_filters()
    install_log_filters()  # an entry point run again (a test's CliRunner): each filter once
    assert [type(f) for f in handler.filters] == [RedactingFilter, EscapingFilter]
    log = logging.getLogger("knotwork.test.filters")
    try:
        raise ValueError("http://bob:S3cret@proxy:3128 said \x1b[2J of n\x1b]0;x\x07.md")
    except ValueError:
        log.exception("reading %s failed", "http://bob:S3cret@proxy:3128/\x1b[2J")
    written = out.getvalue()
    assert "S3cret" not in written and "\x1b" not in written and "\x07" not in written, written
    assert "reading http://bob:***@proxy:3128/\\u001b[2J failed" in written, written
    assert "ValueError: http://bob:***@proxy:3128 said \\u001b[2J of n\\u001b]0;x" in written
