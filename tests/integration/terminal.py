"""A command run as a person runs it at a terminal: stdout and stderr each a pseudo-terminal
(so the CLI draws its progress bar and spinner, and streams an answer), every write kept with
the time it was read."""

from __future__ import annotations

import codecs
import os
import pty
import re
import select
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

_CONTROL = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")  # colours, cursor moves, line erases


@dataclass
class Screen:
    """What a command wrote to each terminal: (seconds since its start, text) per read."""

    out: list[tuple[float, str]] = field(default_factory=list)
    err: list[tuple[float, str]] = field(default_factory=list)
    code: int | None = None

    @property
    def stdout(self) -> str:
        return "".join(text for _, text in self.out).replace("\r\n", "\n")

    def frames(self) -> list[str]:
        """Each state of stderr's lines as drawn (a redraw starts at a carriage return), the
        control sequences taken out."""
        drawn = _CONTROL.sub("", "".join(text for _, text in self.err))
        return [line.strip() for line in re.split(r"[\r\n]", drawn) if line.strip()]

    def first_out(self, text: str) -> float:
        """When stdout had first written ``text`` (the reads up to it joined)."""
        seen = ""
        for at, chunk in self.out:
            seen += chunk.replace("\r\n", "\n")
            if text in seen:
                return at
        raise AssertionError(f"{text!r} never written: {seen!r}")


def at_terminal(*args: str, cwd: Path, timeout_s: float = 120.0) -> Screen:
    """``knotwork ARGS`` with stdout and stderr on terminals 120 columns wide (the settings
    from the environment, as the ``env`` fixture sets it), until it ends."""
    out_main, out_side = pty.openpty()
    err_main, err_side = pty.openpty()
    env = {**os.environ, "COLUMNS": "120", "TERM": "xterm-256color"}
    started = time.monotonic()
    child = subprocess.Popen(
        [sys.executable, "-m", "knotwork.cli", *args],
        stdin=subprocess.DEVNULL,
        stdout=out_side,
        stderr=err_side,
        env=env,
        cwd=cwd,
    )
    os.close(out_side)
    os.close(err_side)
    screen = Screen()
    open_ = {out_main: screen.out, err_main: screen.err}
    # Decoded as it comes: a spinner frame's character may be split across two reads.
    text = {fd: codecs.getincrementaldecoder("utf-8")("replace") for fd in open_}
    try:
        while open_ and time.monotonic() - started < timeout_s:
            ready, _, _ = select.select(list(open_), [], [], 0.5)
            for fd in ready:
                try:
                    data = os.read(fd, 65536)
                except OSError:  # EIO: the command closed its side
                    data = b""
                if not data:
                    del open_[fd]
                    continue
                open_[fd].append((time.monotonic() - started, text[fd].decode(data)))
        screen.code = child.wait(timeout=max(1.0, timeout_s - (time.monotonic() - started)))
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        os.close(out_main)
        os.close(err_main)
    return screen
