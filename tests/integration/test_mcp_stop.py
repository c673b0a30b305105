"""A ``knotwork mcp --allow-writes`` over stdio that ends the moment its client hangs up, right
after a write, gives the vault's lease back: the next writer (``knotwork ingest``) takes it at
once, not ``KNOTWORK_LEASE_TTL_S`` later. On the real Neo4j with the fake Ollama, several
times over, since the stop can fall anywhere in the server's background passes."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

from knotwork.core import Core
from knotwork.graph.lease import Lease
from knotwork.settings import Settings
from tests.integration.test_mcp import command_env, synced_vault
from tests.startup import MCP_HANDSHAKE

TRIALS = 5


async def test_a_stop_right_after_a_write_gives_the_lease_back(
    settings: Settings, vault: Path, core: Core, tmp_path: Path
) -> None:
    served = await synced_vault(settings, vault, core)
    served = served.model_copy(update={"state_dir": tmp_path / "state"})
    env = {"KNOTWORK_VAULT_PATH": str(vault), "KNOTWORK_STATE_DIR": str(served.state_dir)}
    for trial in range(TRIALS):
        process = await asyncio.create_subprocess_exec(
            *(sys.executable, "-m", "knotwork.cli", "mcp", "--allow-writes"),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=tmp_path,
            env={"PATH": os.environ.get("PATH", ""), **command_env(served, **env)},
        )
        assert process.stdin is not None and process.stdout is not None
        write = {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {
                "name": "upsert_note",
                "arguments": {
                    "path": f"Scratch/t{trial}.md",
                    "content": f"# T\n\nwallaby {trial}\n",
                },
            },
        }
        lines = [*MCP_HANDSHAKE, write]
        process.stdin.write("".join(json.dumps(line) + "\n" for line in lines).encode())
        await process.stdin.drain()
        answers = [json.loads(await asyncio.wait_for(process.stdout.readline(), 120))]
        while answers[-1].get("id") != 3:
            answers.append(json.loads(await asyncio.wait_for(process.stdout.readline(), 120)))
        assert not answers[-1]["result"].get("isError"), answers[-1]
        process.stdin.close()  # the client hangs up at once
        _, stderr = await asyncio.wait_for(process.communicate(), 60)
        assert process.returncode == 0, stderr.decode()[-2000:]
        lease = Lease(core.store, core.settings.vault_name, 60)
        await lease.acquire({"mode": "test"})  # LeaseHeldError while the server's lease stands
        await lease.release()
