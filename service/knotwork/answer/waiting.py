"""How long the chat model's answer is waited for, and how a failed wait is told apart: the
answer's own time limit passing, the client's time-out, or a running server's HTTP error."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

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


def timed_out(exc: BaseException) -> bool:
    """A client's timeout, whichever client (httpx's ReadTimeout, openai's APITimeoutError)."""
    return isinstance(exc, TimeoutError) or any(
        "Timeout" in kind.__name__ for kind in type(exc).__mro__
    )
