"""The model's work beside the writes, for the watcher and the API alike: the pending chunks
embedded and extracted in a background task, so a slow chat model (a minute a chunk on a CPU)
never holds the next change out of the graph. Each change written asks for a pass, and so does
every ``RETRY_PENDING_S`` (chunks a model down left pending); a pass asked for while one runs
follows it, since the running one read its chunks before the last writes. A pass is
``pending_work``, what ``knotwork retry`` does (ingest/retry.py) for a few chunks, under the
caller's lease: the watcher holds the vault's, the API takes it for each pass
(serving/extraction.py).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager, ExitStack
from dataclasses import dataclass, field
from functools import partial

from knotwork import background
from knotwork.errors import (
    GraphUnavailableError,
    KnotworkError,
    LeaseLostError,
    ManifestMismatchError,
)
from knotwork.ingest import owed as owing
from knotwork.ingest.changes import Progress
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.modelcalls import POSTPONED, ModelCalls
from knotwork.ingest.owed import DOING, Owed, named
from knotwork.outage import Outage

log = logging.getLogger(__name__)

MODEL_PASS = 64  # pending chunks read per pass: the newest changes' chunks join soon
PROGRESS_S = 10.0  # a line at most this often off a terminal, as `knotwork ingest` logs
# The step a pass's progress names, by the first word retry_pending gives it.
STEPS = {"embedded": "embedding chunks", "extracting": "extracting facts"}
# A terminal's progress bar (the CLI's), opened for a run once it moves and closed at its end.
Shown = Callable[[], AbstractContextManager[Progress]]


@dataclass
class _Run:
    """A run of passes, as the log says it: what it did of how much, and what it left. A
    pass's progress counts what it tried (a slice refused, an extraction postponed or failed:
    their chunks stay pending), what it returns what it did: the progress shown counts what
    the run tried, never going back as a pass ends; the run's last line what it did."""

    began: float
    said: float
    done: int = 0  # what the passes that ended did
    tried: int = 0  # what the passes that ended tried: the progress shown
    left: int | None = None  # what the chunks owed, when last counted
    total: int | None = None  # tried and what was left, when last counted
    exact: bool = False  # counted as the run ended (else: as it stood at the last count)
    doing: int = 0  # tried by the pass under way, as its progress last said
    step: str = named(())  # what the pass under way does, as its progress last said
    bar: Progress | None = None  # the terminal's bar, once the run moved it
    # The steps the run owed at a count or did (a chunk's embedding and its extraction are
    # two): its lines name these alone ("580 extractions" when every embedding is done).
    owes: set[str] = field(default_factory=set)

    def at(self, doing: int, owed: int) -> tuple[int, int | None]:
        """Tried with ``doing`` of the pass under way, of how much: the last count, else
        what the pass read (``owed``) beyond what the run tried before it."""
        tried = self.tried + doing
        if self.total is not None:
            return tried, max(tried, self.total)
        return tried, (self.tried + owed) if owed else None

    def passed(self, did: int, tried: int) -> None:
        """The pass under way ended, having done ``did`` of ``tried``; off what was left, as
        last counted (the next count, when Neo4j answers, says it exactly)."""
        self.done, self.tried, self.doing = self.done + did, self.tried + max(tried, did), 0
        self.left = None if self.left is None else max(self.left - did, 0)

    def ended(self, finished: bool) -> str:
        """Done only when nothing is left: a run that Ctrl-C, a lost lease, Neo4j or the
        model away cut off says it stopped, and how much it left."""
        took, what = f"in {time.monotonic() - self.began:.0f} s", named(self.owes)
        left = self.left
        if left == 0 or (left is None and finished):
            return f"pending model work done: {self.done} {what} {took}"
        if left is None:
            return f"pending model work stopped: {self.done} {what} done {took}"
        about = "" if self.exact else "about "
        of = f"{self.done} of {self.done + left}"
        return f"pending model work stopped ({about}{left} left): {of} {what} done {took}"


class ModelWork:
    """Passes of ``retry`` (embeddings and extractions done, for at most so many chunks, each
    slice embedded and chunk extracted told to its progress callback) run one at a time;
    ``left`` counts what the chunks still owe, by step (the "of N" of the progress)."""

    def __init__(
        self,
        retry: Callable[[int, Progress], Awaitable[int]],
        left: Callable[[], Awaitable[Owed]] | None = None,
    ) -> None:
        self._retry = retry
        self._left = left
        # A bar for the runs' progress (``knotwork watch`` on a terminal, once its own output
        # is done); without one, a log line every ``PROGRESS_S`` at most.
        self.shown: Shown | None = None
        self._task: asyncio.Task[None] | None = None
        self._again = False  # chunks written since the running pass read its own
        # The graph re-embedded with another model under this process: the passes end, and
        # the owner stops (a watcher) rather than ask again every period.
        self.refused: ManifestMismatchError | None = None

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def wanted(self) -> None:
        """A pass now, unless one runs: then another after it."""
        if self.running:
            self._again = True
        else:
            self._again = False
            self._task = asyncio.create_task(self._passes())

    async def stop(self) -> None:
        """End the work (at the end of the lease): what it had not done stays pending."""
        task, self._task = self._task, None
        await background.stop(task)

    async def _passes(self) -> None:
        """Pass after pass until one does nothing (none left, the model down or in its
        back-off, Neo4j away) and none was asked for meanwhile. How far a run is of how much
        moves with each slice embedded and chunk extracted (a CPU model takes a minute a
        chunk, a pass of 64 an hour): a bar, or a line every ``PROGRESS_S`` at most rather
        than one a chunk; the log says what the run did once it ends (a pass cut off: as far
        as its progress went). What is left is counted as it starts, after each pass that did
        something and at the end (not when stopped: then as last counted)."""
        run = _Run(began=time.monotonic(), said=time.monotonic())
        finished = False
        try:
            with ExitStack() as bar:  # closed before the run's end is said
                await self._count(run)
                while True:
                    self._again = False
                    did = await self._retry(MODEL_PASS, partial(self._moved, run, bar))
                    run.passed(did, run.doing)
                    if did:
                        await self._count(run)
                        self._moved(run, bar, 0, 0, "")
                    if not (did or self._again):
                        finished = True
                        return
        except ManifestMismatchError as exc:  # the owner says it, as it stops
            self.refused = exc
        except Exception:  # a bug: said, and the next change or period starts a pass again
            log.exception("the model's work on pending chunks failed")
        finally:  # also when stopped: what it did is in the graph, the rest stays pending
            run.passed(run.doing, run.doing)  # cut off: done as far as its progress said
            if run.done:
                if finished:
                    await self._count(run, last=True)
                log.info("%s", run.ended(finished))

    def _moved(self, run: _Run, bar: ExitStack, doing: int, owed: int, what: str) -> None:
        """The pass under way has done ``doing`` of the ``owed`` steps it read, the last
        ``what`` (retry_pending's progress; after a pass, none): the bar moves, or a line is
        logged once ``PROGRESS_S`` have passed since the last."""
        run.doing = doing
        run.step = next((s for word, s in STEPS.items() if what.startswith(word)), run.step)
        run.owes.update(kind for word, kind in DOING.items() if what.startswith(word))
        done, total = run.at(doing, owed)
        if self.shown is not None:
            if run.bar is None:
                run.bar = bar.enter_context(self.shown())
            run.bar(done, total or done, f"pending model work: {run.step}")
            return
        if (now := time.monotonic()) - run.said >= PROGRESS_S:
            run.said = now
            of = f"{done} of {total}" if total is not None else f"{done}"
            log.info("pending model work: %s %s done, %.0f s", of, named(run.owes), now - run.began)

    async def _count(self, run: _Run, *, last: bool = False) -> None:
        """What the chunks still owe, and ``run``'s total as it stands: tried, and that; as
        it was when Neo4j cannot say."""
        if self._left is None:
            return
        try:
            owed = await self._left()
        except KnotworkError as exc:
            log.debug("the pending model work not counted: %s", exc)
            return
        run.left, run.total, run.exact = owed.steps, run.tried + owed.steps, last
        run.owes |= owed.kinds


class Standing:
    """What the passes over the pending chunks meet, said once while it stands rather than once
    a pass (a pass follows every period while chunks wait): the chat model postponing their
    extraction is an outage of the model (``Outage``, said when it begins, with every note whose
    chunks wait, and when the model answers again), and a pass that cannot finish is said again
    only when its error changes.
    An extraction that failed for good (its chunk's error recorded) is said each time: it is
    not tried again. One per owner of the passes: the watcher, the API's extraction."""

    def __init__(self) -> None:
        self.model = Outage("the chat model", remind_s=None)
        self._failed = ""  # the failure of the last pass said: one that repeats is said once
        self._postponed = False  # the last pass's extractions were postponed: the model down

    def failed(self, message: str) -> None:
        """A pass that could not finish: ``message`` says why."""
        if message != self._failed:
            log.warning("%s", message)
        else:
            log.debug("%s", message)
        self._failed = message

    async def extractions(self, warnings: list[str], models: ModelCalls) -> None:
        """What a pass's extractions said (``retry_pending``'s warnings: "<note>: why"). A pass
        stops at the first chunk the model refuses: the warning counts all the chunks waiting,
        read as the outage begins (a line at debug level names the pass's notes after)."""
        postponed: dict[str, str] = {}  # note: why, for the extractions postponed
        for warning in warnings:
            note, _, why = warning.partition(POSTPONED)
            if why:
                postponed.setdefault(note, why)
            else:  # failed for good: each chunk's once, as it is not tried again
                log.warning("%s", warning)
        self._postponed = bool(postponed)
        if postponed:
            found = await models.waiting_for("extraction") if self.model.since is None else None
            waits = (
                f"waiting for extraction: {found}"
                if found is not None
                else f"the chunks pending extraction ({', '.join(postponed)}, …) wait"
            )
            self.model.failed(next(iter(postponed.values())), waits)

    def passed(self, extracted: int) -> None:
        """A pass that finished, having extracted so many chunks: a model that answered after
        an outage is back (a pass in its back-off asks it nothing, and says nothing)."""
        self._failed = ""
        if extracted and not self._postponed:
            self.model.ended(": the pending extractions resume")


async def pending_work(
    ingestor: Ingestor,
    limit: int,
    progress: Progress | None = None,
    *,
    said: Standing,
    outage: Outage | None = None,
) -> int:
    """What ``knotwork retry`` does for at most ``limit`` pending chunks, waiting out a model's
    back-off, under a lease the caller holds (the watcher's, the API's): how many chunks it did,
    each slice embedded and chunk extracted told to ``progress``.
    What it meets is said through the caller's ``said``, once while it stands (the chat model
    down, a pass that cannot finish); Neo4j away is said as ``outage`` (once, as the watcher
    says it), and a lease lost before a write ends the pass. A graph re-embedded with another
    model meanwhile raises ManifestMismatchError."""
    warnings: list[str] = []
    try:
        embedded, extracted = await ingestor.retry_pending(
            limit, ask_again=False, warnings=warnings, progress=progress
        )
    except GraphUnavailableError as exc:
        if outage is not None:
            outage.failed(exc, "the chunks a model left pending wait")
        else:
            log.debug("the chunks a model left pending wait for Neo4j: %s", exc)
        return 0
    except LeaseLostError as exc:  # found before a write: the heartbeat says it, and stops
        log.debug("pending model work stopped: %s", exc.lapsed)
        return 0
    except ManifestMismatchError:  # no pass can do anything: the caller refuses or stops
        raise
    except KnotworkError as exc:
        said.failed(f"pending model work not finished yet: {exc}")
        return 0
    finally:
        await said.extractions(warnings, ingestor.models)
    said.passed(extracted)
    if outage is not None and not ingestor.models.down:  # the chunks were read: Neo4j answers
        outage.ended()
    if embedded or extracted:  # a run of passes says its total (ModelWork)
        log.debug("pending model work: %d embedded, %d extracted", embedded, extracted)
    return embedded + extracted


def model_passes(ingestor: Ingestor, *, said: Standing, outage: Outage | None = None) -> ModelWork:
    """The passes of ``pending_work`` over ``ingestor``'s vault (the watcher's), their log
    counting what they did of all that its chunks owe."""
    return ModelWork(
        partial(pending_work, ingestor, said=said, outage=outage),
        partial(owing.owed, ingestor.models),
    )
