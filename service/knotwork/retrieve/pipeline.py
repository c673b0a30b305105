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
from typing import Any

from knotwork.core import Core
from knotwork.facts import entity_key
from knotwork.mentions import chunk_grams
from knotwork.retrieve import keywords as kw
from knotwork.retrieve import search
from knotwork.retrieve.rank import RRF_K, coverage, personalized_pagerank, rrf, terms
from knotwork.retrieve.types import RETRIEVERS, Evidence, FactRow, Filters, Hit, HopPath, Mode
from knotwork.retrieve.walk import Edge, Walk, walk

log = logging.getLogger(__name__)
WALK_SEEDS = 5  # top fused chunks whose notes seed the graph walk
NAMED_WEIGHT = 0.5  # share of PageRank's restart mass on the notes the question names
MAX_FACTS = 50
RELEVANCE_HITS = 3
# What the question names outweighs what merely resembles it: a named note, and the walk from
# named notes, count this many times their name's specificity in the fusion.
NAMED_FUSION_WEIGHT = 2.0
MIN_SPECIFICITY = 0.5  # below this a name is generic: not taken as named, its mentions not walked
# Lacking named notes, the walk starts at the best hits' notes. Where it leads is a guess (a
# page's neighbours are rarely what a question about that page asks), so it counts a quarter.
HITS_WALK_WEIGHT = 0.25


class _Clock:
    def __init__(self) -> None:
        self.timings: dict[str, float] = {}

    def lap(self, name: str, since: float) -> None:
        self.timings[name] = round((time.perf_counter() - since) * 1000, 2)


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
    """
    store, settings = core.store, core.settings
    use = frozenset(RETRIEVERS) if use is None else use
    ppr = settings.ppr if ppr is None else ppr
    filters = filters or Filters()
    fparams = filters.params()
    extractors: list[str] | None = fparams["extractors"]  # type: ignore[assignment]
    narrowing = any(fparams[k] for k in ("folder", "tags", "date_from", "date_to"))
    k = max(4 * top_k, 20) * (5 if narrowing else 1)
    clock, warnings = _Clock(), []
    rankings: dict[str, list[tuple[str, float]]] = {}
    paths: dict[str, HopPath] = {}

    qvec: list[float] | None = None
    start = time.perf_counter()
    if use & {"vector", "graph", "synonym"}:
        # Built on first use: a ConfigError building it is a setting to fix, not a model down.
        embedder = core.embedder
        try:
            qvec = list(await embedder.aget_query_embedding(question))
        except Exception as exc:  # the embedding model may be down: the rest still answers
            warnings.append(f"vector retrieval skipped: {type(exc).__name__}: {exc}")
    if "vector" in use and qvec is not None:
        rankings["vector"] = await search.vector(store, vault, qvec, k)
    clock.lap("vector", start)
    start = time.perf_counter()
    if "fulltext" in use:
        rankings["fulltext"] = await search.fulltext(store, vault, question, k)
    clock.lap("fulltext", start)
    start = time.perf_counter()
    named: list[search.NamedNote] = []
    # A name most of the vault writes out ("api", "models") says little about what a question
    # or a passage is about: such notes are not taken as named, and mentions of them are not
    # walked. Specificity is measured against the vault's size.
    notes = (
        await search.vault_notes(store, vault, core.vault_sizes)
        if use & {"names", "graph", "synonym"}
        else 0
    )
    generic = search.max_mentioned_by(notes, MIN_SPECIFICITY)
    if use & {"names", "graph"}:
        found_named = await search.named_notes(store, vault, question, notes, qvec)
        named = sorted(
            (n for n in found_named if n.specificity >= MIN_SPECIFICITY),
            key=lambda n: -n.specificity,
        )
    if "names" in use and named:
        rankings["names"] = [
            (cid, note.specificity / (1 + i))
            for i, note in enumerate(named)
            for cid in note.chunk_ids
        ]
    if "temporal" in use:
        dated = await search.temporal(store, vault, question, k)
        if dated is not None:
            rankings["temporal"] = dated
    clock.lap("names_temporal", start)

    keywords: list[str] = []
    if mode == "normal" and "synonym" in use:
        start = time.perf_counter()
        keywords, problem = await kw.propose(core.llm, question)
        if problem:
            warnings.append(problem)
        clock.lap("keywords", start)

    walks: list[Walk] = []
    if "graph" in use:
        start = time.perf_counter()
        # The walk starts at the notes the question names; lacking any, at the best hits' notes.
        seeds = {n.node: f"note:{n.path}" for n in named}
        if not seeds:
            fused, _ = rrf(rankings)
            top = sorted(fused, key=lambda c: -fused[c])[:WALK_SEEDS]
            for row in await store.read("chunk_notes", ids=top):
                seeds.setdefault(row["note"], f"note:{row['path']}")
        graph = await walk(store, seeds, settings.graph_depth, extractors, max_mentioned_by=generic)
        rankings["graph"] = await _walk_ranking(core, vault, graph, qvec, paths)
        walks.append(graph)
        clock.lap("graph", start)
    if "synonym" in use:
        start = time.perf_counter()
        entities = await _entity_seeds(core, vault, question, keywords)
        if entities:
            synonym = await walk(
                store,
                entities,
                min(settings.graph_depth + 1, 3),
                extractors,
                similar_first=True,
                max_mentioned_by=generic,
            )
            rankings["synonym"] = await _walk_ranking(core, vault, synonym, qvec, paths)
            walks.append(synonym)
        clock.lap("synonym", start)

    start = time.perf_counter()
    named_weight = NAMED_FUSION_WEIGHT * max((n.specificity for n in named), default=0.0)
    weights = {"names": named_weight, "graph": max(named_weight, HITS_WALK_WEIGHT)}
    fused, found = rrf(rankings, weights)
    pool = sorted(fused, key=lambda c: -fused[c])[: max(3 * k, 60)]
    rows = {
        r["id"]: r
        for r in await store.read("filter_chunks", ids=pool, vault=vault, **_note_filters(fparams))
    }
    pool = [c for c in pool if c in rows]
    scores = {c: fused[c] for c in pool}
    if ppr and pool:
        # PageRank's order joins the fusion as one more ranking, weighted as the walk is (its
        # say grows with what the question names): it lifts the chunks the graph ties to the
        # question without burying an exact text match.
        pagerank = await _pagerank(core, pool, fused, named, walks)
        for rank, c in enumerate(sorted(pool, key=lambda c: (-pagerank[c], -fused[c], c))):
            scores[c] += weights["graph"] / (RRF_K + rank + 1)
            found[c]["ppr"] = pagerank[c]
    best = sorted(pool, key=lambda c: (-scores[c], -fused[c], c))[:top_k]
    clock.lap("rank", start)

    hits = [_hit(rows[c], scores[c], found[c]) for c in best]
    facts = await _facts(core, best, extractors)
    relevance = _relevance(question, hits)
    return Evidence(
        hits=hits,
        timings_ms=clock.timings,
        warnings=warnings,
        facts=facts,
        paths=[paths[c] for c in best if c in paths],
        keywords=keywords,
        relevance=relevance,
    )


def _note_filters(params: dict[str, object]) -> dict[str, object]:
    return {k: params[k] for k in ("folder", "tags", "date_from", "date_to")}


async def _walk_ranking(
    core: Core, vault: str, graph: Walk, qvec: list[float] | None, paths: dict[str, HopPath]
) -> list[tuple[str, float]]:
    """Chunks a walk reached: those asserting a walked fact, and the most question-like chunk
    of each note reached. Each scores its similarity to the question over 1 + hops, so a
    near chunk that says nothing to the question does not outrank a farther one that does
    (without a question vector, nearness alone orders them)."""
    hops: dict[str, int] = {}
    for chunk_id, node, n in graph.asserting:
        if chunk_id not in hops:
            hops[chunk_id] = n
            paths.setdefault(chunk_id, graph.path_to(node, chunk_id))
    similarity: dict[str, float] = {}
    reached = graph.notes_reached()
    if reached:
        rows = await core.store.read(
            "note_chunks_ranked",
            vault=vault,
            paths=[p for _, p in reached],
            embedding=qvec,
            per_note=1,
        )
        for row in rows:
            if qvec is not None:
                similarity[row["id"]] = float(row["score"])
            if row["id"] not in hops:
                hops[row["id"]] = graph.depth[row["note"]]
                paths.setdefault(row["id"], graph.path_to(row["note"], row["id"]))
    if qvec is not None:
        unscored = [c for c in hops if c not in similarity]
        for row in await core.store.read("chunks_similarity", ids=unscored, embedding=qvec):
            similarity[row["id"]] = float(row["score"])
    ranking = {c: max(similarity.get(c, 1.0), 0.0) / (1 + n) for c, n in hops.items()}
    return sorted(ranking.items(), key=lambda item: -item[1])


async def _entity_seeds(
    core: Core, vault: str, question: str, keywords: list[str]
) -> dict[str, str]:
    """Entities the model's keywords name (exact or full-text), and entities whose whole name
    the question writes out (without keywords, full-text on the question would match every
    entity sharing a common word)."""
    keys = sorted({entity_key(w) for w in keywords if entity_key(w)})
    mkeys = sorted(chunk_grams(question, (1,)))
    query = " OR ".join(q for q in (search.lucene_query(w) for w in keywords) if q)
    rows = await core.store.read(
        "entities_matching", vault=vault, keys=keys, mkeys=mkeys, query=query, k=15
    )
    return {row["id"]: row["name"] for row in rows}


async def _pagerank(
    core: Core,
    pool: list[str],
    fused: dict[str, float],
    named: list[search.NamedNote],
    walks: list[Walk],
) -> dict[str, float]:
    """PPR scores of the pool's chunks over chunks, their notes and every walked edge."""
    edges: list[Edge] = [e for w in walks for e in w.edges]
    for row in await core.store.read("chunk_notes", ids=pool):
        edges.append(Edge(f"chunk:{row['id']}", row["note"], 1.0))
    # Restart mass falls with the fused rank as 1 / rank (fused scores themselves are nearly
    # flat, so they would let the graph's shape drown the best text match).
    order = sorted(pool, key=lambda c: (-fused[c], c))
    zipf = {c: 1.0 / (rank + 1) for rank, c in enumerate(order)}
    total = sum(zipf.values())
    # The named notes' share of the restart mass grows with how specific their names are.
    rarity = sum(n.specificity for n in named)
    named_share = NAMED_WEIGHT * max((n.specificity for n in named), default=0.0)
    seeds = {f"chunk:{c}": zipf[c] / total * (1 - named_share) for c in pool}
    for note in named:
        seeds[note.node] = (
            seeds.get(note.node, 0.0) + named_share * note.specificity / rarity if rarity else 0.0
        )
    rank = personalized_pagerank(
        ((e.a, e.b, e.weight) for e in edges), seeds, core.settings.ppr_damping
    )
    return {c: rank.get(f"chunk:{c}", 0.0) for c in pool}


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


def _relevance(question: str, hits: list[Hit]) -> float:
    """How well the evidence answers to the question: the higher of the best dense cosine and
    the share of the question's content words that the top hits hold between them (a multi-hop
    answer spreads them over several notes)."""
    top = hits[:RELEVANCE_HITS]
    dense = max(
        (2 * h.retrievers["vector"] - 1 for h in top if "vector" in h.retrievers), default=0.0
    )
    text = "\n".join(f"{h.title}\n{h.heading}\n{h.text}" for h in top)
    return round(min(1.0, max(0.0, dense, coverage(terms(question), text))), 4)
