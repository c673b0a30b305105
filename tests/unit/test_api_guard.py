"""The pieces of the API's guard that need no server: URL redaction in text and logs, the key
a header can carry, the Host and Origin allow-list and the accepted body types."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from pydantic import SecretStr
from starlette.datastructures import Headers
from starlette.responses import JSONResponse

from knotwork.api.guard import HostRule, RequestGuard, body_type_problem, key_matches
from knotwork.errors import ConfigError
from knotwork.redact import RedactingFilter, redact
from tests.conftest import make_settings


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("http://u:pw@h:11434", "http://u:***@h:11434"),
        (
            "Ollama at https://tok@ollama.example/api did not",
            "Ollama at https://***@ollama.example/api did not",
        ),
        (
            "bolt+s://neo4j:p%40ss@db:7687 and http://a:b@c",
            "bolt+s://neo4j:***@db:7687 and http://a:***@c",
        ),
        ("http://127.0.0.1:11434/api/chat", "http://127.0.0.1:11434/api/chat"),
        ("mail alice@example.org", "mail alice@example.org"),
        ("http://user:p@ss@host:11434/api", "http://user:***@host:11434/api"),  # a raw "@"
        ("https://tok@en@h/x and http://h2/y@z", "https://***@h/x and http://h2/y@z"),
    ],
)
def test_redact_masks_url_credentials(text: str, shown: str) -> None:
    assert redact(text) == shown


def test_log_records_are_redacted(caplog: pytest.LogCaptureFixture) -> None:
    logger = logging.getLogger("knotwork.test_redact")
    caplog.handler.addFilter(RedactingFilter())
    try:
        raise ValueError("could not reach http://u:hunter2@ollama:11434")
    except ValueError:
        logger.exception("model at %s failed", "http://u:hunter2@ollama:11434")
    assert "hunter2" not in caplog.text
    assert "http://u:***@ollama:11434" in caplog.text


def test_a_key_a_header_cannot_carry_is_refused_at_start() -> None:
    for key in ("ключ-ключ-ключ-ключ-ключ", "a" * 20 + " b", "a" * 20 + "\t"):
        with pytest.raises(ConfigError, match="cannot carry"):
            make_settings(api_key=SecretStr(key)).check_api_exposure()
    make_settings(api_key=SecretStr("A-zA_z0~9!" * 2)).check_api_exposure()


def test_key_matches_any_bytes_without_raising() -> None:
    key = SecretStr("k" * 20)
    assert key_matches(key, "k" * 20) and key_matches(key, b"k" * 20)
    for given in ("ключ", "k" * 19 + "é", b"\xff", None, ""):
        assert not key_matches(key, given)
    assert key_matches(None, None) and key_matches(SecretStr(""), None)  # `KEY=` in .env


def test_host_rule_on_loopback() -> None:
    rule = HostRule.of(make_settings(api_port=8123, api_allowed_hosts="Notes.Example, proxy:8443"))
    for host in ("127.0.0.1:8123", "localhost:8123", "[::1]:8123", "notes.example", "proxy:8443"):
        assert rule.allows(host), host
    assert rule.allows("notes.example:9000")  # a name without a port: any port
    for host in ("127.0.0.1:8000", "localhost", "evil.example:8123", "proxy:8444", "", "[::1]"):
        assert not rule.allows(host), host
    assert rule.allows_origin("http://localhost:8123", "localhost:8123")
    assert rule.allows_origin("https://notes.example", "127.0.0.1:8123")
    for origin in ("null", "http://localhost:3000", "file://", "http://u@localhost:8123"):
        assert not rule.allows_origin(origin, "localhost:8123"), origin
    for broken in ("http://[::1", "http://a]b", "https://[x"):  # refused (403), never a 500
        assert not rule.allows_origin(broken, "localhost:8123"), broken


def test_no_host_check_needs_a_key_even_on_loopback() -> None:
    with pytest.raises(ConfigError, match=r"ALLOWED_HOSTS=\* checks no Host name"):
        make_settings(api_allowed_hosts="*").check_api_exposure()
    make_settings(api_allowed_hosts="*", api_key=SecretStr("k" * 16)).check_api_exposure()
    make_settings(api_allowed_hosts="notes.example").check_api_exposure()  # names are checked


def test_host_rule_bound_everywhere() -> None:
    key = SecretStr("k" * 20)
    anywhere = HostRule.of(make_settings(api_host="0.0.0.0", api_key=key))
    assert anywhere.allows("10.0.0.5:8000") and anywhere.allows("notes.lan")
    assert anywhere.allows_origin("http://notes.lan:8000", "notes.lan:8000")
    assert not anywhere.allows_origin("https://evil.example", "notes.lan:8000")
    named = HostRule.of(make_settings(api_host="0.0.0.0", api_key=key, api_allowed_hosts="a.lan"))
    assert named.allows("a.lan:8000") and not named.allows("b.lan:8000")
    bound = HostRule.of(make_settings(api_host="10.0.0.5", api_key=key))
    assert bound.allows("10.0.0.5:8000") and bound.allows("localhost:8000")
    assert not bound.allows("localhost:8001") and not bound.allows("notes.lan:8000")


def test_loopback_names_pass_with_allowed_hosts_on_every_interface() -> None:
    """Compose binds 0.0.0.0 with a proxy's name allowed: its health check (127.0.0.1 inside
    the container) and a curl from the host still reach the API at its port."""
    rule = HostRule.of(
        make_settings(
            api_host="0.0.0.0",
            api_port=8000,
            api_key=SecretStr("k" * 20),
            api_allowed_hosts="notes.example.com",
        )
    )
    for host in ("notes.example.com", "127.0.0.1:8000", "localhost:8000", "[::1]:8000"):
        assert rule.allows(host), host
    for host in ("127.0.0.1:8001", "localhost", "evil.example:8000", "rebound.example"):
        assert not rule.allows(host), host


@pytest.mark.parametrize(
    ("declared", "ok"),
    [
        ("application/json", True),
        ("text/markdown; charset=utf-8", True),
        ('Application/JSON; charset="UTF-8"', True),
        ("text/plain", False),
        ("application/x-www-form-urlencoded", False),
        ("multipart/form-data; boundary=x", False),
        ("text/markdown; charset=iso-8859-1", False),
        (None, False),
    ],
)
def test_body_types(declared: str | None, ok: bool) -> None:
    headers = Headers({"content-type": declared} if declared else {})
    assert (body_type_problem(headers) is None) is ok


def test_markdown_only_where_the_body_is_a_note() -> None:
    markdown = Headers({"content-type": "text/markdown"})
    assert body_type_problem(markdown, markdown=True) is None
    assert "only for a note's body" in (body_type_problem(markdown, markdown=False) or "")
    assert body_type_problem(Headers({"content-type": "application/json"}), markdown=False) is None


def _guarded(headers: list[tuple[bytes, bytes]], *, keyed: bool = False) -> tuple[int, bool]:
    """The status a guarded app answers a PUT with, and whether anything read its body."""
    read: list[bool] = []
    sent: list[dict[str, Any]] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await receive()  # as a route reads its body
        await JSONResponse({}, status_code=200)(scope, receive, send)

    async def receive() -> dict[str, Any]:
        read.append(True)
        return {"type": "http.request", "body": b"# Ann\n", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    settings = make_settings(api_key=SecretStr("sesame-sesame-16"))
    scope = {
        "type": "http",
        "method": "PUT",
        "path": "/notes/Ann.md",
        "headers": [(b"host", b"127.0.0.1:8000"), *headers],
    }
    asyncio.run(RequestGuard(app, settings, keyed=keyed)(scope, receive, send))
    return sent[0]["status"], bool(read)


def test_a_body_is_not_read_for_a_caller_without_the_key() -> None:
    markdown = [(b"content-type", b"text/markdown"), (b"content-length", b"6")]
    assert _guarded(markdown) == (401, False)
    assert _guarded([*markdown, (b"x-api-key", b"wrong")]) == (401, False)
    assert _guarded([(b"transfer-encoding", b"chunked"), (b"content-type", b"text/plain")]) == (
        401,
        False,
    )  # the key is asked before the body's type is judged
    assert _guarded([*markdown, (b"x-api-key", b"sesame-sesame-16")]) == (200, True)
    assert _guarded([(b"x-api-key", b"sesame-sesame-16")], keyed=True) == (
        200,
        True,
    )  # MCP: every request
    assert _guarded([], keyed=True) == (401, False)


def test_a_chunked_body_beside_content_length_zero_is_a_body() -> None:
    """The server reads a chunked body by its chunks whatever Content-Length says (h11 takes
    both headers): "Content-Length: 0" must not pass a body without the key or with a type a
    page can send cross-site."""
    smuggled = [(b"content-length", b"0"), (b"transfer-encoding", b"chunked")]
    plain = [*smuggled, (b"content-type", b"text/plain")]
    assert _guarded(plain) == (401, False)
    assert _guarded([*plain, (b"x-api-key", b"sesame-sesame-16")]) == (415, False)
    markdown = [*smuggled, (b"content-type", b"text/markdown"), (b"x-api-key", b"sesame-sesame-16")]
    assert _guarded(markdown) == (200, True)


def test_a_second_host_header_is_refused() -> None:
    """h11 passes both on: the guard must not judge the first while another reads the second."""
    second = [(b"host", b"attacker.example:8000"), (b"x-api-key", b"sesame-sesame-16")]
    assert _guarded(second) == (400, False)


def _get(headers: list[tuple[bytes, bytes]], *, keyed: bool = False) -> tuple[int, Headers]:
    """The status and headers a guarded app with no key answers a GET /stats with."""
    sent: list[dict[str, Any]] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await JSONResponse({}, status_code=200)(scope, receive, send)

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "method": "GET",
        "path": "/stats",
        "headers": [(b"host", b"127.0.0.1:8000"), *headers],
    }
    asyncio.run(RequestGuard(app, make_settings(), keyed=keyed)(scope, receive, send))
    return sent[0]["status"], Headers(raw=sent[0]["headers"])


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ([(b"sec-fetch-site", b"cross-site")], 403),  # <script src> from any site: no Origin
        ([(b"sec-fetch-site", b"Cross-Site")], 403),
        ([(b"sec-fetch-site", b"same-site")], 403),  # a sibling port, no Origin to judge
        ([(b"sec-fetch-site", b"same-site"), (b"origin", b"http://localhost:8000")], 200),
        ([(b"sec-fetch-site", b"same-origin")], 200),  # /docs fetching /openapi.json
        ([(b"sec-fetch-site", b"none")], 200),  # the URL typed in the address bar
        ([], 200),  # curl, an MCP client: no Sec-Fetch-* at all
    ],
)
def test_a_cross_site_get_without_an_origin_is_refused(
    headers: list[tuple[bytes, bytes]], status: int
) -> None:
    """Browsers send no Origin on a <script> or <img> GET, but say where it comes from in
    Sec-Fetch-Site: a loopback server with no key ran such requests for any site."""
    assert _get(headers)[0] == status
    assert _get(headers, keyed=True)[0] == status  # the MCP transport, no key configured


@pytest.mark.parametrize(
    "headers", [[], [(b"sec-fetch-site", b"cross-site")], [(b"host", b"evil.example")]]
)
def test_every_response_forbids_framing(headers: list[tuple[bytes, bytes]]) -> None:
    """No site may frame the server's pages (the /docs page's buttons among them), refusals
    included."""
    _, sent = _get(headers)
    assert sent["x-frame-options"] == "DENY"
    assert sent["content-security-policy"] == "frame-ancestors 'none'"
