"""Who may talk to the HTTP API at all: one rule for the REST app and the MCP HTTP transport.

A web page must not reach a server on this machine. DNS rebinding points a page's own host name
at 127.0.0.1, so its requests arrive with a foreign ``Host``; a cross-site request carries a
foreign ``Origin``; a "simple" cross-site request (a form, or ``fetch`` in ``no-cors`` mode)
is a POST whose type is ``text/plain``, a form type, or none. So:

* ``Host`` must name this server: its bind address and port, always also ``127.0.0.1``,
  ``localhost`` and ``[::1]`` at that port (a rebinding page sends its own name, never these;
  a container's health check sends them), plus ``KNOTWORK_API_ALLOWED_HOSTS``. A server bound
  to every interface (``0.0.0.0``) cannot know its names and checks none unless that setting
  lists them; it requires the API key instead. Otherwise 421.
* ``Origin``, when present, must be an allowed host (or the request's own host, where any host
  is allowed); 403 otherwise (``null`` included).
* ``Sec-Fetch-Site``, which browsers send even where they send no ``Origin`` (a ``<script>``
  or ``<img>`` GET): ``cross-site`` is refused, and ``same-site`` unless an ``Origin`` passed
  the rule above (a sibling port or subdomain is another site to this server); 403.
  ``same-origin``, ``none`` (a URL typed or bookmarked) and no header (a non-browser client:
  curl, an MCP client) pass.
* A request with a body (any method) must declare it ``application/json`` (UTF-8), or
  ``text/markdown`` (UTF-8) where it is a note's text (``PUT /notes/…``); 415 otherwise,
  naming the type the route takes (FastAPI handed a JSON route a Markdown body as raw bytes,
  refused as "the body should be an object, not an object" and echoed as ``b'…'``).
* With an API key configured, a request with a body needs it before the body is read, so a
  caller without it cannot make the server take in a note-sized body first (the routes check it
  again for every request). Bound beyond loopback, ``/docs``, ``/redoc`` and ``/openapi.json``
  need it too. On loopback they are open, so a browser (which cannot send the header) shows
  them; the Host and Origin rules above still keep other sites out. The MCP transport
  (``keyed``) needs it on every request: it has no routes of its own to check it.

Every response says ``X-Frame-Options: DENY`` and ``frame-ancestors 'none'``: no page may
frame this server's (the /docs page's buttons would otherwise be a click away for any site).
"""

from __future__ import annotations

import hashlib
import ipaddress
import secrets
from dataclasses import dataclass
from urllib.parse import urlsplit

from pydantic import SecretStr
from starlette.datastructures import Headers, MutableHeaders
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from knotwork.settings import Settings

BODY_TYPES = ("application/json", "text/markdown")
DOC_PATHS = frozenset({"/docs", "/docs/oauth2-redirect", "/redoc", "/openapi.json"})
_WILDCARD_BINDS = frozenset({"0.0.0.0", "::", ""})  # noqa: S104 (recognised, not bound)
_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
NO_FRAMING = (("x-frame-options", "DENY"), ("content-security-policy", "frame-ancestors 'none'"))


def key_matches(expected: SecretStr | None, given: str | bytes | None) -> bool:
    """Whether ``given`` is the configured key; True when none is configured (an empty
    ``KNOTWORK_API_KEY=`` line counts as none). Compares bytes, so a header holding any
    character is a plain mismatch (a str compare raises on non-ASCII).
    """
    if expected is None or not expected.get_secret_value():
        return True
    if given is None:
        return False
    raw = given if isinstance(given, bytes) else given.encode("latin-1", errors="replace")
    # Digests compared, not the key: compare_digest's time still shows a length difference.
    want = hashlib.sha256(expected.get_secret_value().encode()).digest()
    return secrets.compare_digest(hashlib.sha256(raw).digest(), want)


def _host_literal(host: str) -> str:
    """A bind address as it appears in a Host header (IPv6 in brackets), lower case."""
    host = host.strip().lower()
    try:
        if ipaddress.ip_address(host).version == 6:
            return f"[{host}]"
    except ValueError:
        pass
    return host


@dataclass(frozen=True)
class HostRule:
    """The Host names (``name:port`` and bare ``name``) this server answers to."""

    exact: frozenset[str]
    names: frozenset[str]  # allowed at any port
    any_host: bool

    @classmethod
    def of(cls, settings: Settings) -> HostRule:
        extra = [h.strip().lower() for h in settings.api_allowed_hosts if h.strip()]
        if "*" in extra or (settings.api_host.strip() in _WILDCARD_BINDS and not extra):
            return cls(frozenset(), frozenset(), any_host=True)
        port = settings.api_port
        # The loopback names at the bound port, whatever the bind: a health check from inside
        # a container bound to 0.0.0.0 with ALLOWED_HOSTS set sends them.
        bound = [_host_literal(settings.api_host), *_LOOPBACK_NAMES]
        exact = {f"{name}:{port}" for name in bound}
        if port == 80:
            exact |= set(bound)
        with_port = {h for h in extra if h.rsplit(":", 1)[-1].isdigit() and not h.endswith("]")}
        return cls(frozenset(exact | with_port), frozenset(set(extra) - with_port), False)

    def allows(self, host: str) -> bool:
        host = host.strip().lower()
        if self.any_host:
            return True
        if host in self.exact or host in self.names:
            return True
        name, _, port = host.rpartition(":")
        return bool(name) and port.isdigit() and not host.endswith("]") and name in self.names

    def allows_origin(self, origin: str, host: str) -> bool:
        try:
            parts = urlsplit(origin.strip())
        except ValueError:  # "http://[::1" and the like: no origin this server answers to
            return False
        if parts.scheme not in ("http", "https") or not parts.netloc or "@" in parts.netloc:
            return False
        netloc = parts.netloc.lower()
        if self.any_host:
            return netloc == host.strip().lower() or netloc in self.names
        return self.allows(netloc)


def _refusal(status: int, detail: str) -> JSONResponse:
    return JSONResponse({"detail": detail}, status_code=status)


def _has_body(headers: Headers) -> bool:
    # A chunked body whatever Content-Length says: the server reads it by its chunks (RFC 9112
    # 6.3), so "Content-Length: 0" beside it must not pass a body as none.
    if "transfer-encoding" in headers:
        return True
    length = headers.get("content-length")
    return length is not None and length.strip() != "0"


def takes_markdown(scope: Scope) -> bool:
    """Whether the request's body may be Markdown: a note's text, ``PUT /notes/{path}``."""
    path: str = scope["path"]
    return scope["method"] == "PUT" and path.startswith("/notes/")


def body_type_problem(headers: Headers, *, markdown: bool = True) -> str | None:
    """Why a body's declared type is refused, or None when it is JSON or (where ``markdown``)
    Markdown, in UTF-8."""
    declared = headers.get("content-type")
    if declared is None:
        return "the request has a body but no Content-Type"
    kind, _, params = declared.partition(";")
    if kind.strip().lower() not in BODY_TYPES:
        return f"Content-Type {kind.strip()[:80]!r} is not accepted"
    if kind.strip().lower() == "text/markdown" and not markdown:
        return "Content-Type 'text/markdown' is only for a note's body (PUT /notes/{path})"
    for param in params.split(";"):
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset" and value.strip().strip('"').lower() != "utf-8":
            return f"charset {value.strip()[:40]!r} is not accepted; send UTF-8"
    return None


class RequestGuard:
    """ASGI middleware: Host, Origin, the API key (on bodies, the docs, or with ``keyed`` on
    every request), then the body's type."""

    def __init__(
        self, app: ASGIApp, settings: Settings, *, docs: bool = True, keyed: bool = False
    ) -> None:
        self.app = app
        self.rule = HostRule.of(settings)
        self.key = settings.api_key
        self.docs_key = None if settings.api_is_loopback() else settings.api_key
        self.docs = docs
        self.keyed = keyed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def unframed(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in NO_FRAMING:
                    headers.setdefault(name, value)
            await send(message)

        if (refused := self.check(scope)) is not None:
            await refused(scope, receive, unframed)
            return
        await self.app(scope, receive, unframed)

    def check(self, scope: Scope) -> JSONResponse | None:
        headers = Headers(scope=scope)
        hosts = headers.getlist("host")
        if len(hosts) > 1:  # which one a proxy or a check would read is anyone's guess
            return _refusal(400, "the request carries more than one Host header")
        host = hosts[0] if hosts else ""
        if not self.rule.allows(host):
            return _refusal(
                421,
                f"this server does not answer to Host {host[:100]!r}; add the name to "
                "KNOTWORK_API_ALLOWED_HOSTS if it is yours",
            )
        origin = headers.get("origin")
        if origin is not None and not self.rule.allows_origin(origin, host):
            return _refusal(
                403,
                f"cross-site requests are refused (Origin {origin[:100]!r}); add the origin's "
                "host to KNOTWORK_API_ALLOWED_HOSTS if it is yours",
            )
        site = (headers.get("sec-fetch-site") or "").strip().lower()
        if site == "cross-site" or (site == "same-site" and origin is None):
            return _refusal(
                403,
                f"cross-site requests are refused (Sec-Fetch-Site {site!r}); open this "
                "server's own pages, or call it from a program rather than another site",
            )
        body = _has_body(headers)
        if self.keyed or body:
            needed = self.key
        else:
            needed = self.docs_key if self.docs and scope["path"] in DOC_PATHS else None
        if not key_matches(needed, headers.get("x-api-key")):
            return JSONResponse(
                {"detail": "missing or wrong X-API-Key header"},
                status_code=401,
                headers={"WWW-Authenticate": "APIKey"},
            )
        markdown = takes_markdown(scope)
        if body and (problem := body_type_problem(headers, markdown=markdown)) is not None:
            wanted = (
                "send text/markdown (the note's text) or application/json (the note as a JSON "
                "string)"
                if markdown
                else f"{scope['method']} {scope['path'][:100]} takes application/json"
            )
            return _refusal(415, f"{problem}; {wanted}")
        return None
