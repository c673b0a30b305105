"""How much of a note's own text a result quotes where the note's author sets the length: a
snippet of a chunk (``answer.respond``), a heading, a name or a fact's value (``api.clipped``).
One bound for all of them: a 56,000-character heading quoted by every hit made a retrieval's
body megabytes, past what an MCP client reads as one event."""

from __future__ import annotations

TEXT_CHARS = 300


def clipped(text: str, limit: int = TEXT_CHARS) -> str:
    """``text``, cut to ``limit`` characters ending in "…" when it is longer."""
    return text if len(text) <= limit else text[: limit - 1] + "…"
