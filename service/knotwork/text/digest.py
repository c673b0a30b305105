"""The SHA-256 a text is known by, in one place: a note's ``content_hash`` (what ingest stores,
what a sync compares with the file) and a chunk's hashes must agree wherever they are computed,
or a note would be taken for changed at every sync."""

from __future__ import annotations

import hashlib


def text_hash(text: str) -> str:
    """SHA-256 hex of ``text`` as UTF-8 (a lone surrogate kept, not refused)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
