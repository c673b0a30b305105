"""Where a long command stands when Ctrl-C or SIGTERM stops it, said as its last line: how far
`ingest` got (the notes its sync reports committed) and `reembed` (read off the report it
fills in), what to run to finish, and that `verify` changed nothing. The process then ends
by the signal (cli/app.with_core). `ingest` says the same when Neo4j goes away under it."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from knotwork.cli.escaped import say
from knotwork.errors import GraphUnavailableError
from knotwork.graph import schema
from knotwork.graph.schema import Reembedded
from knotwork.ingest.changes import Progress, SyncReport, SyncStep
from knotwork.ingest.sync import sync_vault
from knotwork.plural import counted

if TYPE_CHECKING:
    from knotwork.core import Core
    from knotwork.graph.schema import Embed
    from knotwork.ingest.ingestor import Ingestor


@dataclass
class SyncStopped:
    """How far `ingest` got: the notes its sync committed (``report``, which it fills in as
    each batch's transaction ends, not the bar's last tick) of those it writes (changed, new,
    moved, deleted)."""

    report: SyncReport = field(default_factory=SyncReport)  # passed to sync_vault
    changes: int | None = None  # known once the sync writes its first batch
    extracting: bool = False  # the model's extraction of a written batch began
    synced: bool = False  # the sync ended (the relevance gate's calibration after it)

    def follow(self, progress: Progress) -> Progress:
        """``progress`` as the sync tells it, the notes it writes and its steps noted."""

        def told(done: int, total: int, what: str) -> None:
            step = SyncStep.of(what)
            if step is SyncStep.WRITING:
                self.changes = total
            self.extracting = self.extracting or step is SyncStep.EXTRACTING
            progress(done, total, what)

        return told

    async def sync(self, ingestor: Ingestor, progress: Progress, new_folder: bool) -> SyncReport:
        """``sync_vault`` followed: its progress steps and the report it fills in."""
        return await sync_vault(
            ingestor, self.follow(progress), new_folder=new_folder, report=self.report
        )

    def said(self, again: str = "run `knotwork ingest` again to finish") -> str:
        if self.synced:
            return (
                "stopped while calibrating the relevance gate: the sync is done, and the next "
                "`knotwork ingest` (or `knotwork watch`) calibrates it"
            )
        if self.changes is None:
            return f"stopped before any note was written; {again}"
        of = counted(self.changes, "changed note")
        said = (
            f"stopped: {self.report.committed} of {of} written (each batch whole or not at "
            f"all); {again}"
        )
        if self.extracting:  # a batch's chunks the model had not read yet: not a sync's work
            said += "; chunks not extracted yet wait for `knotwork retry`"
        return said

    def unreachable(self) -> str:
        """``said`` when Neo4j went away: the same count, the rerun once it is back."""
        return self.said("run `knotwork ingest` again once Neo4j is back to finish")

    @contextlib.contextmanager
    def unreachable_said(self) -> Iterator[None]:
        """Neo4j gone under the sync: ``unreachable`` said, then the error goes on (exit 1)."""
        try:
            yield
        except GraphUnavailableError:
            say(self.unreachable())
            raise


@dataclass
class ReembedStopped:
    """How far `reembed` got, as ``schema.reembed`` fills in its report: whether the manifest
    was marked, the chunks re-embedded (those the model refused not among them) of all, and
    whether it ended."""

    done: Reembedded = field(default_factory=Reembedded)

    async def reembed(
        self,
        core: Core,
        embed: Embed,
        progress: Callable[[int, int, str], None],
        holder: str,
    ) -> Reembedded:
        """``schema.reembed`` under the leases of ``holder`` taken, how far it got noted."""

        def told(seen: int, total: int) -> None:
            progress(seen, total, "re-embedding chunks")

        return await schema.reembed(
            core.store, core.settings, embed, told, holder=holder, report=self.done
        )

    def said(self) -> str:
        done = self.done
        if not done.marked:
            return "stopped before re-embedding began: nothing was changed"
        if done.ended:
            return (
                "stopped after every chunk was re-embedded and the manifest written: entity "
                "names are embedded again by `knotwork retry` or the next note write"
            )
        of = f" of {counted(done.total, 'chunk')}" if done.total is not None else " chunks"
        return (
            f"stopped: {done.embedded}{of} re-embedded; the graph stays refused until `knotwork "
            "reembed` completes: run it again to finish (it re-embeds every chunk)"
        )


def verify_stopped() -> str:
    """verify writes only into its scratch vault, dropped on the way out."""
    return (
        "stopped: verify compared nothing and changed nothing (its scratch copy is dropped); "
        "run `knotwork verify` again to compare"
    )
