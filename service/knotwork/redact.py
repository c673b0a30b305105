"""Credentials never leave the process: every URL printed, logged or returned goes through here.

A URL may carry ``user:password@`` (an Ollama behind a proxy with basic auth, a Neo4j URI with
credentials). ``redact`` replaces the password, or a lone user part that may be a token, with
``***`` wherever a URL appears in a text; ``redact_url`` masks a URL setting's value written
without "//"; ``RedactingFilter`` does the same for log records, and hides the query strings
of access log lines.
"""

from __future__ import annotations

import logging
import re
from urllib.parse import urlsplit

# scheme://userinfo@: the userinfo runs to the authority's last "@" (a raw "@" in a password,
# as urlsplit reads it), the authority ending at "/", "?", "#" or whitespace: "http://h/y@z"
# has none. A password may hold one of those too ("http://bob:S3c/r3t@host", "bob:S3c r3t@"),
# which clients misread as host "bob", port "S3c": when what comes before the first of them is
# "user:password" and the password is no port, the userinfo runs on to the last "@" before the
# host (no other "@" after it up to "/", "?", "#", whitespace or the end), within the line and
# 256 characters, never into another URL. A port may end in punctuation: "(http://h:1) a@b".
_PLAIN = r"[^/?#\s]+"
_RUN_ON = (
    r"[^/?#\s@:\[\]]*:(?!\d*[)\]}>'\".,;!]*(?:[/?#\s]|$))(?:(?!://)[^\n]){1,256}?"
    r"(?=@[^@/?#\s]*(?:[/?#\s]|$))"
)
_USERINFO = re.compile(
    rf"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>{_PLAIN}(?=@)|{_RUN_ON})@"
)
MASK = "***"


def _masked(match: re.Match[str]) -> str:
    user, colon, _ = match["userinfo"].partition(":")
    return f"{match['scheme']}{user}:{MASK}@" if colon else f"{match['scheme']}{MASK}@"


def redact(text: str) -> str:
    """``text`` with the credentials of every URL in it masked."""
    return _USERINFO.sub(_masked, text) if "@" in text else text


def redact_url(value: str) -> str:
    """A URL setting's value with its credentials masked, even without the "//" that
    ``redact`` looks for ("user:pw@host:1", "neo4j:pw@host"): in such a value whatever stands
    before its last "@" is credentials, a leading "name:" kept. Only for a setting's value,
    where no "@" is prose ("time: 12:30@home" in other text stays as it is)."""
    masked = redact(value)
    if "@" not in masked or "://" in masked:
        return masked
    userinfo, _, host = masked.rpartition("@")
    user, colon, _ = userinfo.partition(":")
    return f"{user}:{MASK}@{host}" if colon else f"{MASK}@{host}"


def misread_url(url: str) -> str | None:
    """Why clients would misread ``url`` (its credentials masked), or None: a port that is not
    a number, or an "@" after the host. A password holding "/", "?" or "#" ends the host early,
    so clients take part of it for the port (and say so in errors) or send it as the path."""
    parts = urlsplit(url)
    encode = (
        "; a password holding / ? # or @ must be percent-encoded (%2F %3F %23 %40)"
        if "@" in url
        else ""
    )
    try:
        parts.port  # noqa: B018 - parsing the port is the check
    except ValueError:
        return f"the port in {redact_url(url)!r} is not a number from 0 to 65535{encode}"
    if "@" in parts.path + parts.query + parts.fragment:  # unquoted: the mask cannot tell
        return f"the URL holds an '@' after its host{encode}"  # "h:1234/x@y" from a password
    return None


def described(exc: BaseException, limit: int | None = None) -> str:
    """An error as messages show it: its type and its text, credentials masked before the text
    is cut to ``limit`` characters (a cut could leave a URL's "@" out of reach of the mask)."""
    text = redact(str(exc))[:limit]
    # A time-out or a dropped connection often carries no text: its name alone, not "X: ".
    return f"{type(exc).__name__}: {text}" if text.strip() else type(exc).__name__


def _hide_query(record: logging.LogRecord) -> None:
    """An access log line's query string masked ("GET /stats?***"): it may hold a key sent as
    ``?api_key=`` or a search's words, neither of which belongs in a log."""
    args = record.args
    if record.name == "uvicorn.access" and isinstance(args, tuple) and len(args) >= 3:
        path = args[2]
        if isinstance(path, str) and "?" in path:
            record.args = (*args[:2], f"{path.partition('?')[0]}?{MASK}", *args[3:])


class RedactingFilter(logging.Filter):
    """Masks URL credentials in a record's message (its arguments rendered first), and the
    query string of uvicorn's access log lines."""

    def filter(self, record: logging.LogRecord) -> bool:
        _hide_query(record)
        message = record.getMessage()
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        if record.exc_info and record.exc_info[1] is not None:
            # Formatters print exc_text when it is set, rather than formatting exc_info again.
            record.exc_text = redact(logging.Formatter().formatException(record.exc_info))
        return True
