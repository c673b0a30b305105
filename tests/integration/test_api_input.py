"""Bad input gets a 4xx that says what to send, never a 500 or a hang: bodies bounded before
they are read, NaN and Infinity, lone surrogates, invalid UTF-8, and no long echo in errors."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from knotwork.api import create_app
from knotwork.settings import Settings
from tests.integration.conftest import Neo4jTarget
from tests.integration.server import free_port, serving

MD = {"Content-Type": "text/markdown"}
JSON = {"Content-Type": "application/json"}


@pytest.fixture
def api_settings(settings: Settings, vault: Path, empty_db: Neo4jTarget) -> Settings:
    return settings.model_copy(
        update={"vault_path": vault, "extract": False, "max_note_bytes": 10_000}
    )


@pytest.fixture
def client(api_settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(api_settings), raise_server_exceptions=False) as test_client:
        yield test_client


def message(response: object) -> str:
    """The text of a 4xx: FastAPI's list of problems, or one detail."""
    detail = response.json()["detail"]  # type: ignore[attr-defined]
    return detail if isinstance(detail, str) else " ".join(d["msg"] for d in detail)


def test_a_huge_declared_body_is_refused_before_it_is_sent(api_settings: Settings) -> None:
    """Headers announce 300 MB and no byte of it follows: the answer must not wait for it."""
    port = free_port()
    app = create_app(api_settings.model_copy(update={"api_port": port}))
    with serving(app, port), socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        for head in (
            f"POST /retrieve HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            "Content-Type: application/json\r\nContent-Length: 300000000\r\n\r\n",
            f"PUT /notes/Big.md HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            "Content-Type: text/markdown\r\nContent-Length: 300000000\r\n\r\n",
        ):
            started = time.monotonic()
            sock.sendall(head.encode())
            reply = sock.recv(4096).decode(errors="replace")
            assert reply.startswith("HTTP/1.1 413"), reply
            assert time.monotonic() - started < 5
            sock.close()
            sock = socket.create_connection(("127.0.0.1", port), timeout=10)


def test_a_body_without_length_is_counted_and_stopped(client: TestClient, vault: Path) -> None:
    def chunks(total: int) -> Iterator[bytes]:
        for _ in range(total // 4096):
            yield b"x" * 4096

    over = client.put("/notes/Big.md", content=chunks(200_000), headers=MD)
    assert over.status_code == 413 and "KNOTWORK_MAX_NOTE_BYTES" in message(over)
    json_over = client.post("/retrieve", content=chunks(1_000_000), headers=JSON)
    assert json_over.status_code == 413 and "KNOTWORK_API_MAX_BODY_BYTES" in message(json_over)
    assert not (vault / "Big.md").exists()


def test_errors_never_echo_a_large_input(client: TestClient) -> None:
    question = "why " * 15_000  # 60 kB: under the body limit, over the question's
    response = client.post("/retrieve", json={"question": question})
    assert response.status_code == 422
    assert "at most 2000 characters" in message(response)
    assert len(response.content) < 2_000, len(response.content)
    keyed = client.post("/retrieve", json={"question": "q", "filters": {"k" * 30_000: 1}})
    assert keyed.status_code == 422 and len(keyed.content) < 2_000


@pytest.mark.parametrize(
    "body",
    [
        '{"question": "who?", "top_k": NaN}',
        '{"question": "who?", "top_k": Infinity}',
        '{"question": "who?", "top_k": -Infinity}',
        '{"question": "who?", "top_k": 1e999}',
    ],
)
def test_non_finite_numbers_are_422(client: TestClient, body: str) -> None:
    for route in ("/retrieve", "/query"):
        response = client.post(route, content=body, headers=JSON)
        assert response.status_code == 422, response.text
        assert "finite" in message(response)


@pytest.mark.parametrize(
    "body",
    [
        '{"question": "who is \\ud800 here?"}',
        '{"question": "who?", "filters": {"folder": "a\\udfff"}}',
        '{"question": "who?", "filters": {"tags": ["\\ud83d"]}}',
        '{"question": "who?", "\\ud800": 1}',
    ],
)
def test_lone_surrogates_are_422(client: TestClient, body: str) -> None:
    for route in ("/retrieve", "/query"):
        response = client.post(route, content=body, headers=JSON)
        assert response.status_code == 422, response.text
        assert "lone surrogate" in message(response)


def test_note_bodies_must_be_text(client: TestClient, vault: Path) -> None:
    latin1 = "# Café\n\nCrème brûlée.\n".encode("latin-1")
    response = client.put("/notes/Cafe.md", content=latin1, headers=MD)
    assert response.status_code == 422, response.text
    assert "not valid UTF-8" in message(response) and "offset 5" in message(response)
    assert latin1.decode("latin-1") not in response.text  # the body is not echoed
    surrogate = client.put("/notes/Cafe.md", content='"# Caf\\udce9"', headers=JSON)
    assert surrogate.status_code == 422 and "lone surrogate" in message(surrogate)
    assert not (vault / "Cafe.md").exists()
    as_json = client.put("/notes/Cafe.md", content='"# Café\\n"', headers=JSON)
    assert as_json.status_code == 200, as_json.text
    assert (vault / "Cafe.md").read_text() == "# Café\n"


def test_deep_json_is_422(client: TestClient) -> None:
    for depth in (40, 100_000):
        body = '{"question": "q", "filters": ' + "[" * depth + "]" * depth + "}"
        response = client.post("/retrieve", content=body, headers=JSON)
        assert response.status_code in (413, 422), response.text
    response = client.post("/retrieve", content="[" * 40 + "]" * 40, headers=JSON)
    assert response.status_code == 422 and "deeper than" in message(response)


def test_a_note_as_a_json_string_is_held_to_the_note_limit_not_its_escapes(
    client: TestClient, vault: Path
) -> None:
    """KNOTWORK_MAX_NOTE_BYTES bounds the note, not the JSON that carries it: escapes make the
    body larger than the note (here 9,300 bytes of note, over 12,000 of JSON)."""
    import json

    note = "# Lines\n" + '"quoted"\n' * 1_000 + "é" * 300  # 9,308 bytes in UTF-8
    body = json.dumps(note)  # ensure_ascii: é as \u00e9, every newline and quote escaped
    assert len(note.encode()) < 10_000 < len(body)
    put = client.put("/notes/Lines.md", content=body, headers=JSON)
    assert put.status_code == 200, put.text
    assert (vault / "Lines.md").read_text() == note
    over = json.dumps(note + "x" * 1_000)  # the note itself over the limit
    refused = client.put("/notes/Over.md", content=over, headers=JSON)
    assert refused.status_code == 413 and "KNOTWORK_MAX_NOTE_BYTES" in message(refused)
    assert not (vault / "Over.md").exists()


def test_an_empty_json_string_is_an_empty_note(client: TestClient, vault: Path) -> None:
    """As MCP's upsert_note takes content "": the note is written empty, on purpose."""
    assert client.put("/notes/Empty.md", content="# Soon empty\n", headers=MD).status_code == 200
    put = client.put("/notes/Empty.md", content='""', headers=JSON)
    assert put.status_code == 200, put.text
    assert (vault / "Empty.md").read_text() == ""


def test_a_note_path_ending_in_a_newline_is_422_not_another_note(
    client: TestClient, vault: Path
) -> None:
    """Starlette's path pattern let a final %0A fall away: PUT nl.md%0A wrote nl.md and a
    DELETE of Seed.md%0A would delete Seed.md."""
    assert client.put("/notes/Seed.md", content="# Seed\n", headers=MD).status_code == 200
    for path in ("/notes/nl.md%0A", "/notes/Seed.md%0A", "/notes/x%0A.md", "/notes/a%0Ab.md"):
        assert client.put(path, content="# X\n", headers=MD).status_code == 422, path
        assert client.delete(path).status_code == 422, path
        assert client.get(path).status_code == 422, path
    assert sorted(p.name for p in vault.rglob("*.md")) == ["Seed.md"]
    assert (vault / "Seed.md").read_text() == "# Seed\n"


def test_a_note_path_that_is_not_utf8_is_422_and_nothing_is_written(
    client: TestClient, vault: Path
) -> None:
    """The server would read "%ff" as U+FFFD: a note no one named, shared by every bad path."""
    for path in ("/notes/%ff.md", "/notes/a%ed%a0%80.md", "/notes/dir%c3/x.md"):
        put = client.put(path, content="# X\n", headers=MD)
        assert put.status_code == 422, (path, put.text)
        assert "not UTF-8" in message(put)
        assert client.delete(path).status_code == 422
        assert client.get(path).status_code == 422
    assert not any(vault.rglob("*.md"))
    assert client.put("/notes/Caf%C3%A9.md", content="# X\n", headers=MD).status_code == 200
