"""A real Neo4j for every integration test, found in this order:

1. ``KNOTWORK_TEST_NEO4J_URI`` (with ``KNOTWORK_TEST_NEO4J_USER`` / ``_PASSWORD``) if set;
2. a testcontainers ``neo4j:5.26-community`` container when a Docker engine answers;
3. the local server from Maven Central jars (``knotwork.local_neo4j.server``), instance ``test``.

In CI (``CI=true``) a database that cannot be had fails the run; elsewhere the tests are skipped
with the reason. Each test starts from an empty database with the schema applied.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from fastapi.testclient import TestClient
from neo4j import AsyncGraphDatabase, RoutingControl

from knotwork.api import create_app
from knotwork.core import Core, open_core
from knotwork.graph.lease import Lease
from knotwork.graph.queries.writes import NOTE_HASHES, NOTES_FACTS
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.rows import FACTS_VERSION
from knotwork.local_neo4j.server import LocalNeo4j
from knotwork.models import stored_fact_key
from knotwork.settings import Settings, get_settings
from knotwork.text.language import setting_key
from tests.conftest import REPO, make_settings
from tests.fakes.ollama import FakeOllama
from tests.integration.server import TcpProxy

TEST_PASSWORD = "knotwork-test-password"
LOCAL_TEST_PORTS = (17687, 17474)
_RESET = [
    statement.strip()
    for statement in "\n".join(
        line
        for line in (Path(__file__).parent / "reset.cypher").read_text().splitlines()
        if not line.startswith("//")
    ).split(";")
    if statement.strip()
]

pytestmark = pytest.mark.integration

# What notes' languages are decided under with the default settings (note_hashes reads it).
LANGUAGE_SETTING = setting_key("auto", "en")


@dataclass(frozen=True)
class Neo4jTarget:
    uri: str
    user: str
    password: str
    source: str


def _docker_answers() -> bool:
    try:
        import docker

        docker.from_env(timeout=3).ping()
    except Exception:
        return False
    return True


def _unavailable(reason: str) -> None:
    message = f"no Neo4j for the integration tests: {reason}"
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def local_settings(instance: str, bolt: int, http: int, **extra: object) -> Settings:
    values: dict[str, object] = {
        "neo4j_uri": f"bolt://127.0.0.1:{bolt}",
        "neo4j_password": TEST_PASSWORD,
        "neo4j_local_dir": REPO / ".neo4j",
        "neo4j_local_instance": instance,
        "neo4j_local_http_port": http,
        "neo4j_local_heap": "1g",
        "neo4j_local_pagecache": "256m",
    }
    return make_settings(**{**values, **extra})


@pytest.fixture(scope="session")
def neo4j_target() -> Iterator[Neo4jTarget]:
    if uri := os.environ.get("KNOTWORK_TEST_NEO4J_URI"):
        yield Neo4jTarget(
            uri,
            os.environ.get("KNOTWORK_TEST_NEO4J_USER", "neo4j"),
            os.environ.get("KNOTWORK_TEST_NEO4J_PASSWORD", TEST_PASSWORD),
            "env",
        )
        return
    if _docker_answers():
        from testcontainers.neo4j import Neo4jContainer

        container = Neo4jContainer("neo4j:5.26-community", password=TEST_PASSWORD)
        container.with_env("NEO4J_PLUGINS", '["apoc"]')
        with container:
            yield Neo4jTarget(
                container.get_connection_url(), "neo4j", TEST_PASSWORD, "testcontainers"
            )
        return
    local = LocalNeo4j(local_settings("test", *LOCAL_TEST_PORTS))
    was_running = local.pid() is not None
    try:
        status = local.start()
    except Exception as exc:
        _unavailable(f"the local server did not start: {exc}")
        return
    yield Neo4jTarget(status.bolt_uri, "neo4j", TEST_PASSWORD, "local")
    if not was_running:
        local.stop()


@pytest.fixture
def settings(neo4j_target: Neo4jTarget, fake_ollama: FakeOllama) -> Settings:
    return make_settings(
        neo4j_uri=neo4j_target.uri,
        neo4j_user=neo4j_target.user,
        neo4j_password=neo4j_target.password,
        ollama_base_url=fake_ollama.base_url,
        neo4j_index_timeout_s=60,
        # The Host headers of the in-process test clients (TestClient, httpx.ASGITransport).
        api_allowed_hosts=["testserver", "knotwork.test"],
    )


def put(vault: Path, path: str, text: str) -> None:
    """Write a note into a test vault, creating its folders."""
    file = vault / path
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(text, encoding="utf-8")


@pytest.fixture
def ingestor(core: Core, vault: Path) -> Ingestor:
    """An ingestor of vault "t" over the test vault folder, model extraction off."""
    return Ingestor(core, root=vault, vault="t", extract_enabled=False)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    """An empty vault folder."""
    root = tmp_path / "vault"
    root.mkdir()
    return root


@pytest.fixture
def ann_vault(tmp_path: Path) -> Path:
    """A vault folder of one note of one chunk, for the tests of what waits on a model."""
    root = tmp_path / "v"
    root.mkdir()
    put(root, "Ann.md", "# Ann\n\nAnn works with Ben.\n")
    return root


@pytest.fixture
def env(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, settings: Settings, empty_db: Neo4jTarget
) -> Iterator[None]:
    """The CLI reads its settings from the environment, as a user's shell would give them."""
    monkeypatch.chdir(tmp_path)
    for key, value in {
        "NEO4J_URI": settings.neo4j_uri,
        "NEO4J_USER": settings.neo4j_user,
        "NEO4J_PASSWORD": settings.password(),
        "OLLAMA_BASE_URL": settings.ollama_base_url,
    }.items():
        monkeypatch.setenv(f"KNOTWORK_{key}", value)
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


async def hold_vault(status: dict[str, object], settings: Settings | None = None) -> Lease:
    """Take the vault's lease for 60 s as another process would, with its ``status`` (a
    watcher, the API's extraction); the CLI's settings unless ``settings``."""
    async with open_core(settings or get_settings()) as core:
        lease = Lease(core.store, core.settings.vault_name, 60)
        await lease.acquire(status)
        return lease


def get_health(
    settings: Settings, vault: Path, fake_ollama: FakeOllama, *, missing: str | None = None
) -> httpx.Response:
    """``GET /health`` of an API serving ``vault`` (ingest needs its folder); ``missing``: a
    model the fake stops listing once the API has started."""
    with TestClient(create_app(settings.model_copy(update={"vault_path": vault}))) as client:
        if missing is not None:
            del fake_ollama.models[missing]
        return client.get("/health")


async def reset_database(target: Neo4jTarget) -> None:
    """Empty the database and drop Knotwork's indexes and constraints."""
    async with AsyncGraphDatabase.driver(target.uri, auth=(target.user, target.password)) as drv:
        for statement in _RESET:
            await drv.execute_query(statement)


@pytest.fixture
async def empty_db(neo4j_target: Neo4jTarget) -> Neo4jTarget:
    """An empty database with no Knotwork schema."""
    await reset_database(neo4j_target)
    return neo4j_target


@pytest.fixture
async def core(empty_db: Neo4jTarget, settings: Settings) -> AsyncIterator[Core]:
    """An open core on an empty database with the schema applied and indexes ONLINE."""
    async with open_core(settings) as opened:
        await opened.ensure_ready()
        yield opened


@pytest.fixture
def proxy(neo4j_target: Neo4jTarget) -> Iterator[TcpProxy]:
    """A TCP proxy in front of the test Neo4j: ``cut()`` makes the server look down to a
    driver, as a stopped server does, and ``restore()`` brings it back."""
    target = urlsplit(neo4j_target.uri)
    proxied = TcpProxy(target.hostname or "127.0.0.1", target.port or 7687).start()
    yield proxied
    proxied.close()


async def stored_notes(core: Core, vault: str = "default") -> dict[str, str | None]:
    """Path → content hash of every note the graph holds for ``vault`` (None: derived under
    other rules or language settings than the defaults, so a sync rewrites it)."""
    rows = await core.store.read(
        NOTE_HASHES, vault=vault, facts_version=FACTS_VERSION, language_setting=LANGUAGE_SETTING
    )
    return {row["path"]: row["content_hash"] if row["current"] else None for row in rows}


async def stale_revisions(core: Core, vault: str) -> dict[str, tuple[list[str], list[str]]]:
    """Notes whose latest revision does not list exactly the facts they assert in the graph:
    path → (the revision's list, the graph's)."""
    notes = sorted(await stored_notes(core, vault))
    rows = await core.store.read(NOTES_FACTS, vault=vault, paths=notes)
    graph = {r["path"]: sorted({stored_fact_key(f) for f in r["facts"]}) for r in rows}
    latest = await ad_hoc(
        core,
        "MATCH (r:Revision {vault: $vault}) WITH r ORDER BY r.at DESC "
        "RETURN r.path AS path, collect(r.asserted)[0] AS listed",
        {"vault": vault},
    )
    listed = {r["path"]: sorted(r["listed"]) for r in latest}
    return {
        p: (listed.get(p, []), graph.get(p, []))
        for p in notes
        if listed.get(p, []) != graph.get(p, [])
    }


async def ad_hoc(
    core: Core, query: str, params: dict[str, Any] | None = None, *, write: bool = False
) -> list[dict[str, Any]]:
    """Rows of an ad-hoc query a test asserts with, through the driver: the service runs only
    named queries (GraphStore), tests may look at the graph any way they need."""
    records, _, _ = await core.driver.execute_query(
        query,
        params or {},
        database_=core.settings.neo4j_database,
        routing_=RoutingControl.WRITE if write else RoutingControl.READ,
    )
    return [record.data() for record in records]
