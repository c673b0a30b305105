"""The queries of mentions (ingest/mentions.py, and ingest/write.py writing a batch's): the
notes whose text names another note, and the mention facts deleted and written."""

from __future__ import annotations

from typing import Any, TypedDict

from knotwork.graph.queries import Query
from knotwork.graph.queries.writes import WrittenRow
from knotwork.models import StoredFact


class MentionsCandidatesRow(TypedDict):
    path: str
    chunks: list[dict[str, Any]]  # id, text, line_map, fence; in chunk order


class MentionsTextCandidatesRow(TypedDict):
    paths: list[str]


class MentionsDeleteRow(TypedDict):
    path: str
    facts: list[StoredFact]


MENTIONS_CANDIDATES = Query("mentions_candidates", MentionsCandidatesRow)
MENTIONS_TEXT_CANDIDATES = Query("mentions_text_candidates", MentionsTextCandidatesRow)
MENTIONS_DELETE = Query("mentions_delete", MentionsDeleteRow)
MENTIONS_WRITE = Query("mentions_write", WrittenRow)
