"""Credentials never leave the process: every URL printed, logged or returned goes through here.

A URL may carry ``user:password@`` (an Ollama behind a proxy with basic auth, a Neo4j URI with
credentials). ``redact`` replaces the password, or a lone user part that may be a token, with
``***`` wherever a URL appears in a text; ``RedactingFilter`` does the same for log records.
"""

from __future__ import annotations

import logging
import re

# scheme://userinfo@ — userinfo runs to the authority's last "@" (as urlsplit reads it: a raw
# "@" in a password), never past "/", "?", "#" or whitespace.
_USERINFO = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^/?#\s]+)@")
MASK = "***"


def _masked(match: re.Match[str]) -> str:
    user, colon, _ = match["userinfo"].partition(":")
    return f"{match['scheme']}{user}:{MASK}@" if colon else f"{match['scheme']}{MASK}@"


def redact(text: str) -> str:
    """``text`` with the credentials of every URL in it masked."""
    return _USERINFO.sub(_masked, text) if "@" in text else text


def described(exc: BaseException, limit: int | None = None) -> str:
    """An error as messages show it: its type and its text, credentials masked before the text
    is cut to ``limit`` characters (a cut could leave a URL's "@" out of reach of the mask)."""
    text = redact(str(exc))[:limit]
    # A time-out or a dropped connection often carries no text: its name alone, not "X: ".
    return f"{type(exc).__name__}: {text}" if text.strip() else type(exc).__name__


class RedactingFilter(logging.Filter):
    """Masks URL credentials in a record's message (its arguments rendered first)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        if record.exc_info and record.exc_info[1] is not None:
            # Formatters print exc_text when it is set, rather than formatting exc_info again.
            record.exc_text = redact(logging.Formatter().formatException(record.exc_info))
        return True


def install_log_redaction() -> None:
    """Put the filter on every handler of the root logger (handlers see every propagated
    record, where a logger's own filters would not)."""
    for handler in logging.getLogger().handlers:
        if not any(isinstance(f, RedactingFilter) for f in handler.filters):
            handler.addFilter(RedactingFilter())
