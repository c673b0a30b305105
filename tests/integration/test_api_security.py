"""Who may call the REST API and what it gives away: Host and Origin checked against one
allow-list, writes only with a JSON or Markdown body, details and docs behind the key, no
credentials in anything returned, and a key header of any bytes is a 401."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr
from typer.testing import CliRunner

import knotwork.api.routes.health as health_route
from knotwork.api import create_app
from knotwork.cli import app as cli
from knotwork.settings import Settings, get_settings
from tests.fakes.ollama import FakeOllama
from tests.integration.conftest import Neo4jTarget

KEY = "s" * 24
MD = {"Content-Type": "text/markdown"}
ALICE = "# Alice\n\nAlice works with Bob on the graph database.\n"


@pytest.fixture
def local(settings: Settings, vault: Path, empty_db: Neo4jTarget) -> Settings:
    """A loopback API on port 8000 with no extra hosts (not even the test client's)."""
    return settings.model_copy(
        update={"vault_path": vault, "extract": False, "api_allowed_hosts": [], "api_port": 8000}
    )


def client_at(settings: Settings, base_url: str, **kwargs: Any) -> TestClient:
    return TestClient(create_app(settings), base_url=base_url, **kwargs)


def test_only_this_servers_host_names_are_answered(local: Settings, vault: Path) -> None:
    with client_at(local, "http://127.0.0.1:8000") as client:
        assert client.get("/stats").status_code == 200
        for host in ("localhost:8000", "[::1]:8000", "LOCALHOST:8000"):
            assert client.get("/stats", headers={"Host": host}).status_code == 200, host
        # DNS rebinding: the attacker's name resolved to 127.0.0.1, or another local port.
        for host in ("attacker.example:8000", "attacker.example", "localhost:9999", ""):
            refused = client.put("/notes/Evil.md", content="pwned", headers={**MD, "Host": host})
            assert refused.status_code == 421, (host, refused.text)
            assert "KNOTWORK_API_ALLOWED_HOSTS" in refused.json()["detail"]
            assert client.post("/sync", headers={"Host": host}).status_code == 421
    assert not (vault / "Evil.md").exists()
    extra = local.model_copy(update={"api_allowed_hosts": ["notes.example.org"]})
    with client_at(extra, "http://notes.example.org") as client:
        assert client.get("/stats").status_code == 200
        assert client.get("/stats", headers={"Host": "notes.example.org:8443"}).status_code == 200
        assert client.get("/stats", headers={"Host": "other.example.org"}).status_code == 421


def test_cross_site_requests_are_refused(local: Settings, vault: Path) -> None:
    with client_at(local, "http://127.0.0.1:8000") as client:
        for origin in ("https://attacker.example", "null", "http://localhost:3000"):
            headers = {**MD, "Origin": origin}
            put = client.put("/notes/Evil.md", content="pwned", headers=headers)
            assert put.status_code == 403, (origin, put.text)
            assert "cross-site" in put.json()["detail"]
            assert client.post("/sync", headers={"Origin": origin}).status_code == 403
            assert client.delete("/notes/Evil.md", headers={"Origin": origin}).status_code == 403
        assert not (vault / "Evil.md").exists()
        same = client.put(
            "/notes/Ann.md", content=ALICE, headers={**MD, "Origin": "http://localhost:8000"}
        )
        assert same.status_code == 200, same.text


def test_a_cross_site_get_without_an_origin_is_refused_and_no_page_is_framed(
    local: Settings,
) -> None:
    """A page's <script src="http://127.0.0.1:8000/stats"> sends no Origin, only
    Sec-Fetch-Site; the docs' own fetches are same-origin and still answered."""
    with client_at(local, "http://127.0.0.1:8000") as client:
        for site in ("cross-site", "same-site"):
            refused = client.get("/stats", headers={"Sec-Fetch-Site": site})
            assert refused.status_code == 403, (site, refused.text)
            assert "Sec-Fetch-Site" in refused.json()["detail"]
            assert refused.headers["x-frame-options"] == "DENY"
        for site in ("same-origin", "none"):
            assert client.get("/stats", headers={"Sec-Fetch-Site": site}).status_code == 200
        spec = client.get("/openapi.json", headers={"Sec-Fetch-Site": "same-origin"})
        assert spec.status_code == 200 and "paths" in spec.json()
        docs = client.get("/docs", headers={"Sec-Fetch-Site": "none"})
    assert docs.status_code == 200 and "swagger" in docs.text.lower()
    assert docs.headers["x-frame-options"] == "DENY"
    assert docs.headers["content-security-policy"] == "frame-ancestors 'none'"


def test_writes_need_a_json_or_markdown_body(local: Settings, vault: Path) -> None:
    with client_at(local, "http://127.0.0.1:8000") as client:
        # What a form or a no-cors fetch can send cross-site without a preflight.
        for kind in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data"):
            sync = client.post("/sync", content="x=1", headers={"Content-Type": kind})
            assert sync.status_code == 415, (kind, sync.text)
            assert "application/json" in sync.json()["detail"]
            put = client.put("/notes/Evil.md", content="x", headers={"Content-Type": kind})
            assert put.status_code == 415
        assert client.put("/notes/Evil.md", content="no type").status_code == 415
        latin = {"Content-Type": "text/markdown; charset=latin-1"}
        assert client.put("/notes/Evil.md", content="x", headers=latin).status_code == 415
        assert not (vault / "Evil.md").exists()
        assert client.put("/notes/Ann.md", content=ALICE, headers=MD).status_code == 200
        utf8 = {"Content-Type": "text/markdown; charset=UTF-8"}
        assert client.put("/notes/Ann.md", content=ALICE, headers=utf8).status_code == 200
        assert client.post("/sync").status_code == 200  # no body, nothing to declare
        assert client.delete("/notes/Ann.md").status_code == 200


@pytest.fixture
def exposed(local: Settings) -> Settings:
    """Bound to every interface, as in the container: the key is required."""
    return local.model_copy(update={"api_host": "0.0.0.0", "api_key": SecretStr(KEY)})


def test_beyond_loopback_health_without_the_key_says_only_ready(exposed: Settings) -> None:
    with client_at(exposed, "http://192.0.2.7:8000") as client:
        bare = client.get("/health")
        assert bare.status_code == 200 and bare.json() == {"ok": True}
        keyed = client.get("/health", headers={"X-API-Key": KEY})
        assert keyed.status_code == 200
        assert keyed.json()["neo4j"]["version"].startswith("5.26")
        for path in ("/docs", "/redoc", "/openapi.json"):
            assert client.get(path).status_code == 401, path
            assert client.get(path, headers={"X-API-Key": "wrong"}).status_code == 401
            assert client.get(path, headers={"X-API-Key": KEY}).status_code == 200, path
        assert "/notes/{path}" in client.get("/openapi.json", headers={"X-API-Key": KEY}).text


def test_a_non_ascii_key_header_is_401(exposed: Settings) -> None:
    with client_at(exposed, "http://192.0.2.7:8000", raise_server_exceptions=False) as client:
        for given in ("ключ".encode(), ("s" * 23 + "é").encode(), b"\xff\xfe"):
            response = client.get("/stats", headers={"X-API-Key": given})  # type: ignore[dict-item]
            assert response.status_code == 401, response.text
            assert response.json() == {"detail": "missing or wrong X-API-Key header"}
        assert client.get("/stats", headers={"X-API-Key": KEY}).status_code == 200


@pytest.mark.parametrize("password", ["s3cret-pw", "s3cret pw"])  # a space: clients take it
def test_credentials_in_urls_never_leave_the_process(
    local: Settings,
    fake_ollama: FakeOllama,
    vault: Path,
    monkeypatch: pytest.MonkeyPatch,
    password: str,
) -> None:
    monkeypatch.setattr(health_route, "REPORT_TTL_S", 0.0)  # the report with Ollama down
    (vault / "Alice.md").write_text(ALICE)
    secret_url = fake_ollama.base_url.replace("http://", f"http://knot:{password}@")
    settings = local.model_copy(update={"ollama_base_url": secret_url})
    with client_at(settings, "http://127.0.0.1:8000") as client:
        assert client.post("/sync").status_code == 200
        health = client.get("/health")
        assert health.json()["ollama"]["base_url"].startswith("http://knot:***@127.0.0.1:")
        fake_ollama.down = True
        down = client.get("/health").text
        answer = client.post("/query", json={"question": "Who works with Bob?", "mode": "fast"})
    assert answer.status_code == 200 and answer.json()["status"] == "model_unavailable"
    warnings = " ".join(answer.json()["warnings"])
    assert "knot:***@" in warnings
    for text in (health.text, down, answer.text):
        assert password not in text and "s3cret" not in text


def test_a_note_path_too_long_for_any_file_system_is_not_echoed_whole(
    local: Settings, vault: Path
) -> None:
    """A read of a 60,000-byte name answered 404 with the name whole; a write cut it."""
    name = "a" * 60_000 + ".md"
    with client_at(local, "http://127.0.0.1:8000") as client:
        for response in (client.get(f"/notes/{name}"), client.put(f"/notes/{name}", headers=MD)):
            assert response.status_code == 422, response.status_code
            assert "at most 255 bytes per name" in response.text and len(response.text) < 600
        deep = client.get(f"/notes/{'a/' * 3_000}b.md")  # short names, a path over 4096 bytes
        assert deep.status_code == 422 and len(deep.text) < 600


def test_doctor_prints_no_credentials(
    env: None, fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret_url = fake_ollama.base_url.replace("http://", "http://knot:s3cret-pw@")
    monkeypatch.setenv("KNOTWORK_OLLAMA_BASE_URL", secret_url)
    get_settings.cache_clear()
    runner = CliRunner()
    assert runner.invoke(cli, ["init"]).exit_code == 0
    fake_ollama.down = True
    result = runner.invoke(cli, ["doctor"])
    assert "FAIL Ollama reachable at http://knot:***@127.0.0.1:" in result.output
    assert "s3cret-pw" not in result.output
