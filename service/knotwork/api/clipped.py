"""Where a result quotes the user's text of any length, it is cut.

A heading, a name or a fact's value past ``TEXT_CHARS`` characters (``text.quoted``, the bound
of a snippet too) is cut in the bodies of ``/query`` and ``/retrieve`` and in the MCP tools'
results: the note's author sets their length. A heading keeps, at its end, a hash of the whole
heading, so two that start alike stay apart (their citations, their answer markers) and a client
finds the section: ``get_note`` cuts a chunk's heading path alike, and the note's own heading
hashes to it. Paths stay whole: a file system bounds them, and they are sent back to read the
note. The answer's citation markers are cut as the citations are (``api.cut_markers``).
"""

from __future__ import annotations

import hashlib

from knotwork.text.quoted import TEXT_CHARS, clipped

__all__ = ["HEADING_HASH", "clipped", "clipped_heading"]

HEADING_HASH = 12  # hex digits of the SHA-256 a cut heading ends in: 48 bits, no collision seen


def clipped_heading(heading: str) -> str:
    """``heading``, when longer than ``TEXT_CHARS``, cut to that many characters: its start,
    ``… sha256:`` and the first ``HEADING_HASH`` hex digits of the SHA-256 of the whole heading
    (UTF-8). Distinct headings stay distinct, as the citation markers built from them must."""
    if len(heading) <= TEXT_CHARS:
        return heading
    digest = hashlib.sha256(heading.encode("utf-8", "surrogatepass")).hexdigest()
    tail = f"… sha256:{digest[:HEADING_HASH]}"
    return heading[: TEXT_CHARS - len(tail)] + tail
