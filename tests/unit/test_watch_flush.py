"""A stopping watcher's last flush (watch/watcher.py ``_flush``): it applies what waits, then
the notes of a folder that just appeared; while a replaced vault folder waits to be judged
nothing applies, so it ends at once and waits for no listing (the next start's sync judges)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

from knotwork.watch.events import Pending
from knotwork.watch.watcher import VaultWatcher


def _stand_in(judging: bool, calls: list[str]) -> SimpleNamespace:
    class Created:
        async def listed(self) -> None:
            calls.append("listed")

    async def process_due() -> None:
        calls.append("applied")

    return SimpleNamespace(
        pending={"a.md": Pending(10.0, 0.0)},
        judging=judging,
        debounce=0.05,
        _created=Created(),
        _process_due=process_due,
    )


@pytest.mark.parametrize("judging", [False, True])
async def test_a_stop_flush_ends_and_waits_for_a_listing_only_when_not_judging(
    judging: bool,
) -> None:
    calls: list[str] = []
    stand_in = _stand_in(judging, calls)
    await asyncio.wait_for(VaultWatcher._flush(stand_in), 2)  # type: ignore[arg-type]
    assert calls == (["applied"] if judging else ["applied", "listed"])
    assert stand_in.pending["a.md"].due == 0.0  # made due at once
