"""A chain of folders nested thousands deep, made and taken apart without recursion and
without a path past PATH_MAX: ``os.makedirs`` and ``shutil.rmtree`` (pytest's clean-up of old
temporary folders too) recurse once per level in Python 3.11, and a path that long cannot be
named to the system at all."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

LEVEL = "d"  # each folder of the chain: d/d/d/…


def nest(root: Path, depth: int, notes: dict[int, str]) -> None:
    """``depth`` folders ``d`` inside each other in ``root``, each made from the one above's
    descriptor; ``notes`` puts a note (its name) in the folder that many levels down."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for level in range(1, depth + 1):
            os.mkdir(LEVEL, dir_fd=fd)
            inner = os.open(LEVEL, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = inner
            if name := notes.get(level):
                note = os.open(name, os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
                os.write(note, f"# {name}\n\nLevel {level}.\n".encode())
                os.close(note)
    finally:
        os.close(fd)


def unnest(root: Path) -> None:
    """The chain in ``root`` taken apart from the top, a level at a time: each level's folder
    moved aside, its child moved up into its place, then emptied and removed."""
    top, aside = root / LEVEL, root / f".{LEVEL}-gone"
    while top.is_dir():
        os.rename(top, aside)
        for name in os.listdir(aside):
            if name == LEVEL:
                os.rename(aside / LEVEL, top)
            else:
                os.remove(aside / name)
        os.rmdir(aside)


@contextlib.contextmanager
def nested(root: Path, depth: int, notes: dict[int, str]) -> Iterator[None]:
    """``nest`` for the time of a test; always taken apart after (``unnest``)."""
    try:
        nest(root, depth, notes)
        yield
    finally:
        unnest(root)


def chain(depth: int) -> str:
    """The vault-relative path of the chain's folder ``depth`` levels down."""
    return "/".join([LEVEL] * depth)
