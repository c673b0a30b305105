"""How log records reach a terminal that progress bars share, and what they may not carry
there: set up once, at the entry point (cli/app.py), for every command."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from knotwork.cli.escaped import EscapingFilter
from knotwork.redact import RedactingFilter

if TYPE_CHECKING:
    from rich.console import Console


def terminal_log(on: Console) -> logging.Handler:
    """Log records drawn on the terminal ``on``, each on a line of its own: it starts by taking
    the cursor back to the line's start and clearing the line. Another process's bar (the
    watcher's, beside the API's log under scripts/run) leaves the cursor at its end, so a record
    ran on from "14/16 0:00:07"; this process's own bar is drawn again below the record."""
    from rich.console import ConsoleRenderable, Group
    from rich.control import Control
    from rich.logging import RichHandler
    from rich.segment import ControlType
    from rich.traceback import Traceback

    line_start = Control((ControlType.CARRIAGE_RETURN,), (ControlType.ERASE_IN_LINE, 2))

    class OwnLine(RichHandler):
        def render(
            self,
            *,
            record: logging.LogRecord,
            traceback: Traceback | None,
            message_renderable: ConsoleRenderable,
        ) -> ConsoleRenderable:
            drawn = super().render(
                record=record, traceback=traceback, message_renderable=message_renderable
            )
            return Group(line_start, drawn)

    return OwnLine(console=on, show_path=False, rich_tracebacks=False)


# Redaction first: it formats a record's traceback afresh into ``exc_text`` (masked), which the
# escaping then escapes; the other way round, the escaped traceback would be replaced by a
# masked but raw one.
LOG_FILTERS: tuple[type[logging.Filter], ...] = (RedactingFilter, EscapingFilter)


def install_log_filters() -> None:
    """Every record's credentials masked, then its control characters escaped: the filters on
    every handler of the root logger (handlers see every propagated record, where a logger's
    own filters would not), each once however often this is called."""
    for handler in logging.getLogger().handlers:
        for kind in LOG_FILTERS:
            if not any(isinstance(f, kind) for f in handler.filters):
                handler.addFilter(kind())
