"""A CLI writer gets the vault from a Knotwork server's background extraction of a backlog
written through it (the REST API's, or an MCP server's with writes): it waits, saying so, for
the gap the server leaves between two passes (half a second, which a writer that looked once
after loading its models never hit: it was refused for as long as the backlog lasted), and the
server's extraction resumes once it is done. Any other holder is refused at once, and the wait
is bounded."""

from __future__ import annotations

import asyncio
import signal
import sys
import time
from pathlib import Path

import pytest

from knotwork.cli.lease_taken import take
from knotwork.core import Core
from knotwork.errors import LeaseHeldError
from knotwork.graph.lease import REST_EXTRACT_MODE, Lease, lease_status
from knotwork.serving import extraction as api_extraction
from knotwork.settings import Settings
from tests.integration.test_api_extraction import _api, _long, _nothing_pending, _put
from tests.integration.test_watcher_extraction import HeldModel, _until, held  # noqa: F401
from tests.startup import child_env

STATUS = {"mode": "cli-ingest", "watches": False}


async def test_ingest_waits_for_the_gap_between_two_passes_then_the_api_resumes(
    core: Core,
    settings: Settings,
    vault: Path,
    tmp_path: Path,
    held: HeldModel,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(api_extraction, "EXTRACT_EVERY_S", 0.3)
    async with _api(settings, vault, tmp_path / "state") as (_, client):
        body = await _put(client, "Long.md", _long(12))
        assert body["chunks"] > 2 * api_extraction.EXTRACT_PASS, body
        await asyncio.to_thread(held.asked.wait, 30)  # a pass holds the lease, the model held

        async def extracting() -> bool:
            row = await lease_status(core.store, "default")
            return row is not None and row["mode"] == REST_EXTRACT_MODE

        env = child_env({
            "KNOTWORK_NEO4J_URI": settings.neo4j_uri,
            "KNOTWORK_NEO4J_USER": settings.neo4j_user,
            "KNOTWORK_NEO4J_PASSWORD": settings.password(),
            "KNOTWORK_OLLAMA_BASE_URL": settings.ollama_base_url,
        })  # fmt: skip
        # The note write's last beat may commit after the pass stated its mode: the lease
        # still says the pass's (tests/integration/test_lease_stated.py).
        await _until(extracting, 10)
        said, out, err, ingest = await _ingest_waiting(env, vault, tmp_path, held)
        assert ingest.returncode == 0, (said + err).decode() + out.decode()
        assert b"notes 1: written 0, unchanged 1" in out, out.decode()
        await _until(lambda: _nothing_pending(core))  # the API's passes resume after it


async def _ingest_waiting(
    env: dict[str, str], vault: Path, tmp_path: Path, model: HeldModel
) -> tuple[bytes, bytes, bytes, asyncio.subprocess.Process]:
    """`knotwork ingest` until it says it waits for the pass, then the pass let go: what it
    said on stderr by then, its stdout and the rest of its stderr, and the ended process (an
    ingest refused at once ends without the waiting line: then its stderr is ``said``)."""
    ingest = await asyncio.create_subprocess_exec(
        *(sys.executable, "-m", "knotwork.cli", "ingest", str(vault), "--no-extract"),
        cwd=tmp_path,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out = err = said = b""
    try:
        assert ingest.stderr is not None
        deadline = time.monotonic() + 90
        while b"waiting for a Knotwork server's extraction pass" not in said:
            line = await asyncio.wait_for(ingest.stderr.readline(), 90)
            assert time.monotonic() < deadline, said.decode()
            if not line:  # refused: it ended
                break
            said += line
        else:
            model.go.set()  # the pass ends; the lease is free a moment before the next
        out, err = await asyncio.wait_for(ingest.communicate(), 90)
    finally:
        if ingest.returncode is None:
            ingest.kill()
            await ingest.wait()
    return said, out, err, ingest


async def test_the_wait_is_bounded_and_any_other_holder_is_refused_at_once(
    core: Core,
) -> None:
    api = Lease(core.store, "default", 30)
    await api.acquire({"mode": REST_EXTRACT_MODE, "watches": False})
    with pytest.raises(LeaseHeldError) as plain:  # a writer that does not wait is told why
        await Lease(core.store, "default", 30).acquire(STATUS)
    said = str(plain.value)  # the MCP server's extraction holds it alike: no channel assumed
    assert "a Knotwork server (the REST API or the MCP server)" in said, said
    assert "over REST" not in said and "between passes" in said, said
    began = time.monotonic()
    with pytest.raises(LeaseHeldError, match="did not give it back within 1 s") as refused:
        await take(Lease(core.store, "default", 30), STATUS, wait_s=1)
    assert 1 <= time.monotonic() - began < 10
    said = str(refused.value)  # which server, the lease does not say: both are named
    assert api.holder in said and "stop that server first" in said, said
    assert "a Knotwork server's background extraction (the REST API's or an MCP server's" in said
    assert "the API server" not in said, said

    await api.acquire({"mode": "inotify", "watches": True})  # a watcher: no wait
    began = time.monotonic()
    with pytest.raises(LeaseHeldError, match="watcher"):
        await take(Lease(core.store, "default", 30), STATUS, wait_s=30)
    assert time.monotonic() - began < 5
    await api.release()
    cli = Lease(core.store, "default", 30)
    await take(cli, STATUS, wait_s=1)  # free: taken
    row = await lease_status(core.store, "default")
    assert row is not None and row["holder"] == cli.holder


async def _watch(settings: Settings, vault: Path, cwd: Path) -> asyncio.subprocess.Process:
    env = child_env({
        "KNOTWORK_NEO4J_URI": settings.neo4j_uri,
        "KNOTWORK_NEO4J_USER": settings.neo4j_user,
        "KNOTWORK_NEO4J_PASSWORD": settings.password(),
        "KNOTWORK_OLLAMA_BASE_URL": settings.ollama_base_url,
        "KNOTWORK_EXTRACT": "false",
    })  # fmt: skip
    return await asyncio.create_subprocess_exec(
        *(sys.executable, "-m", "knotwork.cli", "watch", str(vault)),
        *("--ready-file", str(cwd / "ready")),
        cwd=cwd,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )


async def test_watch_waits_for_the_extraction_pass_then_takes_the_vault(
    core: Core, settings: Settings, tmp_path: Path
) -> None:
    """`knotwork watch` was refused ("it gives the lease back between passes, so try again")
    while the API's extraction held the vault; it waits for the gap as `ingest` does."""
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "One.md").write_text("# One\n\nA note.\n")
    api = Lease(core.store, "default", 30)
    await api.acquire({"mode": REST_EXTRACT_MODE, "watches": False})
    watch = await _watch(settings, vault, tmp_path)
    try:
        assert watch.stderr is not None
        said = b""
        while b"waiting for a Knotwork server's extraction pass" not in said:
            line = await asyncio.wait_for(watch.stderr.readline(), 90)
            assert line, said.decode()  # refused: it ended
            said += line
        assert not (tmp_path / "ready").exists()  # it does not hold the vault yet
        await api.release()  # the gap between two passes
        await _until(lambda: asyncio.to_thread((tmp_path / "ready").exists), 90)
        row = await lease_status(core.store, "default")
        assert row is not None and row["watches"] and row["holder"] != api.holder, row
        watch.send_signal(signal.SIGINT)
        out, err = await asyncio.wait_for(watch.communicate(), 90)
    finally:
        if watch.returncode is None:
            watch.kill()
            await watch.wait()
    assert watch.returncode == 0, (said + err).decode() + out.decode()


async def test_watch_is_still_refused_at_once_by_another_writer(
    core: Core, settings: Settings, tmp_path: Path
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    ingest = Lease(core.store, "default", 30)
    await ingest.acquire({"mode": "cli-ingest", "watches": False})
    watch = await _watch(settings, vault, tmp_path)
    try:
        out, err = await asyncio.wait_for(watch.communicate(), 60)
    finally:
        if watch.returncode is None:
            watch.kill()
            await watch.wait()
    said = " ".join((out + err).decode().split())
    assert watch.returncode == 1, said
    assert f"being written by {ingest.holder}" in said and "mode cli-ingest" in said, said
    assert "waiting for" not in said, said
