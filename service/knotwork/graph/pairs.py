"""The pairs of Lao, Khmer and Myanmar runs given to the chunks of a graph written before
chunks kept them.

A chunk holding these scripts keeps the overlapping pairs of their grapheme clusters in
``Chunk.pairs`` (text/pairs.py), which the ``chunk_pairs`` index searches. An earlier version
wrote none, and a chunk whose text is unchanged is not written again by a sync, so applying
the schema to a graph of an older schema version (``schema.ensure_ready``), or re-embedding it
(``schema.reembed``), gives them theirs, once: one pass over the chunks by id, in which Neo4j
picks the few holding these scripts and Python pairs them.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from knotwork.graph.queries.admin import CHUNK_PAIRS_SET, CHUNKS_UNPAIRED
from knotwork.graph.store import GraphStore
from knotwork.text.pairs import SCRIPTS, chunk_pairs

log = logging.getLogger(__name__)

PAIRED_SINCE = 3  # the schema version (graph/schema.py) of graphs whose chunks keep their pairs
PAGE = 1000  # chunks paired per transaction
# A text holding any character of the three scripts, matched whole as Cypher's =~ matches.
PATTERN = f"(?s).*{SCRIPTS}.*"


def predates(manifest: Mapping[str, Any] | None) -> bool:
    """Whether a graph with this manifest may hold chunks without their pairs (None: no
    manifest yet, so no chunk either, and the pass costs one empty query)."""
    return manifest is None or int(manifest.get("schema_version") or 0) < PAIRED_SINCE


async def backfill(store: GraphStore) -> int:
    """Give every chunk that holds these scripts and no pairs its pairs, a page per
    transaction; how many were given."""
    after, given = "", 0
    while page := await store.read(CHUNKS_UNPAIRED, after=after, pattern=PATTERN, limit=PAGE):
        rows = [{**r, "pairs": p} for r in page if (p := chunk_pairs(r["text"]))]
        if rows:
            [row] = await store.write(CHUNK_PAIRS_SET, rows=rows)
            given += row["updated"]
        after = page[-1]["id"]
    if given:
        log.info("chunks holding Lao, Khmer or Myanmar given the pairs of their runs: %d", given)
    return given
