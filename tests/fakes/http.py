"""What both loopback model fakes share: a JSON request handler and a server on a free port."""

from __future__ import annotations

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class JsonHandler(BaseHTTPRequestHandler):
    """Reads JSON bodies and sends JSON (or bytes) with a length, keeping connections alive."""

    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes: with Nagle's algorithm the body waits for the
    # client's delayed ACK of the headers (40 ms on Linux). Ollama's server sends at once.
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, status: int, payload: Any, content_type: str = "application/json") -> None:
        body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _body(self) -> dict[str, Any]:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b"{}"
        return json.loads(raw or b"{}")


class QuietServer(ThreadingHTTPServer):
    """A threading server that lets a client hang up without a printed traceback.

    Tests of timeouts hang up on purpose. Printing that traceback is not only noise: on
    CPython 3.11, formatting a traceback parses source with ``ast``, whose shared recursion
    counter then races the main thread's own ``ast.parse`` (gh-106905, "AST constructor
    recursion depth mismatch")."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):  # BrokenPipe, ConnectionReset, …
            return
        super().handle_error(request, client_address)


def serve(handler: type[BaseHTTPRequestHandler], name: str) -> ThreadingHTTPServer:
    """``handler`` served on 127.0.0.1 at a free port, in a daemon thread."""
    server = QuietServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True, name=name).start()
    return server


def shut(server: ThreadingHTTPServer | None) -> None:
    if server is not None:
        server.shutdown()
        server.server_close()
