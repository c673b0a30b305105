"""What a sync did and what the graph holds after it, printed for a person (the summary
`ingest` and `watch` print), and the relevance gate calibrated after a vault's first sync."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import typer

from knotwork.cli.app import MAX_LISTED
from knotwork.cli.escaped import say
from knotwork.core import Core
from knotwork.errors import ModelUnavailableError
from knotwork.graph.queries.admin import UNRESOLVED_LINKS, UnresolvedLinksRow
from knotwork.ingest.changes import CHAT_DOWN, CHAT_GARBAGE
from knotwork.ingest.modelcalls import EMBED_DOWN, EMBED_REJECTED
from knotwork.ingest.sync import Progress, SyncReport
from knotwork.plural import counted, plural
from knotwork.retrieve.calibrate import calibrate_owed
from knotwork.retrieve.relevance import FLOOR_SPREAD, Calibration


@dataclass
class SyncSummary:
    """What a sync did, and what the graph holds after it (the reverse mention pass and other
    writers' work included), for the summary a person reads."""

    report: SyncReport
    unresolved: list[UnresolvedLinksRow]
    stats: dict[str, Any]


async def sync_summary(core: Core, report: SyncReport, vault: str) -> SyncSummary:
    from knotwork.retrieve.notes import vault_stats

    unresolved = await core.store.read(UNRESOLVED_LINKS, vault=vault)
    return SyncSummary(report, unresolved, await vault_stats(core))


RETRY_HINT = "`knotwork retry` finishes them once the model answers"
# A sync that met no model trouble did not leave what waits: an earlier run did (one cut off
# before its extraction), and no model has to come back for `knotwork retry` to finish it.
EARLIER_HINT = "`knotwork retry` (or the watcher) finishes them, left by an earlier run"
SOURCES_LISTED = 3  # the notes named for each unresolved link
# Why the sync left chunks pending (SyncReport.waits_for), as the summary says it. None is
# said when the sync met no trouble: what waits was left by an earlier run, or by design (a
# watcher extracts beside its writes).
WHY_PENDING = {
    EMBED_DOWN: "the embedding model was not available",
    EMBED_REJECTED: "the embedding model answered vectors that could not be stored",
    CHAT_DOWN: "the chat model was not available",
    CHAT_GARBAGE: "the chat model answered garbage",
}


def print_sync(summary: SyncSummary, finisher: str = RETRY_HINT) -> None:
    """A sync's summary; ``finisher`` says what finishes the chunks left pending (the default
    said by cause: this sync's model trouble, or an earlier run's leftovers)."""
    report, stats = summary.report, summary.stats
    # The notes listed that no outcome counts (unreadable: binary, too large; or failed) are
    # said, so the counts add up to the total; the errors below name them.
    unread = report.notes - report.written - report.unchanged - report.renamed
    said_unread = f", not ingested {unread} (errors below)" if unread > 0 and report.errors else ""
    say(
        f"notes {report.notes}: written {report.written}, unchanged {report.unchanged}, "
        f"moved {report.renamed}, deleted {report.deleted}{said_unread}"
    )
    say(
        f"chunks {report.chunks} (embedded {report.embedded}), model extractions {report.extracted}"
    )
    if report.linked:
        say(f"similar entities linked: {report.linked}")
    facts = ", ".join(f"{k} {v}" for k, v in sorted(stats["facts"].items())) or "none"
    say(f"facts in the graph by extractor: {facts}")
    if summary.unresolved:
        say(f"unresolved links: {len(summary.unresolved)}")
        for row in summary.unresolved[:MAX_LISTED]:  # a list cut short says so
            sources, more = row["sources"], len(row["sources"]) - SOURCES_LISTED
            cut = f", … and {more} more" if more > 0 else ""
            say(f"  [[{row['target']}]] from {', '.join(sources[:SOURCES_LISTED])}{cut}")
        if (left := len(summary.unresolved) - MAX_LISTED) > 0:
            say(f"  … and {left} more unresolved {plural(left, 'link')}")
    if pending := _pending(stats["pending_embeddings"], stats["pending_extractions"]):
        why = "; ".join(WHY_PENDING.get(w, w) for w in report.waits_for)
        if finisher == RETRY_HINT and not report.waits_for:
            finisher = EARLIER_HINT
        say(
            f"pending: {pending}{f' ({why})' if why else ''}; {finisher}",
            fg=typer.colors.YELLOW,
        )
    if failed := stats["extraction_errors"]:
        say(
            f"model extraction failed for good on {counted(failed, 'chunk')} (the model's "
            "answers could not be read, or it refused the text); after changing the model or "
            f"its context, `knotwork retry --errors` tries {plural(failed, 'it', 'them')} again",
            fg=typer.colors.YELLOW,
        )
    # A model's trouble every note met alike is the pending line's "why", not a warning a note.
    warnings = report.own_warnings
    for warning in warnings[:MAX_LISTED]:
        say(f"warning: {warning}", fg=typer.colors.YELLOW)
    if len(warnings) > MAX_LISTED:
        more = len(warnings) - MAX_LISTED
        say(f"… and {more} more {plural(more, 'warning')}", fg=typer.colors.YELLOW)
    for error in report.errors:
        say(f"error: {error}", fg=typer.colors.RED)


def _pending(embeddings: int, extractions: int) -> str:
    """What the chunks owe, each step only when some chunk owes it: '2 chunks wait for their
    embedding, 5 for model extraction', '5 chunks wait for model extraction'."""
    said = []
    if embeddings:
        said.append(f"{_wait(embeddings)} for {plural(embeddings, 'its', 'their')} embedding")
    if extractions:  # after the embeddings, "chunks" is understood
        said.append(f"{extractions if said else _wait(extractions)} for model extraction")
    return ", ".join(said)


def _wait(n: int) -> str:
    return f"{counted(n, 'chunk')} {plural(n, 'waits', 'wait')}"


async def calibrate_once(
    core: Core,
    vault: str,
    summary: SyncSummary,
    progress: Progress | None = None,
    owed: Callable[[], None] | None = None,
) -> Calibration | None:
    """The relevance gate calibrated after a sync (``calibrate_owed``), once the sync left no
    chunk waiting for its embedding; ``progress`` counts the probes asked. ``owed`` is told when
    it is left for later (chunks still waiting, or the model down): a running watcher tries
    again."""

    async def pending() -> bool:
        return bool(summary.stats["pending_embeddings"])

    tried = await calibrate_owed(core, vault, pending, _model_down, progress)
    if tried.owed and owed is not None:
        owed()
    return tried.made


def _model_down(exc: ModelUnavailableError) -> None:
    """The sync is done: the next one calibrates (the error says so)."""
    say(f"warning: {exc}", fg=typer.colors.YELLOW)


def print_calibration(calibration: Calibration) -> None:
    say(
        f"relevance floor {calibration.floor:.2f} for {calibration.embed_model}: "
        f"{FLOOR_SPREAD:g} standard deviations over the mean ({calibration.probe_mean:.2f}) "
        f"of all but the top tenth of {calibration.probes} off-topic probe questions "
        f"({', '.join(calibration.languages)})"
    )
