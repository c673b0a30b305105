"""A loopback HTTP server that speaks enough of the OpenAI chat-completions API for the real
client, as llama.cpp's llama-server, vLLM and LM Studio do.

The second model-boundary fake, beside tests/fakes/ollama.py: LlamaIndex's ``OpenAILike``
(and the ``openai`` client beneath it) runs unchanged against it.

- ``GET /v1/models`` lists ``models``; ``POST /v1/chat/completions`` answers a listed model
  (404 otherwise, as vLLM does), in one JSON body or, with ``stream: true``, as Server-Sent
  Events ending with ``data: [DONE]``.
- Answers come from ``chat_answer``, the same as the fake Ollama's: ``chat_script`` (a callable
  taking the request body), else the smallest instance of the ``response_format`` schema, or
  ``"ok"``; a ``ChatRefusal`` it raises refuses the request with its status. ``structured_schema``
  reads the schema of either API's request.
- With ``api_key`` set, a request without ``Authorization: Bearer <api_key>`` gets 401.
- Every request is recorded in ``calls`` (with its Authorization header) to count model work.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import ThreadingHTTPServer
from typing import Any

from tests.fakes.http import JsonHandler, serve, shut
from tests.fakes.ollama import Call, ChatRefusal, ChatScript, chat_answer

MODELS = ("llama3.1:8b",)


@dataclass
class FakeOpenAILike:
    """State of the fake server; the handler reads it on every request."""

    models: list[str] = field(default_factory=lambda: list(MODELS))
    chat_script: ChatScript | None = None
    down: bool = False  # answer every request with HTTP 503
    api_key: str | None = None
    calls: list[Call] = field(default_factory=list)
    authorizations: list[str] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def base_url(self) -> str:
        """The API root a client is given, /v1 included."""
        assert self._server is not None, "server not started"
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def calls_to(self, path: str) -> list[Call]:
        return [c for c in self.calls if c.path == path]

    def reset(self) -> None:
        with self._lock:
            self.calls.clear()
            self.authorizations.clear()
        self.chat_script, self.down, self.api_key = None, False, None
        self.models = list(MODELS)

    def start(self) -> FakeOpenAILike:
        fake = self

        class Handler(_Handler):
            state = fake

        self._server = serve(Handler, "fake-openai")
        return self

    def stop(self) -> None:
        shut(self._server)


def _error(message: str, kind: str, code: int) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


class _Handler(JsonHandler):
    state: FakeOpenAILike

    def _record(self, body: dict[str, Any]) -> bool:
        authorization = self.headers.get("Authorization") or ""
        with self.state._lock:
            self.state.calls.append(Call(self.path, body))
            self.state.authorizations.append(authorization)
        if self.state.down:
            self._send(503, _error("fake server is down", "service_unavailable", 503))
            return False
        key = self.state.api_key
        if key is not None and authorization != f"Bearer {key}":
            self._send(401, _error("invalid api key", "authentication_error", 401))
            return False
        return True

    def do_GET(self) -> None:
        if not self._record({}):
            return
        if self.path == "/v1/models":
            models = [
                {"id": m, "object": "model", "created": 0, "owned_by": "fake"}
                for m in self.state.models
            ]
            self._send(200, {"object": "list", "data": models})
        else:
            self._send(404, _error(f"unknown path {self.path}", "not_found", 404))

    def do_POST(self) -> None:
        body = self._body()
        if not self._record(body):
            return
        if self.path != "/v1/chat/completions":
            self._send(404, _error(f"unknown path {self.path}", "not_found", 404))
            return
        model = str(body.get("model") or "")
        if model not in self.state.models:
            self._send(404, _error(f"The model `{model}` does not exist.", "NotFoundError", 404))
            return
        try:
            content = chat_answer(self.state.chat_script, body)
        except ChatRefusal as refusal:
            status = refusal.status
            self._send(status, _error(refusal.message, "invalid_request_error", status))
            return
        head = {"id": "chatcmpl-fake", "created": 0, "model": model}
        if not body.get("stream"):
            choice = {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
                "logprobs": None,
            }
            usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
            self._send(
                200, {**head, "object": "chat.completion", "choices": [choice], "usage": usage}
            )
            return
        pieces = [content[i : i + 16] for i in range(0, len(content), 16)] or [""]
        deltas: list[tuple[dict[str, Any], str | None]] = [
            ({"role": "assistant", "content": p}, None) for p in pieces
        ]
        deltas.append(({}, "stop"))
        events = [
            json.dumps(
                {
                    **head,
                    "object": "chat.completion.chunk",
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
                }
            )
            for delta, finish in deltas
        ]
        stream = "".join(f"data: {e}\n\n" for e in events) + "data: [DONE]\n\n"
        self._send(200, stream.encode(), "text/event-stream")
