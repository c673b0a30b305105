"""A batch written whole, else item by item, so one bad item costs only itself.

The watcher writes a pass's moves (watch/moves.py) and its plain changes (watch/bulk.py) in
batches of one transaction each; a batch refused goes one by one, and so do the items a batch
that went leaves out (a note it could not read). This is that shape, once.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Generic, TypeVar

from knotwork.errors import GraphUnavailableError, ManifestMismatchError, VaultUnavailableError

if TYPE_CHECKING:
    from knotwork.watch.apply import Applier
    from knotwork.watch.events import Pending

log = logging.getLogger("knotwork.watch.apply")  # the watcher's writes say it as one

T = TypeVar("T")
Change = tuple[str, "Pending"]  # a path due and its change

# What no note written alone gets past, for the watcher's batches: raised, not tried one by
# one (Neo4j or the vault folder away: they all wait; a graph re-embedded under it stops it).
STOP = (GraphUnavailableError, VaultUnavailableError, ManifestMismatchError)


@dataclass
class Fallback(Generic[T]):
    """How a batch went: ``refused`` is why it went one by one (None: written whole, apart
    from the items it left out); ``failed``, each single refused and why; ``ended``, a single
    ended the run, and ``left``, the singles after it, not tried (in their order)."""

    refused: Exception | None = None
    failed: list[tuple[T, Exception]] = field(default_factory=list)
    ended: bool = False
    left: list[T] = field(default_factory=list)


async def batch_or_singles(
    items: Sequence[T],
    write_batch: Callable[[Sequence[T]], Awaitable[Sequence[T]]],
    write_one: Callable[[T], Awaitable[bool]],
    *,
    stop: tuple[type[BaseException], ...] = (),
    on_refused: Callable[[Exception], None] | None = None,
) -> Fallback[T]:
    """Write ``items`` as one batch, then alone each item the batch left out (what
    ``write_batch`` returns), or every item when the batch is refused.

    ``stop``: errors no item alone would get past (the database or the folder away): raised
    from the batch or a single, not tried one by one. Any other error refuses the batch (told
    to ``on_refused`` before the singles) or just its single, recorded in ``failed``, the
    others still written. ``write_one`` returns False to end the run: the rest go to ``left``.
    """
    out: Fallback[T] = Fallback()
    try:
        singles: Sequence[T] = await write_batch(items)
    except stop:
        raise
    except Exception as exc:
        out.refused, singles = exc, items
        if on_refused is not None:
            on_refused(exc)
    for i, item in enumerate(singles):
        try:
            going = await write_one(item)
        except stop:
            raise
        except Exception as exc:
            out.failed.append((item, exc))
            continue
        if not going:
            out.ended, out.left = True, list(singles[i + 1 :])
            break
    return out


async def apply_in_batch(
    applier: Applier,
    changes: list[Change],
    consumed: set[str],
    write_batch: Callable[[Sequence[Change]], Awaitable[Sequence[Change]]],
    write_one: Callable[[Change], Awaitable[bool]] | None = None,
    what: str = "changes",
) -> bool:
    """A pass's changes written as one batch, else one by one (``Applier.apply_one`` unless
    ``write_one``): False when the pass ends (Neo4j or the vault folder away: they all wait,
    the rest of the pass with them)."""

    async def one(change: Change) -> bool:
        return await applier.apply_one(*change, consumed)

    def refused(exc: Exception) -> None:  # refused by Neo4j, a note's own error, a bug
        log.debug("a batch of %d %s failed (%s); written one by one", len(changes), what, exc)

    if len(changes) == 1:
        return await applier.apply_one(*changes[0], consumed)
    try:
        run = await batch_or_singles(
            changes, write_batch, write_one or one, stop=STOP, on_refused=refused
        )
    except (GraphUnavailableError, VaultUnavailableError) as exc:  # each waits, as one would
        applier.wait_out(changes, exc)
        return False
    for (rel, _), error in run.failed:  # apply_one says its own: only a bug gets here
        log.error("%s: unexpected failure: %s", rel, error)
    for later, waiting in run.left:
        applier.pending.setdefault(later, waiting)
    return not run.ended
