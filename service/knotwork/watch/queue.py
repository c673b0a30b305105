"""Between watchdog's thread and the watcher's loop: the observer, a bounded hand-over and overflow
signals.

An editor, a sync tool or a ``git checkout`` can fire events faster than notes are ingested. The
gate keeps at most ``watch_queue_max`` events in flight; beyond that, and whenever the kernel's
inotify queue overflows, events are dropped and the watcher reconciles the whole vault instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver
from watchdog.observers.polling import PollingObserver

from knotwork.errors import VaultUnavailableError

log = logging.getLogger(__name__)

# watchdog's inotify reader reports IN_Q_OVERFLOW only as a warning on this logger; it rebuilds
# its watches but hands no event to handlers, so the log record is the one signal there is.
INOTIFY_LOGGER = "watchdog.observers.inotify_c"
# Reading a file changes nothing the graph holds.
IGNORED_EVENTS = frozenset({"opened", "closed_no_write"})


@dataclass
class WatchStatus:
    mode: str = "inotify"
    events: int = 0
    last_event_at: str | None = None
    lag_ms: float = 0.0  # from the last event to its note being in the graph
    processed: int = 0
    errors: int = 0
    rescans: int = 0
    overflows: int = 0
    last_overflow: str | None = None  # when and why events were dropped for a rescan
    warning: str | None = None
    # The folder followed, by path and by (device, inode): a REST write is left to this
    # watcher only by a server whose vault folder is this one (vault/folders.py ``follows``).
    folder: str | None = None
    folder_id: str | None = None
    stopping: bool = False  # from then on it takes no REST write: it may not see one

    def report(self, queue: int) -> dict[str, Any]:
        return {
            "mode": self.mode,
            # REST writes made meanwhile are left to this watcher (202), until it stops.
            "watches": not self.stopping,
            "folder": self.folder,
            "folder_id": self.folder_id,
            "events": self.events,
            "last_event_at": self.last_event_at,
            "lag_ms": round(self.lag_ms, 1),
            "queue": queue,
            "processed": self.processed,
            "errors": self.errors,
            "rescans": self.rescans,
            "overflows": self.overflows,
            "last_overflow": self.last_overflow,
            "warning": self.warning,
        }


@dataclass(eq=False)  # watchdog keeps handlers in a set
class EventGate(FileSystemEventHandler):
    """Runs in watchdog's thread: hands events to the loop, at most ``limit`` in flight.

    Beyond the bound it stops queueing and asks the loop (once) for an overflow rescan, so a
    flood of events cannot grow memory without end; ``resume()`` re-opens the gate.
    """

    loop: asyncio.AbstractEventLoop
    sink: Callable[[FileSystemEvent], None]
    overflow: Callable[[str], None]
    limit: int
    inflight: int = 0
    dropping: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in IGNORED_EVENTS:
            return
        with self._lock:
            if self.dropping:
                return
            if self.inflight >= self.limit:
                self.dropping = True
                reason = f"more than {self.limit} events waiting to be read"
                self.loop.call_soon_threadsafe(self.overflow, reason)
                return
            self.inflight += 1
        self.loop.call_soon_threadsafe(self._deliver, event)

    def _deliver(self, event: FileSystemEvent) -> None:
        with self._lock:
            self.inflight -= 1
        self.sink(event)

    def resume(self) -> None:
        with self._lock:
            self.dropping = False


class OverflowLog(logging.Handler):
    """Turns watchdog's "inotify queue overflowed" warning into an overflow rescan."""

    def __init__(self, loop: asyncio.AbstractEventLoop, overflow: Callable[[str], None]) -> None:
        super().__init__(logging.WARNING)
        self.loop, self.overflow = loop, overflow

    def emit(self, record: logging.LogRecord) -> None:
        if "overflow" in record.getMessage().lower():
            with contextlib.suppress(RuntimeError):  # the loop is already closed
                self.loop.call_soon_threadsafe(
                    self.overflow, "the kernel's inotify queue overflowed (IN_Q_OVERFLOW)"
                )


def start_observer(
    root: Path, handler: FileSystemEventHandler, polling: bool, status: WatchStatus
) -> BaseObserver:
    """watchdog's observer of the vault folder, started: inotify, or polling when asked or
    when inotify cannot be had (its watch limit reached), said in ``status``."""
    observer: BaseObserver = PollingObserver(timeout=1) if polling else Observer()
    observer.schedule(handler, str(root), recursive=True)
    try:
        observer.start()
    except RecursionError as exc:  # watchdog walks the folder with os.walk, which recurses
        raise VaultUnavailableError(
            f"the vault folder {root} holds a folder nested too deep for the file observer "
            "to watch (watchdog walks it recursively: about 1,000 folder levels at most); "
            "flatten that folder, or sync the vault with `knotwork ingest` instead (nothing "
            "in the graph was changed)"
        ) from exc
    except OSError as exc:
        if exc.errno not in (errno.ENOSPC, errno.EMFILE, errno.ENFILE):
            raise  # the folder itself (gone, unreadable): not inotify's limits
        status.mode, status.warning = (
            "polling",
            (
                f"inotify unavailable ({exc}); polling instead, changes show up slower. Raise "
                "fs.inotify.max_user_watches to fix it."
            ),
        )
        log.warning("%s", status.warning)
        observer = PollingObserver(timeout=1)
        observer.schedule(handler, str(root), recursive=True)
        observer.start()
    return observer


def deaf(observer: BaseObserver) -> bool:
    """An observer alive whose watch has ended (its folder was deleted)."""
    return any(not emitter.is_alive() for emitter in observer.emitters)
