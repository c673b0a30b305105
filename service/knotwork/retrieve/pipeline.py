"""retrieve(): run the retrievers, fuse them, rank over the graph, and explain every hit.

1. Seeds: vector and full-text chunks, notes the question names, dates it names.
2. Walks: from the seed notes along facts (``graph``), and in normal mode from the entities
   the model's keywords name, through similarity edges first (``synonym``).
3. Reciprocal-rank fusion of all of them, filters applied, then a personalized PageRank over
   the subgraph the walks saw, restarting at the fused hits and the notes the question names
   (HippoRAG's multi-hop ranker); its order joins the fusion as a weighted ranking.

The graph's say (the walk's and PageRank's weight) follows the specificity of what the question
names: a rare name leads the graph, a name most notes write out ("api") is not followed, and a
question naming nothing leaves the graph a tie-breaker among text matches.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import replace
from typing import Any

from knotwork.core import Core
from knotwork.retrieve import cached, relevance, search
from knotwork.retrieve import keywords as kw
from knotwork.retrieve.graphrank import entity_seeds, walk_ranking
from knotwork.retrieve.graphrank import pagerank as graph_pagerank
from knotwork.retrieve.rank import RRF_K, rrf
from knotwork.retrieve.steps import Clock, nothing, together
from knotwork.retrieve.types import RETRIEVERS, Evidence, FactRow, Filters, Hit, HopPath, Mode
from knotwork.retrieve.walk import Walk

log = logging.getLogger(__name__)
WALK_SEEDS = 5  # top fused chunks whose notes seed the graph walk
MAX_FACTS = 50
# What the question names outweighs what merely resembles it: a named note, and the walk from
# named notes, count this many times their name's specificity in the fusion.
NAMED_FUSION_WEIGHT = 2.0
MIN_SPECIFICITY = 0.5  # below this a name is generic: not taken as named, its mentions not walked
# Lacking named notes, the walk starts at the best hits' notes. Where it leads is a guess (a
# page's neighbours are rarely what a question about that page asks), so it counts a quarter.
HITS_WALK_WEIGHT = 0.25
NAMED_CHUNKS = 2  # chunks of each named note taken as evidence (search reads more to pick from)
NAMED_FOUND = 4  # … or up to this many of those full text found for the question


async def retrieve(
    core: Core,
    vault: str,
    question: str,
    top_k: int = 8,
    *,
    mode: Mode = "retrieve",
    filters: Filters | None = None,
    use: frozenset[str] | None = None,
    ppr: bool | None = None,
) -> Evidence:
    """Ranked evidence for a question. ``use`` picks retrievers (ablations); ``ppr`` the ranker.

    Only ``mode="normal"`` calls the chat model (for keywords); no mode writes anything.
    Independent steps run at once: the model's keywords from the start, then the question's
    embedding beside full-text, dates and the vault's size, then the searches that need the
    embedding beside the synonym walk, then the graph walk (which starts from their hits).
    """
    store, settings = core.store, core.settings
    use = frozenset(RETRIEVERS) if use is None else use
    ppr = settings.ppr if ppr is None else ppr
    filters = filters or Filters()
    fparams = filters.params()
    extractors: list[str] | None = fparams["extractors"]  # type: ignore[assignment]
    narrowing = any(fparams[k] for k in ("folder", "tags", "date_from", "date_to"))
    k = max(4 * top_k, 20) * (5 if narrowing else 1)
    clock, warnings = Clock(), list[str]()
    synonym_task: asyncio.Task[Any] | None = None
    keyword_task = (
        asyncio.create_task(clock.timed("keywords", kw.propose(core.llm, question)))
        if mode == "normal" and "synonym" in use
        else None
    )
    try:

        async def embed() -> list[float] | None:
            if not use & {"vector", "graph", "synonym"}:
                return None
            # Built on first use: a ConfigError building it is a setting to fix, not a model down.
            embedder = core.embedder
            try:
                return list(await embedder.aget_query_embedding(question))
            except Exception as exc:  # the embedding model may be down: the rest still answers
                warnings.append(f"vector retrieval skipped: {type(exc).__name__}: {exc}")
                return None

        # A name most of the vault writes out ("api", "models") says little about what a question
        # or a passage is about: such notes are not taken as named, and mentions of them are not
        # walked. Specificity is measured against the vault's size.
        qvec, fulltext, notes, dated = await together(
            clock.timed("embed", embed()),
            clock.timed("fulltext", search.fulltext(store, vault, question, k))
            if "fulltext" in use
            else nothing(),
            cached.vault_notes(store, vault, core.memo, core.vault_sizes)
            if use & {"names", "graph", "synonym"}
            else nothing(),
            clock.timed("temporal", search.temporal(store, vault, question, k))
            if "temporal" in use
            else nothing(),
        )
        notes, gen = notes or (0, None)
        kept = (vault, gen)  # walks are kept under the vault's generation
        generic = search.max_mentioned_by(notes, MIN_SPECIFICITY)

        async def synonym_walk() -> tuple[Walk, list[tuple[str, float]], dict[str, HopPath]] | None:
            if "synonym" not in use:
                return None
            keywords: list[str] = []
            if keyword_task is not None:
                keywords, problem = await keyword_task
                if problem:
                    warnings.append(problem)
            entities = await entity_seeds(core, vault, question, keywords)
            if not entities:
                return None
            depth = min(settings.graph_depth + 1, 3)
            synonym = await cached.walk_once(
                store,
                core.memo,
                kept,
                entities,
                depth,
                extractors,
                similar_first=True,
                max_mentioned_by=generic,
            )
            paths: dict[str, HopPath] = {}
            return synonym, await walk_ranking(core, vault, synonym, qvec, paths), paths

        # The synonym walk needs nothing of the searches below: it starts now.
        synonym_task = asyncio.create_task(clock.timed("synonym", synonym_walk()))
        vector, found_named = await together(
            clock.timed("vector", search.vector(store, vault, qvec, k))
            if "vector" in use and qvec is not None
            else nothing(),
            clock.timed("names", search.named_notes(store, vault, question, notes, qvec))
            if use & {"names", "graph"}
            else nothing(),
        )
        named: list[search.NamedNote] = sorted(
            (n for n in found_named or [] if n.specificity >= MIN_SPECIFICITY),
            key=lambda n: -n.specificity,
        )
        rankings: dict[str, list[tuple[str, float]]] = {}
        if vector is not None:
            rankings["vector"] = vector
        if fulltext is not None:
            rankings["fulltext"] = fulltext
        named = _text_first(named, rankings)
        if "names" in use and named:
            rankings["names"] = [
                (cid, note.specificity / (1 + i))
                for i, note in enumerate(named)
                for cid in note.chunk_ids
            ]
        if dated is not None:
            rankings["temporal"] = dated

        async def graph_walk() -> tuple[Walk, list[tuple[str, float]], dict[str, HopPath]] | None:
            if "graph" not in use:
                return None
            # The walk starts at the notes the question names; lacking any, at the best hits' notes.
            seeds = {n.node: f"note:{n.path}" for n in named}
            top = [c for n in named for c in n.chunk_ids]
            if not seeds:
                fused, _ = rrf(rankings)
                top = sorted(fused, key=lambda c: -fused[c])[:WALK_SEEDS]
                for row in await store.read("chunk_notes", ids=top):
                    seeds.setdefault(row["note"], f"note:{row['path']}")
            graph = await cached.walk_once(
                store,
                core.memo,
                kept,
                seeds,
                settings.graph_depth,
                extractors,
                max_mentioned_by=generic,
            )
            paths: dict[str, HopPath] = {}
            reached = await walk_ranking(core, vault, graph, qvec, paths)
            # The walk's ranking opens with where it started (hop 0), then what it reached: a
            # walk that only ranked the neighbours would vote them above its own seeds, and one
            # extra vote in the fusion outweighs many places in a text ranking.
            started = dict.fromkeys(top, 1.0)
            reached = list(started.items()) + [r for r in reached if r[0] not in started]
            return graph, reached, paths

        walked = await together(clock.timed("graph", graph_walk()), synonym_task)
        walks: list[Walk] = []
        paths: dict[str, HopPath] = {}
        for name, result in zip(("graph", "synonym"), walked, strict=True):
            if result is not None:
                walks.append(result[0])
                rankings[name] = result[1]
                for chunk_id, path in result[2].items():  # the graph walk's path first
                    paths.setdefault(chunk_id, path)
        keywords = (
            keyword_task.result()[0] if keyword_task is not None and keyword_task.done() else []
        )

        start = time.perf_counter()
        named_weight = NAMED_FUSION_WEIGHT * max((n.specificity for n in named), default=0.0)
        weights = {"names": named_weight, "graph": max(named_weight, HITS_WALK_WEIGHT)}
        fused, found = rrf(rankings, weights)
        pool = sorted(fused, key=lambda c: -fused[c])[: max(3 * k, 60)]
        rows = {
            r["id"]: r
            for r in await store.read(
                "filter_chunks", ids=pool, vault=vault, **_note_filters(fparams)
            )
        }
        pool = [c for c in pool if c in rows]
        scores = {c: fused[c] for c in pool}
        if ppr and pool:
            # PageRank's order joins the fusion as one more ranking, weighted as the walk is (its
            # say grows with what the question names): it lifts the chunks the graph ties to the
            # question without burying an exact text match.
            placed = {c: rows[c]["note"] for c in pool}
            pagerank = graph_pagerank(core, placed, fused, named, walks)
            for rank, c in enumerate(sorted(pool, key=lambda c: (-pagerank[c], -fused[c], c))):
                scores[c] += weights["graph"] / (RRF_K + rank + 1)
                found[c]["ppr"] = pagerank[c]
        best = sorted(pool, key=lambda c: (-scores[c], -fused[c], c))[:top_k]
        clock.lap("rank", start)

        hits = [_hit(rows[c], scores[c], found[c]) for c in best]
        facts = await _facts(core, best, extractors)
        floor = await relevance.floor(
            store, vault, core.settings.embed_model, core.relevance_floors
        )
        score = relevance.relevance(question, hits, floor, core.settings.min_relevance)
        return Evidence(
            hits=hits,
            timings_ms=clock.timings,
            warnings=warnings,
            facts=facts,
            paths=[paths[c] for c in best if c in paths],
            keywords=keywords,
            relevance=score,
        )
    finally:
        for task in (keyword_task, synonym_task):
            if task is not None and not task.done():
                task.cancel()


def _text_first(
    named: list[search.NamedNote], rankings: dict[str, list[tuple[str, float]]]
) -> list[search.NamedNote]:
    """Each named note's chunks that full-text search found, best first, before the rest
    (nearest the question): ``NAMED_CHUNKS`` of them, or up to ``NAMED_FOUND`` found ones.

    Which part of a named note a question asks about is told by its words beyond the name:
    every chunk of the note embeds the note's title, so their cosines differ little, while
    full text scores the rarer words the question adds ("edge-triggered" in a flip-flop note).
    """
    text = {c: -i for i, (c, _) in enumerate(rankings.get("fulltext", []))}
    out = []
    for note in named:
        found = sorted((c for c in note.chunk_ids if c in text), key=lambda c: -text[c])
        rest = [c for c in note.chunk_ids if c not in text]
        keep = max(NAMED_CHUNKS, min(len(found), NAMED_FOUND))
        out.append(replace(note, chunk_ids=tuple((found + rest)[:keep])))
    return out


def _note_filters(params: dict[str, object]) -> dict[str, object]:
    return {k: params[k] for k in ("folder", "tags", "date_from", "date_to")}


def _hit(row: dict[str, Any], score: float, retrievers: dict[str, float]) -> Hit:
    return Hit(
        id=row["id"],
        path=row["path"],
        title=row["title"],
        heading=row["heading_path"],
        line_start=row["line_start"],
        line_end=row["line_end"],
        text=row["text"],
        score=score,
        retrievers=retrievers,
    )


async def _facts(core: Core, ids: list[str], extractors: list[str] | None) -> list[FactRow]:
    if not ids:
        return []
    rows = await core.store.read("facts_of_chunks", ids=ids, extractors=extractors, limit=MAX_FACTS)
    return [FactRow.from_row(r) for r in rows]
