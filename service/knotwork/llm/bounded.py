"""A model call bounded as a whole, and a failed one said as the user acts on it.

The HTTP clients' time-out (``KNOTWORK_OLLAMA_TIMEOUT_S``, given to each client) bounds each wait
for bytes, not the call: a server that answers 200, then a space every few seconds (valid JSON
padding), would hold an extraction, an embedding or a question for ever. ``bounded`` cuts the
call itself at that time-out. The awaiting side moves on when it passes whatever the client
runs: asyncio code is cancelled (its connection closed), work in a thread is left to finish
and its result dropped.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

from knotwork.redact import described, redact

T = TypeVar("T")
SETTING = "KNOTWORK_OLLAMA_TIMEOUT_S"
MARGIN_S = 0.5


class NoReply(TimeoutError):
    """A model call that had not finished when its client's time-out passed."""


def timed_out(exc: BaseException) -> bool:
    """A client's timeout, whichever client (httpx's ReadTimeout, openai's APITimeoutError)."""
    return isinstance(exc, TimeoutError) or any(
        "Timeout" in kind.__name__ for kind in type(exc).__mro__
    )


def limit_of(client: object) -> float | None:
    """The per-call time-out a model client was built with (Ollama's ``request_timeout``, the
    OpenAI-compatible client's ``timeout``, Ollama's embedder's HTTP client's), None for a
    client without a server (the in-process embedder)."""
    for name in ("request_timeout", "timeout"):
        value = getattr(client, name, None)
        if isinstance(value, int | float) and value > 0:
            return float(value)
    # OllamaEmbedding keeps it only in the ollama client it wraps (an httpx.Timeout).
    http = getattr(getattr(client, "_async_client", None), "_client", None)
    read = getattr(getattr(http, "timeout", None), "read", None)
    return float(read) if isinstance(read, int | float) and read > 0 else None


def no_reply(limit_s: float) -> str:
    return f"no reply within {limit_s:g} s ({SETTING})"


async def bounded(client: object, call: Awaitable[T], calls: int = 1) -> T:
    """``call`` awaited for at most ``calls`` times the client's time-out (a batch of texts
    the client sends as several requests); NoReply past it."""
    limit = limit_of(client)
    if limit is None:
        return await call
    # A moment past the client's own time-out: a server that sends nothing is the client's
    # to report (ReadTimeout), this bound is for one whose bytes never stop coming.
    timer = asyncio.timeout(limit * max(calls, 1) + MARGIN_S)
    try:
        async with timer:
            return await call
    except TimeoutError as exc:
        if timer.expired():
            raise NoReply(no_reply(limit)) from exc
        raise


def said(exc: BaseException, limit_s: float | None) -> str:
    """``exc`` as messages show it; a time-out names its bound and setting, as an HTTP
    client's often says nothing more ("ReadTimeout: ")."""
    why = described(exc, 300)
    if limit_s is None or not timed_out(exc) or isinstance(exc, NoReply):
        return why
    limit = no_reply(limit_s)
    return f"{why}; {limit}" if str(exc).strip() else f"{type(exc).__name__}: {limit}"


def server_of(client: object) -> str:
    """Where a client's model answers: ``Ollama at URL``, the OpenAI-compatible server's URL,
    or "in process"; credentials masked."""
    api_base = getattr(client, "api_base", None)
    if isinstance(api_base, str):
        return f"the OpenAI-compatible server at {redact(api_base)}"
    base_url = getattr(client, "base_url", None)
    return f"Ollama at {redact(base_url)}" if isinstance(base_url, str) else "in process"


def failed(role: str, client: object, exc: BaseException) -> str:
    """A failed call of a ``role`` ("chat", "embedding") model, as warnings say it: why (a
    time-out with its bound and setting), the model and where it answers."""
    model = getattr(client, "model", None) or getattr(client, "model_name", None) or "?"
    why = said(exc, limit_of(client))
    return f"{why} (the {role} model {str(model)!r}, {server_of(client)})"
