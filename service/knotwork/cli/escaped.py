"""What the CLI prints for a person goes through here: a note's text, title, path or alias, a
model's answer and a log line naming any of them are untrusted, and a terminal obeys the control
characters they may hold (OSC 0 sets the title, OSC 52 the clipboard, CSI clears the screen, a
bidi override reorders what is read). Each is shown as its ``\\uXXXX`` escape instead."""

from __future__ import annotations

import logging
import re

import typer

# C0 but tab and newline, DEL, C1 (U+009B is CSI to an 8-bit terminal), and the bidi embeddings,
# overrides and isolates (Trojan Source). LRM, RLM and ALM are kept: they only mark a direction,
# and right-to-left notes use them.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def escaped(text: str) -> str:
    """``text`` safe for a terminal: each control character as its escape (ESC as ``\\u001b``).
    Per character, so a stream's pieces escape as their whole does. JSON text stays the same
    document: the escape is JSON's own, and json.dumps leaves these raw only inside strings."""
    return _CONTROL.sub(lambda m: f"\\u{ord(m[0]):04x}", text)


def say(message: str = "", *, fg: str | None = None, err: bool = False, nl: bool = True) -> None:
    """``message`` escaped, printed as ``typer.secho`` prints it: every line the CLI prints
    for a person. Without a colour, as ``typer.echo`` does (secho ends each line with a reset)."""
    if fg is None:
        typer.echo(escaped(message), err=err, nl=nl)
    else:
        typer.secho(escaped(message), fg=fg, err=err, nl=nl)


class EscapingFilter(logging.Filter):
    """Escapes a log record's message (its arguments rendered first) and traceback: a warning
    names a note's path or title, and the log is read on a terminal (or `cat` there later)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if (safe := escaped(message)) != message:
            record.msg, record.args = safe, None
        if record.exc_info and record.exc_info[1] is not None and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = escaped(record.exc_text)
        return True
