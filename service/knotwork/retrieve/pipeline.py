"""retrieve(): run the retrievers, fuse them, rank over the graph, and explain every hit.

1. Seeds: vector and full-text chunks, notes the question names, dates it names.
2. Walks: from the seed notes along facts (``graph``), and in normal mode from the entities
   the model's keywords name, through similarity edges first (``synonym``).
3. Reciprocal-rank fusion of all of them, filters applied (the index searches of step 1 look
   only at notes that pass, as deep as they need; the rest are filtered here), then a
   personalized PageRank over the subgraph the walks saw, restarting at the fused hits and
   the notes the question names (HippoRAG's multi-hop ranker); its order joins the fusion as
   a weighted ranking.

The graph's say (the walk's and PageRank's weight) follows the specificity of what the question
names and how much of the question the names make up: a rare name the question is about leads
the graph, a name dropped in passing among many other words weighs less, a name most notes
write out ("api") is not followed, and a question naming nothing leaves the graph a
tie-breaker among text matches.

Each retriever is a class in retrievers.py behind context.Retriever; a question's shared steps
live in its context.Context; which retrievers run and how they are weighed is a
config.RetrievalConfig. This module fuses what they return and ranks it.
"""

from __future__ import annotations

import time
from dataclasses import replace

from knotwork.core import Core
from knotwork.graph.queries.reads import CitedChunk
from knotwork.graph.store import reads_within
from knotwork.retrieve import relevance, retrievers, search
from knotwork.retrieve.config import DEFAULT, DEFAULT_TOP_K, RetrievalConfig
from knotwork.retrieve.context import Context, Rankings
from knotwork.retrieve.graphrank import pagerank as graph_pagerank
from knotwork.retrieve.notes import no_notes_warning
from knotwork.retrieve.rank import RRF_K, rrf
from knotwork.retrieve.types import Evidence, Filters, Hit, HopPath, Mode
from knotwork.retrieve.walk import Walk
from knotwork.text.keys import nfc

MAX_FACTS = 50


async def retrieve(
    core: Core,
    vault: str,
    question: str,
    top_k: int = DEFAULT_TOP_K,
    *,
    mode: Mode = "retrieve",
    filters: Filters | None = None,
    config: RetrievalConfig | None = None,
    use: frozenset[str] | None = None,
    ppr: bool | None = None,
) -> Evidence:
    """Ranked evidence for a question under ``config`` (config.PRESETS names the evaluated
    ones; by default every retriever, PageRank as the settings say). ``use`` and ``ppr``
    override its retrievers and its ranker.

    Only ``mode="normal"`` calls the chat model (for keywords); no mode writes anything.
    Every step starts at once and awaits only its inputs (context.py). Neo4j stops any of its
    reads past ``KNOTWORK_NEO4J_QUERY_TIMEOUT_S``: a search that runs away costs that search.
    """
    # Composed, as the notes are stored and indexed: a question pasted decomposed (a name
    # copied from a macOS file name) is otherwise embedded as other bytes, another cosine.
    question = nfc(question)
    with reads_within(core.settings.neo4j_query_timeout_s):
        # Refused (ManifestMismatchError) rather than answered without vectors, or with
        # another model's, when the graph was re-embedded since this process started.
        await core.check_manifest()
        return await _retrieve(core, vault, question, top_k, mode, filters, config, use, ppr)


async def _retrieve(
    core: Core,
    vault: str,
    question: str,
    top_k: int,
    mode: Mode,
    filters: Filters | None,
    config: RetrievalConfig | None,
    use: frozenset[str] | None,
    ppr: bool | None,
) -> Evidence:
    config = config or DEFAULT
    if use is not None:
        config = replace(config, retrievers=use)
    if ppr is not None:
        config = replace(config, ppr=ppr)
    filters = filters or Filters()
    fparams = filters.params()
    extractors: list[str] | None = fparams["extractors"]  # type: ignore[assignment]
    narrow = _note_filters(fparams)
    narrowing = any(narrow.values())
    # Deeper when a filter is set: the searches look only at notes that pass, the walks and
    # the named notes are filtered after ranking.
    k = max(4 * top_k, 20) * (5 if narrowing else 1)
    chosen = retrievers.for_config(config)
    ctx = Context(
        core,
        vault,
        question,
        k,
        mode=mode,
        extractors=extractors,
        config=config,
        retrievers=chosen,
        narrow=search.Narrow(core.store, vault, narrow) if narrowing else None,
    )
    try:
        rankings: Rankings = dict(await ctx.seeds)
        named = await ctx.named_first
        walks: list[Walk] = []
        paths: dict[str, HopPath] = {}
        for retriever in chosen:
            if retriever.seed:
                continue
            result = await ctx.ranked[retriever.name]
            if result is not None:
                rankings[retriever.name] = result.chunks
                if result.walk is not None:
                    walks.append(result.walk)
                for chunk_id, path in result.paths.items():  # the graph walk's path first
                    paths.setdefault(chunk_id, path)
        keywords = (
            ctx.keywords.result()[0] if ctx.keywords is not None and ctx.keywords.done() else []
        )

        start = time.perf_counter()
        weights = config.weights(
            max((n.specificity for n in named), default=0.0), search.named_share(question, named)
        )
        fused, found = rrf(rankings, weights, config.spaced)
        pool = sorted(fused, key=lambda c: -fused[c])[: max(3 * k, 60)]
        placed = await search.placed(core.store, vault, pool, narrow)
        pool = list(placed)
        scores = {c: fused[c] for c in pool}
        use_ppr = core.settings.ppr if config.ppr is None else config.ppr
        if use_ppr and pool:
            # PageRank's order joins the fusion as one more ranking, weighted as the walk is when
            # a note is named (its say grows with what the question names), a tie-breaker
            # otherwise: it lifts the chunks the graph ties to the question without burying an
            # exact text match.
            pagerank = graph_pagerank(core, placed, fused, named, walks)
            for rank, c in enumerate(sorted(pool, key=lambda c: (-pagerank[c], -fused[c], c))):
                scores[c] += weights["ppr"] / (RRF_K + rank + 1)
                found[c]["ppr"] = pagerank[c]
        best = sorted(pool, key=lambda c: (-scores[c], -fused[c], c))[:top_k]
        ctx.clock.lap("rank", start)

        # Text, place and facts of the hits kept only.
        rows, facts = await search.cited(core.store, best, extractors, MAX_FACTS)
        hits = [_hit(rows[c], scores[c], found[c]) for c in best if c in rows]
        if not hits:
            await _say_when_empty(ctx, filters)
        floor = await ctx.floor
        score = relevance.relevance(question, hits, floor, core.settings.min_relevance)
        return Evidence(
            hits=hits,
            timings_ms=ctx.clock.timings,
            warnings=ctx.warnings,
            facts=facts,
            paths=_shown(hits, [paths[c] for c in best if c in paths], narrowing),
            keywords=keywords,
            relevance=score,
            dense_down=ctx.dense_down,
        )
    finally:
        ctx.steps.stop()


async def _say_when_empty(ctx: Context, filters: Filters) -> None:
    """Nothing found in a vault the graph holds no note of is a vault not ingested yet, or a
    vault name mistyped; under filters that no note passes, a folder or tag mistyped: not
    notes that say nothing. A warning says which to check."""
    if unknown := await no_notes_warning(ctx.core, ctx.vault, ctx.view):
        ctx.warnings.append(unknown)
    elif ctx.narrow is not None and await ctx.narrow.passing() == 0:
        ctx.warnings.append(
            f"no note of vault {ctx.vault!r} passes the filters ({_described(filters)}): "
            "check them (a folder is relative to the vault, in its letter case; a note "
            "passes a date range with a date of its own in it)"
        )


def _described(filters: Filters) -> str:
    """The note filters as a person gave them: folder, tags, date range."""
    parts = [f"folder {filters.folder!r}"] if filters.folder else []
    if filters.tags:
        parts.append("tags " + ", ".join("#" + t.lstrip("#") for t in filters.tags))
    if filters.date_from or filters.date_to:
        first = filters.date_from.isoformat() if filters.date_from else "…"
        last = filters.date_to.isoformat() if filters.date_to else "…"
        parts.append(f"dated {first} to {last}")
    return "; ".join(parts)


def _shown(hits: list[Hit], paths: list[HopPath], narrowing: bool) -> list[HopPath]:
    """The walk's paths to the hits; under a note filter, only those through notes known to
    pass it (the hits' own): a path must not show a note the filter leaves out."""
    if not narrowing:
        return paths
    passing = {f"note:{h.path}" for h in hits}
    return [p for p in paths if all(n in passing for n in p.nodes if n.startswith("note:"))]


def _note_filters(params: dict[str, object]) -> dict[str, object]:
    return {k: params[k] for k in ("folder", "tags", "date_from", "date_to")}


def _hit(row: CitedChunk, score: float, retrievers: dict[str, float]) -> Hit:
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
        aliases=tuple(row["aliases"]),
    )
