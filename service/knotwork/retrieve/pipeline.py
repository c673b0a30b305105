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

import logging
import time
from dataclasses import replace
from typing import Any

from knotwork.core import Core
from knotwork.retrieve import cached, relevance, search
from knotwork.retrieve import keywords as kw
from knotwork.retrieve.graphrank import entity_seeds, walk_ranking
from knotwork.retrieve.graphrank import pagerank as graph_pagerank
from knotwork.retrieve.rank import RRF_K, graph_weights, rrf
from knotwork.retrieve.steps import Clock, Steps
from knotwork.retrieve.types import RETRIEVERS, Evidence, FactRow, Filters, Hit, HopPath, Mode
from knotwork.retrieve.walk import Walk

log = logging.getLogger(__name__)
Rankings = dict[str, list[tuple[str, float]]]
WalkResult = tuple[Walk, list[tuple[str, float]], dict[str, HopPath]]
SEED_ORDER = ("vector", "fulltext", "names", "temporal")  # as the fusion has always read them
WALK_SEEDS = 5  # top fused chunks whose notes seed the graph walk
MAX_FACTS = 50
# What the question names outweighs what merely resembles it: a named note, and the walk from
# named notes, count this many times their name's specificity in the fusion.
NAMED_FUSION_WEIGHT = 2.0
MIN_SPECIFICITY = 0.5  # below this a name is generic: not taken as named, its mentions not walked
# Lacking named notes, the walk starts at the best hits' notes: where it leads is a guess, so
# it has no vote in the fusion (rank.graph_weights); it still explains the hits it reaches and
# gives PageRank its edges.
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
    Every step starts at once and awaits only its inputs: the model's keywords, the question's
    embedding, the vault's view (size, languages), dates and the synonym walk from the start;
    vector and names on the embedding, full text on the view; the graph walk on the named
    notes, or on all the seed rankings when no note is named.
    """
    store, settings = core.store, core.settings
    use = frozenset(RETRIEVERS) if use is None else use
    ppr = settings.ppr if ppr is None else ppr
    filters = filters or Filters()
    fparams = filters.params()
    extractors: list[str] | None = fparams["extractors"]  # type: ignore[assignment]
    narrowing = any(fparams[k] for k in ("folder", "tags", "date_from", "date_to"))
    k = max(4 * top_k, 20) * (5 if narrowing else 1)
    clock, warnings, steps = Clock(), list[str](), Steps()
    try:
        keyword_task = (
            steps.start(clock.timed("keywords", kw.propose(core.llm, question)))
            if mode == "normal" and "synonym" in use
            else None
        )
        # The vault's size and languages, kept under its generation (cached.py); the gate's
        # floor, kept a while (relevance.py). Neither depends on the question.
        view_task = steps.start(cached.vault_view(store, vault, core.memo, core.vault_sizes))
        floor_task = steps.start(
            relevance.floor(store, vault, settings.embed_model, core.relevance_floors)
        )

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

        embed_task = steps.start(clock.timed("embed", embed()))

        async def fulltext_search() -> list[tuple[str, float]]:
            languages = (await view_task).languages  # only the indexes of the vault's languages
            return await clock.timed(
                "fulltext", search.fulltext(store, vault, question, k, languages)
            )

        async def vector_search() -> list[tuple[str, float]] | None:
            qvec = await embed_task
            if qvec is None:
                return None
            return await clock.timed("vector", search.vector(store, vault, qvec, k))

        async def names_search() -> list[search.NamedNote]:
            qvec, view = await embed_task, await view_task
            found = await clock.timed(
                "names", search.named_notes(store, vault, question, view.notes, qvec)
            )
            return sorted(
                (n for n in found if n.specificity >= MIN_SPECIFICITY), key=lambda n: -n.specificity
            )

        async def temporal_search() -> list[tuple[str, float]] | None:
            return await clock.timed("temporal", search.temporal(store, vault, question, k))

        async def synonym_walk() -> WalkResult | None:
            start = time.perf_counter()
            keywords: list[str] = []
            if keyword_task is not None:
                keywords, problem = await keyword_task
                if problem:
                    warnings.append(problem)
            entities = await entity_seeds(core, vault, question, keywords)
            if not entities:
                clock.lap("synonym", start)
                return None
            view, qvec = await view_task, await embed_task
            synonym, scores = await cached.walk_once(
                store,
                core.memo,
                (vault, view.generation),
                entities,
                min(settings.graph_depth + 1, 3),
                extractors,
                similar_first=True,
                max_mentioned_by=_generic(view),
                embedding=qvec,
            )
            paths: dict[str, HopPath] = {}
            ranking = await walk_ranking(core, vault, synonym, qvec, paths, scores)
            clock.lap("synonym", start)
            return synonym, ranking, paths

        # Each step starts at once and waits only for what it needs: the searches for the
        # question's embedding or the vault's view, the synonym walk for nothing but them.
        names_task = steps.start(names_search()) if use & {"names", "graph"} else None
        seed_tasks = {
            name: steps.start(work())
            for name, work, wanted in (
                ("vector", vector_search, "vector" in use),
                ("fulltext", fulltext_search, "fulltext" in use),
                ("temporal", temporal_search, "temporal" in use),
            )
            if wanted
        }
        synonym_task = steps.start(synonym_walk()) if "synonym" in use else None

        async def seed_rankings() -> tuple[list[search.NamedNote], Rankings]:
            """The notes the question names, and the seed retrievers' rankings."""
            named = await names_task if names_task is not None else []
            rankings: Rankings = {}
            for name, seeded in seed_tasks.items():
                if (found := await seeded) is not None:
                    rankings[name] = found
            named = _text_first(named, rankings)
            if "names" in use and named:
                rankings["names"] = [
                    (cid, note.specificity / (1 + i))
                    for i, note in enumerate(named)
                    for cid in note.chunk_ids
                ]
            return named, dict(sorted(rankings.items(), key=lambda r: SEED_ORDER.index(r[0])))

        async def graph_walk() -> WalkResult | None:
            # The walk starts at the notes the question names; lacking any, at the best hits'
            # notes (the walk's own query finds them).
            named = await names_task if names_task is not None else []
            seeds = {n.node: f"note:{n.path}" for n in named}
            top: tuple[str, ...] = ()
            if not seeds:
                fused, _ = rrf((await seed_rankings())[1])
                top = tuple(sorted(fused, key=lambda c: -fused[c])[:WALK_SEEDS])
            start = time.perf_counter()
            view, qvec = await view_task, await embed_task
            graph, scores = await cached.walk_once(
                store,
                core.memo,
                (vault, view.generation),
                seeds,
                settings.graph_depth,
                extractors,
                max_mentioned_by=_generic(view),
                seed_chunks=top,
                embedding=qvec,
            )
            paths: dict[str, HopPath] = {}
            reached = await walk_ranking(core, vault, graph, qvec, paths, scores)
            clock.lap("graph", start)
            # The walk's ranking opens with where it started (hop 0) — the named notes' chunks,
            # those full text found first, or else the best hits — then what it reached: a
            # walk that only ranked the neighbours would vote them above its own seeds, and one
            # extra vote in the fusion outweighs many places in a text ranking.
            if seeds:
                top = tuple(c for n in (await seed_rankings())[0] for c in n.chunk_ids)
            started = dict.fromkeys(top, 1.0)
            ranking = list(started.items()) + [r for r in reached if r[0] not in started]
            return graph, ranking, paths

        graph_task = steps.start(graph_walk()) if "graph" in use else None
        named, rankings = await seed_rankings()
        walks: list[Walk] = []
        paths: dict[str, HopPath] = {}
        for name, walking in (("graph", graph_task), ("synonym", synonym_task)):
            result = await walking if walking is not None else None
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
        weights = graph_weights(named_weight)
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
            # PageRank's order joins the fusion as one more ranking, weighted as the walk is when
            # a note is named (its say grows with what the question names), a tie-breaker
            # otherwise: it lifts the chunks the graph ties to the question without burying an
            # exact text match.
            placed = {c: rows[c]["note"] for c in pool}
            pagerank = graph_pagerank(core, placed, fused, named, walks)
            for rank, c in enumerate(sorted(pool, key=lambda c: (-pagerank[c], -fused[c], c))):
                scores[c] += weights["ppr"] / (RRF_K + rank + 1)
                found[c]["ppr"] = pagerank[c]
        best = sorted(pool, key=lambda c: (-scores[c], -fused[c], c))[:top_k]
        clock.lap("rank", start)

        hits = [_hit(rows[c], scores[c], found[c]) for c in best]
        facts = await _facts(core, best, extractors)
        score = relevance.relevance(question, hits, await floor_task, settings.min_relevance)
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
        steps.stop()


def _generic(view: cached.VaultView) -> int:
    """Mentions of a note that more notes than this write out are not walked: such a name
    ("api", "models") says little about what a passage is about (measured against the vault's
    size)."""
    return search.max_mentioned_by(view.notes, MIN_SPECIFICITY)


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
