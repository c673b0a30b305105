"""A journal entry and its line (``journal.py`` keeps them): what one pending write says of
itself, so the replay and the prune of the writes a watcher applied (serving/watched.py) tell
which write it is and what it puts in the graph."""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

DELETED = "deleted"  # the intent of a delete: the graph holds no such note
LANDED = "landed"  # the state of an entry whose write changed its file


class Entry(NamedTuple):
    """One write's line: path, token, intent and state, tab-separated, then any fields a later
    version adds, kept as read. An older version's line has the path alone, or the path and the
    token (and it reads a line of this one as a path and a long token, written back whole)."""

    path: str  # vault-relative
    token: str  # the write's own, so it takes back its entry and no other
    intent: str = ""  # the content hash the write puts in the graph, DELETED, or "" (unknown)
    state: str = ""  # LANDED once the write's file changed
    rest: str = ""  # a later version's fields: dropping them could lose what it relies on

    @property
    def key(self) -> tuple[str, str]:
        """Which write: the same once its state changes."""
        return (self.path, self.token)

    @property
    def landed(self) -> bool:
        return self.state == LANDED


def parse_line(line: str) -> Entry:
    path, token, intent, state, rest = [*line.split("\t", 4), "", "", "", ""][:5]
    return Entry(path, token, intent, state, rest)  # a path holds no tab


def entry_line(entry: Entry) -> str:
    fields = list(entry)
    while len(fields) > 2 and not fields[-1]:  # as short as an older version's line
        fields.pop()
    return "\t".join(fields) + "\n"


def marks_file(journal: Path) -> Path:
    """Beside the journal: the tokens of its entries whose write changed the file (``LANDED``),
    one a line, until the journal's next rewrite writes them into its lines."""
    return journal.with_name(f"{journal.name}.landed")


def read_marks(file: Path) -> set[str]:
    """The tokens marked; a line a crash cut or garbled (NUL bytes) marks nothing."""
    try:
        text = file.read_text(encoding="ascii", errors="replace")
    except FileNotFoundError:
        return set()
    return {token for token in text.split("\n") if token.isascii() and token.isalnum()}


def append_mark(file: Path, token: str) -> None:
    """Mark ``token``'s entry landed: one small append, neither flushed nor rewritten (the
    journal's own rewrite needs an fsync, for a crash to leave its old list or its new one)."""
    fd = os.open(file, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, f"\n{token}\n".encode("ascii"))  # a line of its own after a cut one
    finally:
        os.close(fd)
