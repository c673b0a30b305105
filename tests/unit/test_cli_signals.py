"""SIGTERM and SIGHUP stop a one-shot command as Ctrl-C does: its task is cancelled, so what it
holds is given back on the way out (the vault's lease, verify's scratch vault), and the process
then ends by the signal, as its caller expects. Before, it ended where it stood."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.startup import child_env

# A command whose work waits until stopped, then cleans up with an await (as verify's drop of
# its scratch vault does), and prints what happened.
COMMAND = """
import asyncio, signal, sys
from knotwork.cli.app import with_core
if sys.argv[1] == "ignore":
    signal.signal(signal.SIGHUP, signal.SIG_IGN)  # as nohup starts it
else:  # as a terminal starts it, whatever this test run inherited (CI under nohup ignores it)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)

async def work(core):
    print("ready", flush=True)
    try:
        await asyncio.sleep(float(sys.argv[2]))
    finally:
        await asyncio.sleep(0.05)
        print("cleaned up", flush=True)
    return "finished"

print(with_core(work, connect=False), flush=True)  # no Neo4j: the work never asks it
"""


def start(tmp_path: Path, *args: str, script: str = COMMAND) -> subprocess.Popen[str]:
    """``script`` run with ``args``, once it says it is ready (no Neo4j: its work never asks)."""
    env = child_env(
        {"KNOTWORK_NEO4J_PASSWORD": "unused", "KNOTWORK_NEO4J_URI": "bolt://127.0.0.1:9"}
    )
    child = subprocess.Popen(
        [sys.executable, "-c", script, *args],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    assert child.stdout.readline() == "ready\n", child.stderr and child.stderr.read()
    return child


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=lambda s: s.name)
def test_a_stopping_signal_cleans_up_then_ends_the_process_by_it(
    tmp_path: Path, sig: signal.Signals
) -> None:
    child = start(tmp_path, "default", "60")
    child.send_signal(sig)
    out, err = child.communicate(timeout=30)
    assert out == "cleaned up\n", err
    assert child.returncode == -sig, err  # the caller sees it stopped by the signal


def test_a_sighup_the_process_was_started_ignoring_stays_ignored(tmp_path: Path) -> None:
    child = start(tmp_path, "ignore", "1")
    child.send_signal(signal.SIGHUP)
    out, err = child.communicate(timeout=30)
    assert (out, child.returncode) == ("cleaned up\nfinished\n", 0), err


# A long command that says where it stands when stopped: its cleanup waits ``argv[1]`` s; a
# second argument says it on stderr (as ``--json`` does). It says on stderr when its cleanup
# begins: the stop was taken.
SAID = """
import asyncio, sys
from knotwork.cli.app import with_core

stage = {"done": 0}

async def work(core):
    stage["done"] = 3
    print("ready", flush=True)
    try:
        await asyncio.sleep(60)
    finally:
        print("cleaning up", file=sys.stderr, flush=True)
        await asyncio.sleep(float(sys.argv[1]))
    return "finished"

said = lambda: f"stopped: {stage['done']} done"
print(with_core(work, connect=False, stopped_said=said, stopped_err=len(sys.argv) > 2))
"""


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=lambda s: s.name)
def test_a_long_command_stopped_says_where_it_stands_then_ends_by_the_signal(
    tmp_path: Path, sig: signal.Signals
) -> None:
    """Before, Ctrl-C or SIGTERM ended `ingest`, `reembed` or `verify` with no line at all."""
    child = start(tmp_path, "0.05", script=SAID)
    child.send_signal(sig)
    out, err = child.communicate(timeout=30)
    assert out == "stopped: 3 done\n", err
    assert child.returncode == -sig, err  # a shell's 130 or 143


def test_with_json_the_stop_line_goes_to_stderr_and_stdout_stays_empty(tmp_path: Path) -> None:
    """`verify --json` stopped printed its stop line among the JSON a script reads."""
    child = start(tmp_path, "0.05", "err", script=SAID)
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=30)
    assert out == "" and err.endswith("stopped: 3 done\n"), (out, err)
    assert child.returncode == -signal.SIGINT, err


def test_a_second_ctrl_c_ends_a_long_command_at_once(tmp_path: Path) -> None:
    """The first Ctrl-C waits for the cleanup (here ten minutes); the second does not."""
    child = start(tmp_path, "600", script=SAID)
    cleaning = threading.Event()

    def read_stderr() -> None:
        assert child.stderr is not None
        for line in child.stderr:
            if line == "cleaning up\n":
                cleaning.set()

    reader = threading.Thread(target=read_stderr, daemon=True)
    reader.start()
    try:
        child.send_signal(signal.SIGINT)
        # A second Ctrl-C sent before the first was taken would be taken as the first.
        assert cleaning.wait(30), "the first Ctrl-C did not begin the cleanup"
        assert child.poll() is None  # the first waits for the cleanup
        child.send_signal(signal.SIGINT)
        child.wait(timeout=60)  # not the cleanup's ten minutes
    finally:
        child.kill()
        child.wait()
        reader.join(10)
        child.communicate()  # closes the pipes
    assert child.returncode == -signal.SIGINT
