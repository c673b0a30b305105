"""Run a ``knotwork`` command in a fresh interpreter and see which heavy packages it imported.

A child process is the only honest measure: this test process has imported everything long
before. The child can also block packages (``sys.modules[name] = None`` makes importing one
raise ImportError), which shows a server does its start-up work without them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import REPO

# An MCP client's first lines over stdio: initialize, the initialized notification, tools/list.
MCP_INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"},
    },
}
MCP_HANDSHAKE = [
    MCP_INITIALIZE,
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
]

# Seconds of import each, loaded only where a command needs them.
MODELS = ("llama_index", "openai", "torch", "sentence_transformers", "transformers")
SERVERS = ("fastapi", "uvicorn", "mcp", "starlette")
WATCHED = MODELS + SERVERS

# Runs the command as the ``knotwork`` script does, then writes the watched packages it
# imported to the file named by argv[1] (stdout belongs to the command).
_CHILD = """
import json, sys
out, blocked, args, watched = sys.argv[1], *map(json.loads, sys.argv[2:5])
for name in blocked:
    sys.modules[name] = None
code = 0
try:
    from knotwork.cli import app
    app(args, prog_name="knotwork")
except SystemExit as exc:
    code = exc.code if isinstance(exc.code, int) else 1
finally:
    loaded = sorted(m for m in watched if sys.modules.get(m) is not None)
    with open(out, "w", encoding="utf-8") as f:
        json.dump(loaded, f)
sys.exit(code)
"""


def child_env(env: dict[str, str] | None = None) -> dict[str, str]:
    """PATH, this checkout on PYTHONPATH, and ``env`` (no KNOTWORK_* of the developer's)."""
    path = os.pathsep.join([str(REPO / "service"), str(REPO)])
    return {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": path, **(env or {})}


def child_command(args: list[str], out: Path, blocked: tuple[str, ...] = ()) -> list[str]:
    return [
        sys.executable,
        "-c",
        _CHILD,
        str(out),
        json.dumps(list(blocked)),
        json.dumps(args),
        json.dumps(list(WATCHED)),
    ]


@dataclass
class Run:
    code: int
    output: str
    loaded: list[str]  # the watched packages the command imported


def run_command(
    args: list[str], tmp_path: Path, env: dict[str, str] | None = None, timeout: float = 120
) -> Run:
    out = tmp_path / "loaded.json"
    done = subprocess.run(
        child_command(args, out),
        env=child_env(env),
        cwd=tmp_path,  # no .env of a developer's own
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    loaded: list[str] = json.loads(out.read_text(encoding="utf-8"))
    return Run(done.returncode, done.stdout + done.stderr, loaded)
