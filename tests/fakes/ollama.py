"""A loopback HTTP server that speaks enough of Ollama's API for the real clients.

The one fake the tests allow: it sits at the model boundary, so LlamaIndex's ``Ollama`` and
``OllamaEmbedding`` (and the ``ollama`` client beneath them) run unchanged against it.

- Embeddings come from a hashing scheme over words and character trigrams, L2-normalised, so
  texts that share words get similar vectors, and the same text always gets the same vector.
- Chat answers come from ``chat_script`` (a callable taking the request body), else a default:
  a minimal instance of a JSON-schema ``format``, ``{}`` for ``format: "json"``, or ``"ok"``
  (``chat_answer``, which tests/fakes/openai_like.py shares, so both fakes answer alike). A
  script that raises ``ChatRefusal`` has the request refused with its status, as a server
  refuses a prompt longer than the model's context (400); an ``embed_script`` alike.
- Every request is recorded in ``calls`` so tests can count model work.
- ``stream_gap_s`` sends a streamed chat's pieces that far apart, as a model writes them.
- ``drip`` names paths answered with HTTP 200, then a space (valid JSON padding) every
  ``DRIP_GAP_S`` for ``DRIP_FOR_S`` before the body: a server whose every byte comes within the
  client's read time-out, the call never ending.
- ``stream_stop`` ("stall", "drop") stops a streamed chat after its first piece: it sends
  nothing more until the client hangs up, or closes the connection mid-body.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import math
import re
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import ThreadingHTTPServer
from typing import Any

import numpy as np

from tests.fakes.http import JsonHandler, serve, shut

ChatScript = Callable[[dict[str, Any]], str]
DRIP_GAP_S, DRIP_FOR_S = 0.2, 20.0
STALL_FOR_S = 20.0

_TOKEN = re.compile(r"\w+", re.UNICODE)


@functools.lru_cache(maxsize=1 << 18)
def _slot(feature: str, dimension: int) -> tuple[int, float]:
    """Where a feature lands and with which sign; cached, as a vault repeats its words."""
    digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
    return int.from_bytes(digest[:4], "little") % dimension, 1.0 if digest[4] & 1 else -1.0


@functools.lru_cache(maxsize=1 << 18)
def _word(word: str, dimension: int) -> tuple[np.ndarray, np.ndarray]:
    """A word's features (itself, weight 1; its character trigrams, 0.5 each) as slots and
    signed weights."""
    padded = f"#{word}#"
    features = [(f"w:{word}", 1.0)]
    features += [(f"t:{padded[i : i + 3]}", 0.5) for i in range(len(padded) - 2)]
    slots = [_slot(feature, dimension) for feature, _ in features]
    return (
        np.array([index for index, _ in slots], dtype=np.intp),
        np.array([w * sign for (_, w), (_, sign) in zip(features, slots, strict=True)]),
    )


def hash_embedding(text: str, dimension: int) -> list[float]:
    """A deterministic bag-of-features vector: words weigh 1, character trigrams 0.5.

    Summed a word at a time with numpy, cheap enough that a benchmark's stand-in embedder
    costs little beside what it measures; every sum is a multiple of 0.5, so the order of the
    additions cannot change a bit of the result."""
    counts = Counter(w.lower() for w in _TOKEN.findall(text))
    if not counts:
        return [1.0] + [0.0] * (dimension - 1)
    parts = [(_word(w, dimension), n) for w, n in counts.items()]
    vec = np.bincount(
        np.concatenate([slots for (slots, _), _ in parts]),
        weights=np.concatenate([weights * n for (_, weights), n in parts]),
        minlength=dimension,
    )
    norm = math.sqrt(float(vec @ vec))
    if norm == 0.0:
        vec[0], norm = 1.0, 1.0
    return (vec / norm).tolist()  # type: ignore[no-any-return]


def schema_instance(schema: dict[str, Any]) -> Any:
    """The smallest value that satisfies a (simple) JSON schema."""
    kind = schema.get("type")
    if "enum" in schema:
        return schema["enum"][0]
    if kind == "object" or "properties" in schema:
        props = schema.get("properties", {})
        return {k: schema_instance(props[k]) for k in schema.get("required", []) if k in props}
    return {"array": [], "string": "", "integer": 0, "number": 0, "boolean": False}.get(str(kind))


def structured_schema(body: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON schema a chat request asks the answer to fit, in either API's field: Ollama's
    ``format``, or the OpenAI chat-completions ``response_format``; None for free text."""
    fmt = body.get("format")
    if isinstance(fmt, dict):
        return fmt
    response_format = body.get("response_format")
    if isinstance(response_format, dict) and response_format.get("type") == "json_schema":
        schema = response_format.get("json_schema", {}).get("schema")
        return schema if isinstance(schema, dict) else {}
    return None


class ChatRefusal(Exception):
    """Raised by a ``chat_script``: the server refuses the request with ``status``."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status, self.message = status, message


def chat_answer(script: ChatScript | None, body: dict[str, Any]) -> str:
    """The deterministic answer both fakes give: the script's, else the smallest instance of
    the requested schema, ``{}`` for a bare JSON mode, or ``"ok"``."""
    if script is not None:
        return script(body)
    schema = structured_schema(body)
    if schema is not None:
        return json.dumps(schema_instance(schema))
    wants_json = body.get("format") == "json" or (
        isinstance(body.get("response_format"), dict)
        and body["response_format"].get("type") == "json_object"
    )
    return "{}" if wants_json else "ok"


@dataclass
class Call:
    path: str
    body: dict[str, Any]


@dataclass
class FakeOllama:
    """State of the fake server; the handler reads it on every request."""

    models: dict[str, int] = field(
        default_factory=lambda: {"nomic-embed-text:latest": 768, "llama3.1:8b": 0}
    )
    chat_script: ChatScript | None = None
    # /api/embed's vectors from the texts and the model's dimension, instead of the hashing
    # embedder: a model (or a proxy) answering garbage.
    embed_script: Callable[[list[str], int], list[list[float]]] | None = None
    down: bool = False  # answer every request with HTTP 503
    thinking: int = 0  # streamed chats open with this many thinking chunks (no content)
    stream_gap_s: float = 0.0  # the pause between a streamed chat's pieces
    drip: frozenset[str] = frozenset()  # paths whose answer drips (see the module's doc)
    stream_stop: str = ""  # "stall" or "drop" a streamed chat after its first piece
    version: str = "0.12.3"
    calls: list[Call] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def base_url(self) -> str:
        assert self._server is not None, "server not started"
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def calls_to(self, path: str) -> list[Call]:
        return [c for c in self.calls if c.path == path]

    def embedded_texts(self) -> list[str]:
        texts: list[str] = []
        for call in self.calls_to("/api/embed"):
            value = call.body.get("input")
            texts += value if isinstance(value, list) else [value]
        return texts

    def reset(self) -> None:
        with self._lock:
            self.calls.clear()
        self.chat_script, self.embed_script, self.down, self.thinking = None, None, False, 0
        self.stream_gap_s, self.drip, self.stream_stop = 0.0, frozenset(), ""
        self.models = {"nomic-embed-text:latest": 768, "llama3.1:8b": 0}

    def resolve(self, name: str) -> str | None:
        full = name if ":" in name else f"{name}:latest"
        return full if full in self.models else None

    def start(self) -> FakeOllama:
        fake = self

        class Handler(_Handler):
            state = fake

        self._server = serve(Handler, "fake-ollama")
        return self

    def stop(self) -> None:
        shut(self._server)


class _Handler(JsonHandler):
    state: FakeOllama

    def _send(self, status: int, payload: Any, content_type: str = "application/json") -> None:
        if self.path not in self.state.drip:
            super()._send(status, payload, content_type)
            return
        body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            for _ in range(int(DRIP_FOR_S / DRIP_GAP_S)):
                self.wfile.write(b"1\r\n \r\n")
                self.wfile.flush()
                time.sleep(DRIP_GAP_S)
            self.wfile.write(f"{len(body):x}\r\n".encode() + body + b"\r\n0\r\n\r\n")
        except OSError:  # the client gave up, as it should
            self.close_connection = True

    def _record(self, body: dict[str, Any]) -> bool:
        with self.state._lock:
            self.state.calls.append(Call(self.path, body))
        if self.state.down:
            self._send(503, {"error": "fake ollama is down"})
            return False
        return True

    def do_GET(self) -> None:
        if not self._record({}):
            return
        if self.path == "/api/version":
            self._send(200, {"version": self.state.version})
        elif self.path == "/api/tags":
            now = datetime.now(UTC).isoformat()
            self._send(
                200,
                {
                    "models": [
                        {
                            "name": n,
                            "model": n,
                            "modified_at": now,
                            "size": 1,
                            "digest": hashlib.sha256(n.encode()).hexdigest(),
                            "details": {
                                "format": "gguf",
                                "family": "fake",
                                "parameter_size": "1B",
                                "quantization_level": "Q4_0",
                            },
                        }
                        for n in self.state.models
                    ]
                },
            )
        else:
            self._send(404, {"error": f"unknown path {self.path}"})

    def do_POST(self) -> None:
        body = self._body()
        if not self._record(body):
            return
        model = self.state.resolve(str(body.get("model") or body.get("name") or ""))
        if model is None and self.path in (
            "/api/show",
            "/api/embed",
            "/api/embeddings",
            "/api/chat",
        ):
            self._send(
                404, {"error": f'model "{body.get("model")}" not found, try pulling it first'}
            )
            return
        if self.path == "/api/show":
            self._send(
                200,
                {
                    "modelfile": "",
                    "parameters": "",
                    "template": "{{ .Prompt }}",
                    "details": {"format": "gguf", "family": "fake"},
                    "model_info": {"fake.context_length": 8192},
                    "capabilities": ["completion"],
                },
            )
        elif self.path in ("/api/embed", "/api/embeddings"):
            dim = self.state.models[str(model)] or 768
            if self.path == "/api/embeddings":
                self._send(200, {"embedding": hash_embedding(str(body.get("prompt", "")), dim)})
                return
            inputs = body.get("input", "")
            texts = inputs if isinstance(inputs, list) else [inputs]
            try:
                vectors = (
                    self.state.embed_script([str(t) for t in texts], dim)
                    if self.state.embed_script
                    else [hash_embedding(str(t), dim) for t in texts]
                )
            except ChatRefusal as refusal:  # a model that fails, as Ollama says it
                self._send(refusal.status, {"error": refusal.message})
                return
            self._send(
                200,
                {
                    "model": model,
                    "embeddings": vectors,
                    "total_duration": 1,
                    "load_duration": 0,
                    "prompt_eval_count": sum(len(str(t).split()) for t in texts),
                },
            )
        elif self.path == "/api/chat":
            self._chat(str(model), body)
        else:
            self._send(404, {"error": f"unknown path {self.path}"})

    def _chat(self, model: str, body: dict[str, Any]) -> None:
        try:
            content = chat_answer(self.state.chat_script, body)
        except ChatRefusal as refusal:  # as Ollama says it: {"error": ...}
            self._send(refusal.status, {"error": refusal.message})
            return
        now = datetime.now(UTC).isoformat()
        final = {
            "model": model,
            "created_at": now,
            "done": True,
            "done_reason": "stop",
            "total_duration": 1,
            "prompt_eval_count": 1,
            "eval_count": 1,
        }
        if not body.get("stream", True):
            self._send(200, {**final, "message": {"role": "assistant", "content": content}})
            return
        pieces = [content[i : i + 16] for i in range(0, len(content), 16)] or [""]
        lines = [
            json.dumps(
                {
                    "model": model,
                    "created_at": now,
                    "done": False,
                    "message": {"role": "assistant", "content": p},
                }
            )
            for p in pieces
        ]
        thought = {"role": "assistant", "content": "", "thinking": "Let me think. "}
        opening = {"model": model, "created_at": now, "done": False, "message": thought}
        lines[:0] = [json.dumps(opening)] * self.state.thinking
        lines.append(json.dumps({**final, "message": {"role": "assistant", "content": ""}}))
        whole = ("\n".join(lines) + "\n").encode()
        if self.state.stream_stop:
            self._stop_stream(whole, lines[0])
            return
        if not self.state.stream_gap_s:
            self._send(200, whole, "application/x-ndjson")
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Content-Length", str(len(whole)))
        self.end_headers()
        for line in lines:  # each piece as it is "written", the client reading as they come
            self.wfile.write(f"{line}\n".encode())
            self.wfile.flush()
            time.sleep(self.state.stream_gap_s)

    def _stop_stream(self, whole: bytes, first: str) -> None:
        """The stream's first piece, then nothing (``stall``) or a connection closed before
        the promised body's end (``drop``)."""
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Content-Length", str(len(whole)))
        self.end_headers()
        self.wfile.write(f"{first}\n".encode())
        self.wfile.flush()
        if self.state.stream_stop == "stall":
            time.sleep(STALL_FOR_S)
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)
