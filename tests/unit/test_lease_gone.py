"""A lease holder of this machine that no longer runs is told apart from one that does, and a
holder recorded elsewhere (or before `process_ns` was recorded) is never judged gone."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from knotwork.graph.lease_gone import holder_gone, process_ns

pytestmark = pytest.mark.skipif(process_ns() is None, reason="no /proc to tell pid namespaces")


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _row(pid: int, **more: object) -> dict[str, object]:
    return {
        "holder": "elsewhere:1:abcd",
        "host": "h",
        "pid": pid,
        "process_ns": process_ns(),
    } | more


def test_a_holder_whose_pid_ended_is_gone() -> None:
    assert holder_gone(_row(_dead_pid()), "me")


def test_a_running_holder_is_not_gone() -> None:
    assert not holder_gone(_row(os.getppid()), "me")


def test_another_holder_of_this_very_process_runs() -> None:
    assert not holder_gone(_row(os.getpid()), "me")


@pytest.mark.parametrize("ns", [None, "another-namespace"])
def test_a_holder_of_another_namespace_or_an_older_lease_is_never_gone(ns: str | None) -> None:
    assert not holder_gone(_row(_dead_pid(), process_ns=ns), "me")


@pytest.mark.parametrize("pid", [None, 0, -1, "12"])
def test_a_pid_that_is_no_pid_is_not_judged(pid: object) -> None:
    assert not holder_gone(_row(0) | {"pid": pid}, "me")
