"""Where a result quotes the user's text of any length, it is cut.

A heading, a name or a fact's value past ``TEXT_CHARS`` characters is cut in the bodies of
``/query`` and ``/retrieve`` and in the MCP tools' results, as a snippet is (answer.respond's
``SNIPPET_CHARS``): the note's author sets their length, and a 56,000-character heading quoted
by every hit made a retrieval's body megabytes, past what an MCP client reads as one event.
Paths stay whole: a file system bounds them, and they are sent back to read the note.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # answering imports LlamaIndex; the schemas are needed before (tools/list)
    from knotwork.answer.respond import Answer

TEXT_CHARS = 300


def clipped(text: str, limit: int = TEXT_CHARS) -> str:
    """``text``, cut to ``limit`` characters ending in "…" when it is longer."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def answer_text(result: Answer) -> str | None:
    """The answer with each citation's marker naming its heading as ``citations`` does (cut),
    so a client still finds an entry's marker in it by exact text."""
    text = result.answer
    for cited in result.citations:
        if text is not None and len(cited.heading) > TEXT_CHARS:
            whole = f"[{cited.path}#{cited.heading}"
            text = text.replace(whole, f"[{cited.path}#{clipped(cited.heading)}")
    return text
