"""What the local Neo4j's launcher asks of the machine: a Java of a supported version, whether
a process is alive (a zombie child is not), whether a port on 127.0.0.1 is taken, and whether a
Bolt server answers on one.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import subprocess
from pathlib import Path

from knotwork.errors import LocalNeo4jError

SUPPORTED_JAVA = (17, 21)


def find_java() -> str:
    """The first Java of a supported version: JAVA_HOME's, the PATH's, then /usr/lib/jvm's."""
    candidates = []
    if os.environ.get("JAVA_HOME"):
        candidates.append(Path(os.environ["JAVA_HOME"]) / "bin" / "java")
    if which := shutil.which("java"):
        candidates.append(Path(which))
    candidates += sorted(Path("/usr/lib/jvm").glob("*/bin/java"))
    for java in candidates:
        if java.is_file() and java_major(java) in SUPPORTED_JAVA:
            return str(java)
    raise LocalNeo4jError(
        f"no Java {' or '.join(map(str, SUPPORTED_JAVA))} found (JAVA_HOME, "
        "PATH, /usr/lib/jvm); Neo4j 5.26 needs one of them."
    )


def java_major(java: Path) -> int | None:
    try:
        out = subprocess.run(
            [str(java), "-version"], capture_output=True, text=True, timeout=30, check=False
        ).stderr
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = re.search(r'version "(\d+)', out)
    return int(match.group(1)) if match else None


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie child of ours counts as gone.
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    if state == "Z":
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
        return False
    return True


def port_open(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def bolt_answers(port: int) -> bool:
    """True when a Bolt server on the port completes the version handshake."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1.0) as sock:
            # Magic preamble, then four proposals: 5.0-5.4, 4.4, none, none.
            sock.sendall(bytes.fromhex("6060b01700040405000004040000000000000000"))
            reply = sock.recv(4)
    except OSError:
        return False
    return len(reply) == 4 and reply != b"\x00\x00\x00\x00"
