"""How long the chat model's answer is waited for, and how a failed wait is told apart: the
answer's own time limit passing, the client's time-out, or a running server's HTTP error."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TYPE_CHECKING, TypeVar

from knotwork.llm.bounded import said, timed_out
from knotwork.llm.providers import chat_server
from knotwork.plural import counted

if TYPE_CHECKING:
    from knotwork.settings import Settings

__all__ = ["Overdue", "by", "http_status", "stop_cut", "timed_out", "unanswered"]

T = TypeVar("T")


class Overdue(Exception):
    """KNOTWORK_ANSWER_TIMEOUT_S passed while the model was still answering."""


async def by(deadline: float, step: Awaitable[T]) -> T:
    """``step`` awaited until ``deadline`` (the event loop's clock). A time-out of the client's
    own (KNOTWORK_OLLAMA_TIMEOUT_S) is no Overdue: the model did not answer at all."""
    timer = asyncio.timeout_at(deadline)
    try:
        async with timer:
            return await step
    except TimeoutError as exc:
        if timer.expired():
            raise Overdue from exc
        raise


def http_status(exc: BaseException) -> int | None:
    """The HTTP error status a running server answered with (ollama's ResponseError, httpx's
    HTTPStatusError, openai's APIStatusError), None for a connection error or a time-out."""
    status = getattr(exc, "status_code", None)
    if status is None:
        status = getattr(getattr(exc, "response", None), "status_code", None)
    return status if isinstance(status, int) and status >= 400 else None


def stop_cut(size: int, exc: BaseException, limit_s: float) -> str | None:
    """The warning for an answer whose stream stopped after ``size`` characters (the client's
    time-out for its next words, or a connection dropped: httpx's transport errors, openai's
    APIConnectionError), None when nothing was written or the failure is no stop (an HTTP
    error status): the answer so far is kept only in the first case."""
    import httpx

    stop = (
        timed_out(exc)
        or isinstance(exc, OSError | httpx.TransportError)
        or any("Connection" in kind.__name__ for kind in type(exc).__mro__)
    )
    if not size or not stop:
        return None
    stopped = f"the model stopped after {counted(size, 'character')}"
    return f"{stopped} ({said(exc, limit_s)}); the answer so far is kept"


def unanswered(settings: Settings, exc: BaseException) -> str:
    """The warning for a chat model that gave no answer at all: the HTTP status a running server
    failed the request with, or that it did not answer and what to check."""
    why = said(exc, settings.ollama_timeout_s)
    model, server = settings.llm_model, chat_server(settings)
    status = None if timed_out(exc) else http_status(exc)
    # The server is up and said why it failed: "is it running?" would mislead. 502-504 are a
    # proxy's (or a busy server's) way of saying the model is not there: that hint holds.
    if status is not None and status not in (502, 503, 504):
        return (
            f"{server} failed on the request for the chat model {model!r} with HTTP status "
            f"{status} ({why}); here is the ranked evidence without an answer. The server's "
            "own log says more."
        )
    return (
        f"the chat model {model!r} did not answer ({why}); here is the ranked evidence without "
        f"an answer. Is {server} running, with the model available? `knotwork doctor` checks "
        "both."
    )
