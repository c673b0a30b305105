"""Question → ranked evidence: vector and full-text retrievers in Cypher, fused by RRF.

This is the first retrieval path (no graph expansion yet): each retriever returns chunk ids
with scores; reciprocal-rank fusion merges them; every hit says which retrievers found it.
"""

from __future__ import annotations

import logging
import re
import time

from knotwork.core import Core
from knotwork.retrieve.types import Evidence, Hit

log = logging.getLogger(__name__)

RRF_K = 60  # the usual reciprocal-rank-fusion constant
_WORD = re.compile(r"\w+", re.UNICODE)


def lucene_query(question: str) -> str:
    """The question's words, OR-ed and escaped, so no user text is read as Lucene syntax."""
    words = _WORD.findall(question)[:64]
    # Quoted, so words such as AND, OR, NOT or TO are terms, never operators.
    return " OR ".join(f'"{w}"' for w in words)


async def retrieve(core: Core, vault: str, question: str, top_k: int = 8) -> Evidence:
    timings: dict[str, float] = {}
    warnings: list[str] = []
    ranked: dict[str, list[tuple[str, float]]] = {}
    candidates = max(4 * top_k, 20)
    start = time.perf_counter()
    try:
        vector = await core.embedder.aget_query_embedding(question)
        rows = await core.store.read(
            "search_vector", vault=vault, embedding=vector, k=candidates * 4
        )
        ranked["vector"] = [(r["id"], r["score"]) for r in rows[:candidates]]
    except Exception as exc:  # the embedding model may be down: full-text still answers
        warnings.append(f"vector retrieval skipped: {type(exc).__name__}: {exc}")
    timings["vector"] = (time.perf_counter() - start) * 1000
    start = time.perf_counter()
    query = lucene_query(question)
    if query:
        found_t = await core.store.read("search_fulltext", vault=vault, query=query, k=candidates)
        ranked["fulltext"] = [(r["id"], r["score"]) for r in found_t]
    timings["fulltext"] = (time.perf_counter() - start) * 1000
    fused: dict[str, float] = {}
    found: dict[str, dict[str, float]] = {}
    for name, ranking in ranked.items():
        for rank, (cid, score) in enumerate(ranking):
            fused[cid] = fused.get(cid, 0.0) + 1.0 / (RRF_K + rank + 1)
            found.setdefault(cid, {})[name] = score
    best = sorted(fused, key=lambda c: -fused[c])[:top_k]
    start = time.perf_counter()
    chunks = {r["id"]: r for r in await core.store.read("chunks_by_id", ids=best)}
    timings["load"] = (time.perf_counter() - start) * 1000
    hits = [
        Hit(
            id=c,
            path=chunks[c]["path"],
            title=chunks[c]["title"],
            heading=chunks[c]["heading_path"],
            line_start=chunks[c]["line_start"],
            line_end=chunks[c]["line_end"],
            text=chunks[c]["text"],
            score=fused[c],
            retrievers=found[c],
        )
        for c in best
        if c in chunks
    ]
    return Evidence(hits=hits, timings_ms=timings, warnings=warnings)
