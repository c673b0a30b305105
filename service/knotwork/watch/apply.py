"""The paths due, applied to the graph as they are on disk (the full rescans between them:
watch/rescans.py); a failed write waits and is tried again, never fatal.

Each path due is written as it is on disk (watch/change.py: upsert, delete or rename, and a
note missing while the folder is away, or gone before its event is read, left alone). An
editor's atomic save (write a temp file, rename it over the note) is thus one modification.
Moves are applied first, in batches (watch/moves.py: a folder renamed), then the plain changes
in batches (watch/bulk.py: a folder copied in); a note that fails goes on its own. A change or
rescan that fails on the graph (Neo4j down or restarting) waits and is tried again every
``RETRY_GRAPH_S``: none is dropped and the watcher goes on; one that fails otherwise is tried
``MAX_ATTEMPTS`` times, then left to a rescan. A move given up still deletes its old path.
Which paths wait is watch/events.py's part; how one change is written, watch/change.py's;
when all this runs, watch/watcher.py's.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

from knotwork.errors import (
    GraphQueryError,
    GraphTransientError,
    GraphUnavailableError,
    KnotworkError,
    ManifestMismatchError,
    QueryTimeoutError,
    VaultUnavailableError,
)
from knotwork.ingest.ingestor import Ingestor
from knotwork.plural import counted, plural
from knotwork.watch.bulk import apply_batch, batch_size
from knotwork.watch.change import write_change
from knotwork.watch.events import Pending
from knotwork.watch.held import deletes_last
from knotwork.watch.moves import apply_moves
from knotwork.watch.queue import WatchStatus
from knotwork.watch.rescans import Rescans
from knotwork.watch.said import PassReport

log = logging.getLogger(__name__)

# A change or rescan that failed on the graph (Neo4j down or restarting) is tried again after
# this long; a change Neo4j refuses otherwise, at most MAX_ATTEMPTS times in all.
RETRY_GRAPH_S = 5.0
MAX_ATTEMPTS = 3
MAX_TRANSIENT = 12  # a transient Neo4j error on the same change: then it is left to a rescan


class Applier(Rescans):
    """The waiting paths of one vault folder written through ``ingestor``, and its rescans."""

    def __init__(self, ingestor: Ingestor, root: Path, status: WatchStatus) -> None:
        super().__init__(ingestor, root, status)
        self._applying = False  # a change taken off ``pending`` is being written
        self.said = PassReport()  # what each pass wrote, said at its end

    @property
    def graph_retry_s(self) -> float:
        return RETRY_GRAPH_S  # read at each try: a test shortens it here

    # -- changes ------------------------------------------------------------------------------

    async def _process_due(self) -> None:
        """Apply every change now due, moves first; Neo4j or the vault folder away puts the
        change back and ends the pass, so the rest wait for it too."""
        self._look_if_replaced()
        now = time.monotonic()
        # A move's old path waits for a move not yet due (an edit of the new path delays it):
        # applied alone it would be a delete, and the move a new note embedded all again.
        waiting = self.pending.values()
        sources = {v.moved_from for v in waiting if v.moved_from and not self.is_due(v, now)}
        due = sorted(
            (p for p, v in self.pending.items() if self.is_due(v, now) and p not in sources),
            key=lambda p: deletes_last(self.pending[p]),
        )  # moves first, deletes last
        consumed: set[str] = set()
        heard = self.status.events
        moves: list[tuple[str, Pending]] = []  # moves gathered for one batch, written first
        plain: list[tuple[str, Pending]] = []  # plain changes gathered for one batch
        size, bulk = batch_size(self.ingestor), sum(self.pending[p].moved_from is None for p in due)
        self._moves_left = {p for p in due if self.pending[p].moved_from}
        self._applying = True
        going = True
        try:
            for rel in due:
                self._moves_left.discard(rel)  # taken now, or left waiting: its source too
                now_due = self.pending.get(rel)
                if moves and (now_due is None or now_due.moved_from is None):
                    # The moves gathered are written before any other change (their old paths
                    # among them: a rename takes those).
                    going, moves = await apply_moves(self, moves, consumed), []
                    if not going:
                        break
                if self.status.events != heard:  # events came while the pass wrote
                    heard, sources = self.status.events, self.move_sources()
                if rel in consumed:  # a rename took it; an event since is a new change
                    continue
                if rel in sources:  # a move now leads out of it (moved on meanwhile): waits
                    continue
                item = self.pending.pop(rel, None)
                if item is None:
                    continue
                if item.moved_from is not None and not plain:  # moves: written in batches
                    moves.append((rel, item))
                    if len(moves) < size:
                        continue
                    going, moves = await apply_moves(self, moves, consumed), []
                elif item.moved_from is None and bulk > 1:  # a burst: written in batches
                    plain.append((rel, item))
                    if len(plain) < size:
                        continue
                    going, plain = await apply_batch(self, plain, consumed), []
                elif not plain:
                    going = await self.apply_one(rel, item, consumed)
                else:  # a move into a plain path came meanwhile: the next pass's
                    self.pending.setdefault(rel, item)
                    continue
                if not going:
                    break
            else:
                if moves:
                    going, moves = await apply_moves(self, moves, consumed), []
                if plain and going:
                    await apply_batch(self, plain, consumed)
                    plain = []
        finally:
            for rel, item in (*moves, *plain):  # gathered, not written (the pass ended): wait
                self.pending.setdefault(rel, item)
            self._applying, self._moves_left, self._moves_now = False, set(), False
            self.said.say()

    def done(self, item: Pending) -> None:
        """A change written: an outage it was waiting out is over. Said after the first
        change that waited is written (so no longer among ``pending``): the count is of the
        rest, worded so that none left reads as none lost."""
        self.folder_outage.ended()
        self.outage.ended(
            f"; the changes that waited are being written ({len(self.pending)} still to go)"
        )
        self.status.processed += 1
        self.status.lag_ms = (time.monotonic() - item.seen) * 1000

    async def apply_one(self, rel: str, item: Pending, consumed: set[str]) -> bool:
        """One change written alone: False when the pass ends (Neo4j or the folder away)."""
        try:
            if await write_change(self, rel, item, consumed):
                self.done(item)
        except (GraphUnavailableError, VaultUnavailableError) as exc:
            return not self.wait_out([(rel, item)], exc)
        except (GraphQueryError, QueryTimeoutError) as exc:  # refused, or past the time limit
            self._failed(rel, item, exc)
        except ManifestMismatchError:  # re-embedded under it: stops; its next start rescans
            raise
        except KnotworkError as exc:  # about the note itself: its next change retries
            self.status.errors += 1
            # A note's own errors name it already ("a.md: looks binary …").
            said = str(exc)
            log.warning("%s", said if said.startswith(f"{rel}:") else f"{rel}: {said}")
        except Exception as exc:  # a bug or an odd file: logged, tried again, never fatal
            log.exception("%s: unexpected failure", rel)
            self._failed(rel, item, exc)
        return True

    def wait_out(self, changes: list[tuple[str, Pending]], exc: Exception) -> bool:
        """``changes`` failed on Neo4j down or restarting, a transient error of one that
        answers, or the vault folder away: each waits and is tried again (a transient error
        counts against its cap, MAX_TRANSIENT; then it is left to a rescan), the rest of the
        pass with them; an outage is said once, a transient error each time. False when none
        waits (each at its cap)."""
        waiting = False
        for rel, item in changes:
            if isinstance(exc, GraphTransientError):
                if item.attempts + 1 >= MAX_TRANSIENT:
                    self._failed(rel, item, exc)
                    continue
                item.attempts += 1
            self._again(rel, item, attempts=item.attempts)
            waiting = True
        if not waiting:
            return False
        said = f"{counted(n := len(self.pending), 'change')} {plural(n, 'waits', 'wait')}"
        if isinstance(exc, GraphTransientError):  # Neo4j answers: said each time, not an outage
            log.warning("%s (transient); %s, tried again shortly", exc, said)
        elif isinstance(exc, GraphUnavailableError):
            self.outage.failed(exc, said)
        elif isinstance(exc, VaultUnavailableError):
            self.folder_outage.failed(exc, said)
        return True

    def _failed(self, rel: str, item: Pending, exc: BaseException) -> None:
        """A change Neo4j (or the code) refused: tried again, at most MAX_ATTEMPTS times in
        all; then a rescan brings whatever it could not do in step."""
        self.status.errors += 1
        log.warning("%s: %s (try %d)", rel, exc, item.attempts + 1)
        if item.attempts + 1 < MAX_ATTEMPTS:
            self._again(rel, item, attempts=item.attempts + 1)
        else:
            self._rescan_retry_at = time.monotonic() + RETRY_GRAPH_S

    def _again(self, rel: str, item: Pending, *, attempts: int) -> None:
        """Put a change that failed on the graph back, unless a newer one for the path came."""
        self.put_back(rel, item, time.monotonic() + RETRY_GRAPH_S, attempts, item.there)

    @property
    def idle(self) -> bool:
        """Nothing waiting or being written, no rescan due or under way."""
        return not (
            self.pending
            or self._applying
            or self._rescan.is_set()
            or self.rescan_waiting
            or self._dropping
            or self._rescanning
        )
