"""The watcher's batch-else-singles shape (watch/fallback.py): a batch refused goes item by
item, a single refused costs only itself, an outage is raised and a single can end the run."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from knotwork.errors import GraphUnavailableError
from knotwork.watch.fallback import STOP, batch_or_singles


class Writes:
    """Records what was written; refuses the batch, or a named item alone."""

    def __init__(self, refuse_batch: bool, refuse: set[str], left_out: Sequence[str] = ()):
        self.refuse_batch, self.refuse, self.left_out = refuse_batch, refuse, list(left_out)
        self.batches: list[list[str]] = []
        self.singles: list[str] = []
        self.refusals: list[Exception] = []

    async def batch(self, items: Sequence[str]) -> Sequence[str]:
        if self.refuse_batch:
            raise ValueError("batch refused")
        self.batches.append([i for i in items if i not in self.left_out])
        return self.left_out

    async def one(self, item: str) -> bool:
        if item in self.refuse:
            raise RuntimeError(f"{item} refused")
        self.singles.append(item)
        return True


async def test_refused_batch_falls_back_to_singles_and_a_bad_one_costs_itself() -> None:
    w = Writes(refuse_batch=True, refuse={"b"})
    run = await batch_or_singles(["a", "b", "c"], w.batch, w.one, on_refused=w.refusals.append)
    assert w.batches == []
    assert w.singles == ["a", "c"]  # b's failure did not stop c
    assert isinstance(run.refused, ValueError)
    assert [str(e) for e in w.refusals] == ["batch refused"]
    assert [(item, str(exc)) for item, exc in run.failed] == [("b", "b refused")]
    assert not run.ended and run.left == []


async def test_batch_written_whole_leaves_only_what_it_left_out() -> None:
    w = Writes(refuse_batch=False, refuse=set(), left_out=["b"])
    run = await batch_or_singles(["a", "b", "c"], w.batch, w.one)
    assert w.batches == [["a", "c"]]
    assert w.singles == ["b"]
    assert run.refused is None and run.failed == []


async def test_outage_is_raised_not_tried_one_by_one() -> None:
    tried: list[str] = []

    async def batch(items: Sequence[str]) -> Sequence[str]:
        raise GraphUnavailableError("Neo4j away")

    async def one(item: str) -> bool:
        tried.append(item)
        return True

    with pytest.raises(GraphUnavailableError):
        await batch_or_singles(["a", "b"], batch, one, stop=STOP)
    assert tried == []


async def test_single_ending_the_run_leaves_the_rest_untried() -> None:
    tried: list[str] = []

    async def batch(items: Sequence[str]) -> Sequence[str]:
        raise ValueError("refused")

    async def one(item: str) -> bool:
        tried.append(item)
        return item != "b"

    run = await batch_or_singles(["a", "b", "c", "d"], batch, one)
    assert tried == ["a", "b"]
    assert run.ended and run.left == ["c", "d"]
