"""How log records reach a terminal that progress bars share: set up once, at the entry point
(cli/app.py), for every command."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

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
