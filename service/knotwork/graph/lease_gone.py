"""Whether a lease's holder is a process of this machine that is no longer running.

A watcher killed (``kill -9``, a crash, the OOM killer) keeps its lease until it lapses, ``ttl``
seconds after its last heartbeat; a writer started meanwhile was refused with the holder's host
and pid, and told the watcher does its work — of a process that no longer exists. When the
holder ran in this very process namespace, its pid tells whether it still runs, and the writer
can wait out the few seconds left instead.

The host name alone does not say so: containers may share one while each has its own pids, so
the lease records where its holder ran (``process_ns``: this boot of the kernel and this pid
namespace, hashed). A holder recorded before that, or elsewhere, is never judged gone; a pid
reused by another process keeps it judged alive (the writer is refused, as before), never the
other way round.
"""

from __future__ import annotations

import functools
import hashlib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any


@functools.cache
def process_ns() -> str | None:
    """This kernel boot and pid namespace, hashed; None where /proc does not tell them."""
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
        pids = os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return None
    return hashlib.sha256(f"{boot}:{pids}".encode()).hexdigest()[:16]


def holder_gone(row: Mapping[str, Any], holder: str) -> bool:
    """Whether the lease ``row`` (as lease_acquire or lease_get return it) is held by another
    holder than ``holder`` that ran in this pid namespace and is no longer running."""
    ns, pid = process_ns(), row.get("pid")
    if ns is None or row.get("process_ns") != ns or row.get("holder") in (None, holder):
        return False
    if not isinstance(pid, int) or pid <= 0:
        return False
    if pid == os.getpid():  # another holder of this very process (its leases differ): it runs
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # another user's process: it runs
        return False
    return False
