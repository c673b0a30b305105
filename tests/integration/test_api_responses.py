"""Every body the routes answer with, from the running app over the real Neo4j, matches the model
OpenAPI declares for its status, and the typed routes answer exactly what the shared reads
return (a response model that dropped or reshaped a field would show here)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from httpx import Response
from jsonschema import Draft202012Validator
from pydantic import BaseModel, SecretStr

from knotwork.api import create_app
from knotwork.api.routes.health import Readiness
from knotwork.check.reports import HealthReport
from knotwork.core import open_core
from knotwork.graph.lease import Lease
from knotwork.graph.queries.mentions import MENTIONS_WRITE
from knotwork.retrieve.notes import note_detail, vault_stats
from knotwork.serving.bodies import (
    Accepted,
    Ingested,
    Journaled,
    NoteDetail,
    NoteMeta,
    Synced,
    VaultStats,
)
from knotwork.settings import Settings
from tests.fakes.ollama import FakeOllama
from tests.integration.conftest import Neo4jTarget
from tests.integration.server import TcpProxy
from tests.integration.test_retrieve_graph import extraction_script

KEY = "r" * 24
MARKDOWN = {"Content-Type": "text/markdown"}
CAROL = (
    "---\ndate: 2024-03-05\ntags: [crew/launch]\naliases: [Caz]\nrole: pilot\n---\n# Carol\n\n"
    "Carol runs the rocket schedule with [[Bob]] and [[Nobody]]. #launch\n\n"
    "## Later\n\nBob again.\n"
)


def api_settings(settings: Settings, vault: Path, **extra: Any) -> Settings:
    return settings.model_copy(
        update={"vault_path": vault, "api_key": SecretStr(KEY), "extract": True, **extra}
    )


@pytest.fixture
def client(
    settings: Settings, vault: Path, empty_db: Neo4jTarget, fake_ollama: FakeOllama
) -> Iterator[TestClient]:
    fake_ollama.chat_script = extraction_script  # Carol's chunk yields a model-extracted fact
    with TestClient(
        create_app(api_settings(settings, vault)), headers={"X-API-Key": KEY, **MARKDOWN}
    ) as test_client:
        yield test_client


def conforms(client: TestClient, response: Response, model: type[BaseModel]) -> Any:
    """The body matches the schema OpenAPI declares for this operation and status, and
    ``model`` holds every field of it unchanged; returns the body."""
    spec = client.get("/openapi.json").json()
    request = response.request
    template = "/notes/{path}" if request.url.path.startswith("/notes/") else request.url.path
    declared = spec["paths"][template][request.method.lower()]["responses"]
    schema = declared[str(response.status_code)]["content"]["application/json"]["schema"]
    assert schema, f"{request.method} {template} {response.status_code} declares no body"
    body = response.json()
    Draft202012Validator({**schema, "components": spec["components"]}).validate(body)
    assert model.model_validate(body).model_dump(mode="json") == body
    return body


def extracted(client: TestClient, path: str) -> Response:
    """The note once its chunks' model extraction, done in the background, is over."""
    deadline = time.monotonic() + 30
    while True:
        got = client.get(f"/notes/{path}")
        states = {c["extraction_state"] for c in got.json().get("chunks", [])}
        if got.status_code != 200 or "pending" not in states or time.monotonic() > deadline:
            return got
        time.sleep(0.05)


def read(settings: Settings, vault: Path, work: Any) -> Any:
    """What a shared read returns, serialised as the old routes sent it (plain JSON)."""

    async def run() -> Any:
        async with open_core(api_settings(settings, vault)) as core:
            return json.loads(json.dumps(await work(core)))

    return asyncio.run(run())


def test_reads_and_writes_answer_their_declared_models(
    client: TestClient, settings: Settings, vault: Path
) -> None:
    (vault / "team").mkdir()
    (vault / "team/Bob.md").write_text("# Bob\n\nBob works with [[Carol]].\n")
    synced = client.post("/sync")
    assert synced.status_code == 200, synced.text
    assert conforms(client, synced, Synced)["written"] == 1

    put = client.put("/notes/team/Carol.md", content=CAROL)
    assert put.status_code == 200, put.text
    written = conforms(client, put, Ingested)
    assert written["status"] == "written" and written["pending_extractions"] == 2

    got = extracted(client, "team/Carol.md")  # the model's facts follow the answer
    assert got.status_code == 200, got.text
    detail = conforms(client, got, NoteDetail)
    assert detail == read(settings, vault, lambda core: note_detail(core, "team/Carol.md"))
    kinds = {(f["object_kind"], f["extractor"]) for f in detail["facts"]}
    # Every shape of fact the graph holds: a note, an unresolved link, frontmatter and tag
    # entities, and a triple the model extracted (with its model and confidence).
    assert {("note", "wikilink"), ("unresolved", "wikilink"), ("entity", "frontmatter")} <= kinds
    assert ("entity", "llm") in kinds and ("entity", "tag") in kinds
    assert len(detail["chunks"]) == 2 and detail["note"]["dates"] == ["2024-03-05"]

    stats = client.get("/stats")
    assert stats.status_code == 200, stats.text
    assert conforms(client, stats, VaultStats) == read(settings, vault, vault_stats)

    keyed = client.get("/health")
    assert keyed.status_code in (200, 503), keyed.text
    assert conforms(client, keyed, HealthReport)["neo4j"]["ok"] is True
    bare = client.get("/health", headers={"X-API-Key": ""})
    assert bare.status_code == keyed.status_code
    assert conforms(client, bare, Readiness) == {"ok": keyed.status_code == 200}

    gone = client.delete("/notes/team/Carol.md")
    assert gone.status_code == 200, gone.text
    assert conforms(client, gone, Ingested)["status"] == "deleted"


def test_a_placeholder_note_answers_its_declared_model(
    client: TestClient, settings: Settings, vault: Path
) -> None:
    """A note mentioned by another that a running sync has not written yet has only a path
    (``mentions_write`` makes it); reading it then must not break the response model."""
    assert client.put("/notes/Ann.md", content="# Ann\n\nAnn met Ghost.\n").status_code == 200
    mention = {
        "target_path": "Ghost.md",
        "props": {
            "source": "Ann.md",
            "chunk_id": "default:Ann.md:0",
            "line": 3,
            "extractor": "mention",
            "model": None,
            "confidence": 1.0,
            "predicate": None,
            "target": "ghost",
            "subject": None,
        },
    }

    async def place() -> None:
        async with open_core(api_settings(settings, vault)) as core:
            await core.store.write(MENTIONS_WRITE, vault="default", facts=[mention])

    asyncio.run(place())
    got = client.get("/notes/Ghost.md")
    assert got.status_code == 200, got.text
    body = conforms(client, got, NoteDetail)
    assert body["note"] == {key: None for key in NoteMeta.model_fields} | {"path": "Ghost.md"}
    assert body["chunks"] == [] and body["facts"] == []
    ann = conforms(client, client.get("/notes/Ann.md"), NoteDetail)
    assert ("MENTIONS", "Ghost.md", "note") in {
        (f["predicate"], f["object"], f["object_kind"]) for f in ann["facts"]
    }


def test_a_write_the_lease_holder_ingests_answers_accepted(
    client: TestClient, settings: Settings, vault: Path
) -> None:
    (vault / "Old.md").write_text("# Old\n")
    assert client.post("/sync").status_code == 200

    async def hold() -> Lease:
        async with open_core(settings) as core:
            lease = Lease(core.store, "default", 60)
            await lease.acquire({"mode": "inotify"})
            return lease

    lease = asyncio.run(hold())
    put = client.put("/notes/New.md", content="# New\n")
    assert put.status_code == 202, put.text
    assert conforms(client, put, Accepted)["ingested_by"] == lease.holder
    gone = client.delete("/notes/Old.md")
    assert gone.status_code == 202, gone.text
    assert conforms(client, gone, Accepted) == {
        "path": "Old.md",
        "status": "accepted",
        "ingested_by": lease.holder,
    }


def test_a_write_while_neo4j_is_down_answers_journaled(
    settings: Settings, vault: Path, tmp_path: Path, empty_db: Neo4jTarget, proxy: TcpProxy
) -> None:
    through = api_settings(
        settings,
        vault,
        neo4j_uri=f"bolt://127.0.0.1:{proxy.port}",
        extract=False,
        state_dir=tmp_path / "state",
    )
    with TestClient(create_app(through), headers={"X-API-Key": KEY, **MARKDOWN}) as client:
        assert client.put("/notes/Old.md", content="# Old\n").status_code == 200
        proxy.cut()
        put = client.put("/notes/New.md", content="# New\n")
        assert put.status_code == 503 and put.headers["Retry-After"], put.text
        gone = client.delete("/notes/Old.md")
        assert gone.status_code == 503, gone.text
        for response, done in ((put, "saved"), (gone, "deleted")):
            body = conforms(client, response, Journaled)
            assert body["status"] == "journaled" and done in body["detail"]
        proxy.restore()
