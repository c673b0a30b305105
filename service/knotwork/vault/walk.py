"""Walking the vault folder without recursion: ``os.walk`` recurses once per folder level in
Python 3.11, so a folder nested ~1,000 deep (made by any tool, or once by a REST write) raised
RecursionError in every sync, verify and watcher. A stack of ``os.scandir`` listings walks any
depth; a folder whose path grows past the system's limit (PATH_MAX) cannot be listed, and is
said so through ``onerror`` as any other folder that cannot be."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field


@dataclass
class Listed:
    """One folder's listing. ``dirs`` may be pruned by the caller (as ``os.walk``'s may) to
    keep the walk out of a folder; ``links`` are the names in it that are symbolic links."""

    path: str
    dirs: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    links: set[str] = field(default_factory=set)


def walk(top: str, onerror: Callable[[OSError], None]) -> Iterator[Listed]:
    """``os.walk(top, onerror=onerror, followlinks=False)`` top-down, iteratively, in the same
    order: a folder, then each kept folder in it depth-first in the order ``dirs`` holds.
    A link to a folder is listed in ``dirs`` (and ``links``) but never walked into; one that
    cannot be told a folder is a file, as ``os.walk`` takes it."""
    stack = [top]
    while stack:
        current = stack.pop()
        listed = Listed(current)
        try:
            with os.scandir(current) as entries:
                for entry in entries:
                    _sort(entry, listed)
        except OSError as exc:
            onerror(exc)
            continue
        yield listed
        # Reversed onto the stack: the first kept folder is walked first, as os.walk does.
        stack.extend(
            os.path.join(current, name)
            for name in reversed(listed.dirs)
            if name not in listed.links
        )


def _sort(entry: os.DirEntry[str], listed: Listed) -> None:
    """Put ``entry`` among the folder's dirs or files (and links), as ``os.walk`` would."""
    try:
        is_dir = entry.is_dir()  # a link to a folder counts as one, as os.walk counts it
    except OSError:
        is_dir = False
    try:
        if entry.is_symlink():
            listed.links.add(entry.name)
    except OSError:
        pass
    (listed.dirs if is_dir else listed.files).append(entry.name)
