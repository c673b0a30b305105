"""The MCP server over streamable HTTP at ``/mcp``, under the REST API's rules."""

from __future__ import annotations

from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import ASGIApp

from knotwork.api.guard import RequestGuard
from knotwork.mcp.server import create_mcp_server
from knotwork.settings import Settings


def http_app(settings: Settings, *, allow_writes: bool = False) -> ASGIApp:
    """The streamable-HTTP app at ``/mcp``: beyond loopback only with an API key (ConfigError
    otherwise), the key then required on every request, Host and Origin checked by the same
    allow-list (``knotwork.api.guard``), and bodies bounded and checked as REST's
    (``knotwork.api.body``)."""
    from knotwork.api.body import BodyScreen, body_limit  # fastapi: only for the HTTP transport
    from knotwork.api.send_timeout import SendTimeout

    settings.check_api_exposure()
    # The SDK's own Host check knows only loopback names at any port; ours replaces it.
    unchecked = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    server = create_mcp_server(settings, allow_writes=allow_writes)
    # The SDK's own body cap (4 MiB) would refuse what BodyScreen lets through (a large note's
    # upsert_note) with a bare 413: it gets BodyScreen's limit, which then speaks first.
    limit, _ = body_limit(settings, notes_in_json=allow_writes)
    app: ASGIApp = server.streamable_http_app(
        host=settings.api_host, transport_security=unchecked, max_request_body_size=limit
    )
    # Bodies bounded and well-formed as REST's are (a write carries a whole note), refused
    # as JSON-RPC errors.
    app = BodyScreen(app, settings, notes_in_json=allow_writes, jsonrpc=True)
    app = RequestGuard(app, settings, docs=False, keyed=True)
    # Outermost: a client that stops reading its replies is cut off (api/send_timeout.py).
    return SendTimeout(app, settings.api_send_timeout_s)
