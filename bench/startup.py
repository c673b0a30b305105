"""Start-up time of the commands: how long until each has done its first useful thing.

Usage (from the repository root):
    .venv/bin/python -m bench.startup [--runs 5] [--code DIR] [--record]

Each command runs as ``python -m knotwork.cli …`` in a fresh process (wall clock from spawn):
``--help``, ``doctor``, ``init`` and ``verify`` until they exit (exit code aside), ``mcp`` until
``initialize`` and ``tools/list`` are answered over stdio, ``serve`` until ``GET /health``
answers. The median of ``--runs`` runs is reported, with the fastest and slowest; the commands
take turns, so load on the machine falls on all of them alike. For the commands that exit, the
median CPU time (user + system) of the process is given too: unlike wall time, it hardly moves
when other work shares the cores.

Neo4j: KNOTWORK_NEO4J_URI / KNOTWORK_NEO4J_PASSWORD when set, else a local server (see
bench/common.py). Ollama is the loopback fake, so ``doctor`` passes. ``--code DIR`` runs the
commands from another checkout's source tree (``DIR/service`` on PYTHONPATH), e.g. an older
commit in a second worktree, for a before-and-after comparison with the same harness.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import select
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx
from tests.startup import MCP_HANDSHAKE

from bench.common import ROOT, bench_settings, record
from knotwork.settings import Settings

VAULT_NAME = "bench-startup"
TIMEOUT_S = 300.0


def _env(settings: Settings, code: Path, vault: Path, port: int) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": f"{code / 'service'}{os.pathsep}{code}",
        "KNOTWORK_NEO4J_URI": settings.neo4j_uri,
        "KNOTWORK_NEO4J_PASSWORD": settings.password(),
        "KNOTWORK_OLLAMA_BASE_URL": settings.ollama_base_url,
        "KNOTWORK_EXTRACT": "false",
        "KNOTWORK_VAULT_PATH": str(vault),
        "KNOTWORK_VAULT_NAME": VAULT_NAME,
        "KNOTWORK_API_PORT": str(port),
    }


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _spawn(args: list[str], env: dict[str, str], cwd: Path, **io: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "knotwork.cli", *args],
        env=env,
        cwd=cwd,
        stdin=io.get("stdin", subprocess.DEVNULL),
        stdout=io.get("stdout", subprocess.DEVNULL),
        stderr=subprocess.DEVNULL,
    )


CPU: dict[str, list[float]] = {}  # command → CPU seconds of each run (the exiting ones)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _until_exit(args: list[str]) -> Callable[[dict[str, str], Path], float]:
    def run(env: dict[str, str], cwd: Path) -> float:
        cpu, start = _children_cpu(), time.perf_counter()
        _spawn(args, env, cwd).wait(TIMEOUT_S)
        elapsed = time.perf_counter() - start
        CPU.setdefault(" ".join(args), []).append(_children_cpu() - cpu)
        return elapsed

    return run


def _mcp(env: dict[str, str], cwd: Path) -> float:
    """Spawn to the tools/list answer; then close stdin, which ends the server."""
    start = time.perf_counter()
    process = _spawn(["mcp"], env, cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write("".join(json.dumps(line) + "\n" for line in MCP_HANDSHAKE).encode())
    process.stdin.flush()
    answered: list[int] = []
    try:
        while 2 not in answered:
            ready, _, _ = select.select([process.stdout], [], [], TIMEOUT_S)
            line = process.stdout.readline() if ready else b""
            if not line:
                raise RuntimeError("knotwork mcp ended or went silent before tools/list")
            answered.append(json.loads(line).get("id"))
        return time.perf_counter() - start
    finally:
        process.stdin.close()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _serve(env: dict[str, str], cwd: Path) -> float:
    """Spawn to the first answer of GET /health (any status); then stop the server."""
    url = f"http://127.0.0.1:{env['KNOTWORK_API_PORT']}/health"
    start = time.perf_counter()
    process = _spawn(["serve"], env, cwd)
    try:
        with httpx.Client(timeout=5) as client:
            while time.perf_counter() - start < TIMEOUT_S:
                if process.poll() is not None:
                    raise RuntimeError(f"knotwork serve exited with {process.returncode}")
                try:
                    client.get(url)
                    return time.perf_counter() - start
                except httpx.TransportError:
                    time.sleep(0.02)
        raise RuntimeError("knotwork serve did not answer /health")
    finally:
        process.terminate()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


COMMANDS: dict[str, Callable[[dict[str, str], Path], float]] = {
    "knotwork --help": _until_exit(["--help"]),
    "knotwork doctor": _until_exit(["doctor"]),
    "knotwork init": _until_exit(["init"]),
    "knotwork verify": _until_exit(["verify"]),
    "knotwork mcp → tools/list": _mcp,
    "knotwork serve → /health": _serve,
}


def _vault(root: Path) -> Path:
    vault = root / "vault"
    (vault / "People").mkdir(parents=True)
    (vault / "People" / "Alice.md").write_text("# Alice\n\nWorks with [[Bob]].\n", "utf-8")
    (vault / "Bob.md").write_text("# Bob\n\nBob works on the graph with #team.\n", "utf-8")
    return vault


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--code", type=Path, default=ROOT, help="source tree to run")
    parser.add_argument("--record", action="store_true", help="append to bench/RESULTS.md")
    parser.add_argument(
        "--only", nargs="+", metavar="WORD", help="only the commands whose name holds a WORD"
    )
    args = parser.parse_args()
    code = args.code.resolve()
    chosen = {
        name: run
        for name, run in COMMANDS.items()
        if not args.only or any(word in name for word in args.only)
    }
    times: dict[str, list[float]] = {name: [] for name in chosen}
    with bench_settings() as settings, tempfile.TemporaryDirectory() as tmp:
        cwd = Path(tmp)  # no .env of a developer's own
        env = _env(settings, code, _vault(cwd), _free_port())
        # The schema and the tiny vault in the graph first, so verify finds them in step.
        subprocess.run(
            [sys.executable, "-m", "knotwork.cli", "ingest"],
            env=env,
            cwd=cwd,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        for _ in range(args.runs):
            for name, run in chosen.items():
                times[name].append(run(env, cwd))
    load = Path("/proc/loadavg").read_text(encoding="utf-8").split()[:3]

    def cpu(name: str) -> str:
        runs = CPU.get(name.removeprefix("knotwork "))
        return f"{statistics.median(runs):.2f} s" if runs else "—"

    rows = [
        "| command | median | fastest | slowest | CPU, median |",
        "|---|---:|---:|---:|---:|",
        *(
            f"| `{name}` | {statistics.median(t):.2f} s | {min(t):.2f} s | {max(t):.2f} s "
            f"| {cpu(name)} |"
            for name, t in times.items()
        ),
    ]
    table = "\n".join(rows)
    print(table)
    print(f"\n{args.runs} runs each; code {code}; load average after: {' / '.join(load)}")
    if args.record:
        record(
            "Start-up time of the commands",
            f"python -m bench.startup --runs {args.runs} --code {code}",
            f"load average after {' / '.join(load)}",
            table,
        )


if __name__ == "__main__":
    main()
