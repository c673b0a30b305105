"""The API's listening sockets, bound before the server starts, and uvicorn run on them.

uvicorn binds its port only after the app's lifespan has run: a port another program holds
was logged as "ready" and "Application startup complete", then uvicorn's bind error and its
exit code 3, which the CLI documents as "nothing found". Bound first, a port in use is one
``error:`` line naming ``KNOTWORK_API_PORT`` (or ``mcp``'s ``--port``, which overrides it) and
exit 2 (a setting to fix), before anything starts; the sockets are then the ones the server
listens on, so no other program can take the port in between. Any other startup failure of
uvicorn is a ``KnotworkError`` (exit 1).
"""

from __future__ import annotations

import errno
import logging
import socket
from dataclasses import dataclass
from typing import TYPE_CHECKING

from knotwork.errors import ConfigError, KnotworkError

if TYPE_CHECKING:
    from starlette.types import ASGIApp

log = logging.getLogger(__name__)


def _address(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


@dataclass(frozen=True)
class Named:
    """What the user gave the host and port as, for the error that says what to change:
    the settings (``serve``), or ``mcp --transport http``'s --host and --port, which override
    them (a busy ``--port`` fixed by setting KNOTWORK_API_PORT would stay busy)."""

    host: str = "KNOTWORK_API_HOST"
    port: str = "KNOTWORK_API_PORT"


SETTINGS = Named()


def _said(name: str, value: object) -> str:
    """``KNOTWORK_API_HOST=x`` for a setting, ``--host x`` for an option."""
    return f"{name} {value}" if name.startswith("--") else f"{name}={value}"


def _set(name: str, value: str) -> str:
    """The fix: ``set KNOTWORK_API_PORT to <value>``, or ``give --port <value>``."""
    return f"give {name} {value}" if name.startswith("--") else f"set {name} to {value}"


def _refusal(exc: OSError, host: str, port: int, named: Named) -> ConfigError:
    """What a failed bind means for the settings, and what to change."""
    if exc.errno == errno.EADDRINUSE:
        return ConfigError(
            f"{named.port} {port} is in use on {host or 'every interface'} (another "
            "`knotwork serve`, or another program, listens there); stop it, or "
            f"{_set(named.port, 'a free port')}"
        )
    if exc.errno == errno.EACCES:
        return ConfigError(
            f"{named.port} {port} needs privileges this user lacks (ports below 1024 "
            f"do); {_set(named.port, 'a port from 1024 up')}"
        )
    if exc.errno == errno.EADDRNOTAVAIL:
        return ConfigError(
            f"{_said(named.host, host)} is not an address of this machine; "
            f"{_set(named.host, 'one of its addresses')} (127.0.0.1 keeps the API on this "
            "machine)"
        )
    return ConfigError(
        f"cannot listen on {_address(host, port)} ({exc.strerror or exc}); check "
        f"{named.host} and {named.port}"
    )


def bind_listeners(host: str, port: int, named: Named = SETTINGS) -> list[socket.socket]:
    """Bind ``host:port`` as asyncio's ``create_server`` would (every address the name gives,
    SO_REUSEADDR, IPv6 only on IPv6 sockets); ConfigError saying what to change (as
    ``named``) if it cannot."""
    try:
        infos = socket.getaddrinfo(
            host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )
    except socket.gaierror as exc:
        raise ConfigError(
            f"{_said(named.host, host)} does not resolve ({exc.strerror}); "
            f"{_set(named.host, 'an address of this machine')} (127.0.0.1 keeps the API on "
            "this machine)"
        ) from exc
    sockets: list[socket.socket] = []
    try:
        for family, kind, proto, _, address in dict.fromkeys(infos):
            sock = socket.socket(family, kind, proto)
            sockets.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind(address)
    except OSError as exc:
        for sock in sockets:
            sock.close()
        raise _refusal(exc, host, port, named) from exc
    return sockets


def serve_on(app: ASGIApp, host: str, port: int, sockets: list[socket.socket]) -> None:
    """Run uvicorn on the bound ``sockets`` until it is stopped; a start that fails after
    them (the app's lifespan) is a KnotworkError, not uvicorn's bare exit 3."""
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_config=None))
    # uvicorn logs no address for sockets it is given: said here, as it would have.
    log.info("serving on http://%s (Ctrl+C stops it)", _address(host or "0.0.0.0", port))  # noqa: S104
    try:
        server.run(sockets=sockets)
    except SystemExit:  # uvicorn's sys.exit when its startup fails: said below
        if server.started:
            raise
    finally:
        for sock in sockets:
            sock.close()
    if not server.started:
        raise KnotworkError(
            f"the HTTP API did not start on {_address(host, port)}; the log above says why"
        )
