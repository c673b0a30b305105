"""Ctrl-C or SIGTERM during `ingest`, `reembed` or `verify` ends the process by the signal (a
shell's 130 or 143) after a last line that says where things stand: the notes written of those
to write and what finishes the rest, the chunks re-embedded and that the run must be done again,
that verify changed nothing. Before, each ended with no line at all."""

from __future__ import annotations

import asyncio
import json
import re
import signal
import sys
import threading
from pathlib import Path
from typing import IO

from knotwork.core import Core
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from knotwork.settings import Settings
from tests.fakes.ollama import FakeOllama
from tests.integration.conftest import ad_hoc, put
from tests.integration.server import TcpProxy
from tests.integration.test_watch_stop import _slow_embedder
from tests.startup import child_env


async def _stopped(
    settings: Settings,
    cwd: Path,
    args: list[str],
    sig: signal.Signals,
    when: threading.Event,
    stderr: IO[str] | int = asyncio.subprocess.DEVNULL,
) -> tuple[int | None, str]:
    """Run `knotwork ARGS`, send ``sig`` once ``when`` is set: its exit code and stdout (its
    stderr to ``stderr``)."""
    env = child_env({
        "KNOTWORK_NEO4J_URI": settings.neo4j_uri,
        "KNOTWORK_NEO4J_USER": settings.neo4j_user,
        "KNOTWORK_NEO4J_PASSWORD": settings.password(),
        "KNOTWORK_OLLAMA_BASE_URL": settings.ollama_base_url,
        "KNOTWORK_VAULT_NAME": "s",
        "KNOTWORK_EXTRACT": "false",
        "KNOTWORK_INGEST_BATCH": "1",
        "KNOTWORK_EMBED_BATCH_SIZE": "1",
    })  # fmt: skip
    process = await asyncio.create_subprocess_exec(
        *(sys.executable, "-m", "knotwork.cli", *args),
        cwd=cwd,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=stderr,
    )
    try:
        for _ in range(900):
            if process.returncode is not None or when.is_set():
                break
            await asyncio.sleep(0.1)
        assert process.returncode is None, "the command ended before it was stopped"
        assert when.is_set(), "the command never reached the held model"
        process.send_signal(sig)
        out, _ = await asyncio.wait_for(process.communicate(), timeout=60)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    return process.returncode, out.decode()


async def _notes(core: Core) -> int:
    rows = await ad_hoc(
        core, "MATCH (n:Note {vault: 's'}) WHERE n.content_hash IS NOT NULL RETURN count(n) AS c"
    )
    return int(rows[0]["c"])


async def _leases(core: Core) -> list[object]:
    return await ad_hoc(core, "MATCH (l:Lease) WHERE l.expires_at >= datetime() RETURN l")


def _vault(tmp_path: Path) -> Path:
    vault = tmp_path / "vault"
    for name in ("Alder", "Birch", "Cedar"):
        put(vault, f"{name}.md", f"# {name}\n\nA tree by the lake.\n")
    put(vault, "Heron.md", "# Heron\n\nA heron by the lake.\n")
    return vault


async def test_ctrl_c_during_ingest_says_how_many_notes_were_written(
    core: Core, settings: Settings, tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    vault = _vault(tmp_path)
    entered, released = _slow_embedder(fake_ollama)
    try:
        code, out = await _stopped(
            settings, tmp_path, ["ingest", str(vault)], signal.SIGINT, entered
        )
    finally:
        released.set()
    assert code == -signal.SIGINT, out
    said = re.search(r"stopped: (\d+) of 4 changed notes written \(each batch whole", out)
    assert said, out
    assert "run `knotwork ingest` again to finish" in out, out
    assert int(said.group(1)) == await _notes(core) < 4, out  # as the graph holds them
    assert await _leases(core) == []  # the lease given back on the way out
    fake_ollama.embed_script = None
    report = await sync_vault(Ingestor(core, root=vault, vault="s", extract_enabled=False))
    assert report.written == 4 - int(said.group(1)) and not report.errors, report


async def test_sigterm_during_reembed_says_how_far_it_got_and_to_run_it_again(
    core: Core, settings: Settings, tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    vault = _vault(tmp_path)
    await sync_vault(Ingestor(core, root=vault, vault="s", extract_enabled=False))
    entered, released = _slow_embedder(fake_ollama)
    try:
        code, out = await _stopped(settings, tmp_path, ["reembed"], signal.SIGTERM, entered)
    finally:
        released.set()
    assert code == -signal.SIGTERM, out
    chunks = (await ad_hoc(core, "MATCH (c:Chunk) RETURN count(c) AS c"))[0]["c"]
    said = re.search(rf"stopped: (\d+) of {chunks} chunks re-embedded; ", out)
    assert said and int(said.group(1)) < chunks, out
    assert "until `knotwork reembed` completes: run it again" in out, out
    assert await _leases(core) == []


async def _verify_stopped(
    core: Core, settings: Settings, tmp_path: Path, args: list[str], stderr: IO[str] | int
) -> tuple[int | None, str]:
    """`knotwork verify ARGS VAULT` stopped by Ctrl-C half way through its scratch sync, the
    vault synced before: its exit code and stdout; the vault as it was, no lease left."""
    vault = tmp_path / "vault"
    for i in range(300):  # enough that the scratch sync is stopped half way
        put(vault, f"n/{i}.md", f"# Note {i}\n\nNote {i} links [[{i + 1}]].\n")
    await sync_vault(Ingestor(core, root=vault, vault="s", extract_enabled=False))
    before = await _notes(core)
    scratch = threading.Event()

    async def watch_scratch() -> None:  # verify parses into a scratch vault (no model)
        query = "MATCH (n:Note) WHERE n.vault STARTS WITH 'verify-' RETURN count(n) AS c"
        for _ in range(3000):
            if (await ad_hoc(core, query))[0]["c"]:
                scratch.set()
                return
            await asyncio.sleep(0.02)

    watching = asyncio.create_task(watch_scratch())
    try:
        verify = ["verify", *args, str(vault)]
        code, out = await _stopped(settings, tmp_path, verify, signal.SIGINT, scratch, stderr)
    finally:
        watching.cancel()
    assert await _notes(core) == before
    assert await ad_hoc(core, "MATCH (n:Note) WHERE n.vault <> 's' RETURN n.vault") == []
    assert await _leases(core) == []
    return code, out


async def test_ctrl_c_during_verify_says_nothing_was_changed(
    core: Core, settings: Settings, tmp_path: Path
) -> None:
    code, out = await _verify_stopped(core, settings, tmp_path, [], asyncio.subprocess.DEVNULL)
    assert code == -signal.SIGINT, out
    assert "stopped: verify compared nothing and changed nothing" in out, out


async def test_a_stopped_verify_json_says_its_stop_on_stderr_not_in_the_json(
    core: Core, settings: Settings, tmp_path: Path
) -> None:
    """`verify --json` stopped printed its stop line on stdout, where a script reads the JSON
    (`knotwork verify --json | jq`): it goes to stderr, and stdout stays JSON, or empty."""
    logged = tmp_path / "stderr.txt"
    with logged.open("w") as stderr:
        code, out = await _verify_stopped(core, settings, tmp_path, ["--json"], stderr)
    assert code == -signal.SIGINT, out
    if out.strip():  # a body, if any, is whole JSON
        json.loads(out)
    assert "stopped: verify compared nothing and changed nothing" in logged.read_text(), out


async def test_neo4j_gone_during_ingest_says_where_things_stand_and_the_error(
    core: Core, settings: Settings, tmp_path: Path, fake_ollama: FakeOllama, proxy: TcpProxy
) -> None:
    """Neo4j going away under `ingest` said only the driver's error: the notes written and
    what to run once it is back are said too, as a stop says them; the error and exit 1 stay."""
    vault = _vault(tmp_path)
    entered, released = _slow_embedder(fake_ollama)
    env = child_env({
        "KNOTWORK_NEO4J_URI": f"bolt://127.0.0.1:{proxy.port}",
        "KNOTWORK_NEO4J_USER": settings.neo4j_user,
        "KNOTWORK_NEO4J_PASSWORD": settings.password(),
        "KNOTWORK_NEO4J_UNAVAILABLE_AFTER_S": "0.5",
        "KNOTWORK_OLLAMA_BASE_URL": settings.ollama_base_url,
        "KNOTWORK_VAULT_NAME": "s",
        "KNOTWORK_EXTRACT": "false",
        "KNOTWORK_INGEST_BATCH": "1",
        "KNOTWORK_EMBED_BATCH_SIZE": "1",
    })  # fmt: skip
    process = await asyncio.create_subprocess_exec(
        *(sys.executable, "-m", "knotwork.cli", "ingest", str(vault)),
        cwd=tmp_path,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        for _ in range(900):
            if process.returncode is not None or entered.is_set():
                break
            await asyncio.sleep(0.1)
        assert entered.is_set(), "the command never reached the held model"
        proxy.cut()  # Neo4j looks stopped to the command, as a stopped server does
        released.set()
        out, err = await asyncio.wait_for(process.communicate(), timeout=90)
    finally:
        released.set()
        if process.returncode is None:
            process.kill()
            await process.wait()
    said, error = out.decode(), err.decode()
    assert process.returncode == 1, (said, error)
    assert "Neo4j is not reachable" in error, error
    again = "run `knotwork ingest` again once Neo4j is back to finish"
    written = re.search(
        rf"stopped: (\d+) of 4 changed notes written \(each batch whole or not at all\); {again}",
        said,
    )
    if written is None:  # the write of the first note met the outage
        assert f"stopped before any note was written; {again}" in said, said
    # A commit whose reply the cut lost is in the graph but not in the count: never more said.
    assert (int(written.group(1)) if written else 0) <= await _notes(core) < 4, said
