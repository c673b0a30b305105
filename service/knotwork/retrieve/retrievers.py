"""The six retrievers, one class each behind ``context.Retriever``: four seed searches (vector,
full text, the notes the question names, the dates it names), each one named Cypher query
(search.py), and two graph walks — from the named notes (or the best hits) along facts, and
in normal mode from the entities the model's keywords name, through similarity edges first.
"""

from __future__ import annotations

import time

from knotwork.retrieve import cached, search
from knotwork.retrieve.config import FUSION_ORDER, RetrievalConfig
from knotwork.retrieve.context import Context, Ranking, Retriever
from knotwork.retrieve.graphrank import entity_seeds, question_stems, walk_ranking
from knotwork.retrieve.rank import rrf
from knotwork.retrieve.temporal import question_range
from knotwork.retrieve.types import HopPath
from knotwork.retrieve.walk import Walk


class Vector:
    """Chunks nearest the question's embedding, ordered by their own vector and, ``note_share``
    of the way, by their note's (the mean of the note's chunks' vectors); nothing when the
    embedding model is down. The note's share lets a section of a note about the question rank
    though its own text says little of it (a paraphrase of the note's subject, a formula under
    a heading)."""

    name, needs, seed = "vector", frozenset({"embedding"}), True

    async def rank(self, ctx: Context) -> Ranking | None:
        qvec = await ctx.embedding
        if qvec is None:
            return None
        start = time.perf_counter()
        store, config = ctx.core.store, ctx.config
        if config.note_share <= 0:
            chunks = await search.vector(store, ctx.vault, qvec, ctx.k, ctx.narrow)
        else:
            found, floor = await search.vector_notes(
                store, ctx.vault, qvec, ctx.k, ctx.k, ctx.narrow
            )
            chunks = note_weighed(found, floor, config.note_share)
        ctx.clock.lap("vector", start)
        return Ranking(chunks)


def note_weighed(
    found: list[tuple[str, float, float | None]], floor: float | None, share: float
) -> list[tuple[str, float]]:
    """Chunks ordered by ``(1 - share) * own + share * note``, a note not among the nearest
    counted at ``floor`` (its score is no higher), each chunk keeping its own score: the
    relevance gate reads a hit's ``vector`` score as the question's cosine to that text.
    Without any note vector (``floor`` None) the chunks keep their own order."""

    def weighed(row: tuple[str, float, float | None]) -> float:
        _, own, note = row
        note = floor if note is None else note
        return own if note is None else (1 - share) * own + share * note

    return [(c, own) for c, own, _ in sorted(found, key=lambda r: (-weighed(r), r[0]))]


class Fulltext:
    """BM25 over the full-text indexes of the vault's languages (only those).

    When the question names notes, only their chunks are scored by the whole question; every
    other chunk by the question's words beyond those names (``search.beyond_names``), the two
    rankings interleaved by rank. A page that merely repeats a name the question writes out
    (every cast member's page names the film) is not taken as about the question: the named
    notes, and the walk from them, already stand for the name. Measured in bench/RESULTS.md
    ("Full text beyond the names")."""

    name, needs, seed = "fulltext", frozenset({"view"}), True

    async def rank(self, ctx: Context) -> Ranking | None:
        start = time.perf_counter()
        store, languages = ctx.core.store, (await ctx.vault_view()).languages
        whole = ctx.steps.start(
            search.fulltext(store, ctx.vault, ctx.question, ctx.k, languages, ctx.narrow)
        )
        named = await ctx.named_notes()  # none unless another retriever reads them
        rest = search.beyond_names(ctx.question, [n.key for n in named])
        found = await whole
        if rest is not None:
            others = await search.fulltext(store, ctx.vault, rest, ctx.k, languages, ctx.narrow)
            ids = {c for n in named for c in n.chunk_ids}
            found = interleave(
                [hit for hit in found if hit[0] in ids],
                [hit for hit in others if hit[0] not in ids],
            )
        ctx.clock.lap("fulltext", start)
        return Ranking(found)


def interleave(
    first: list[tuple[str, float]], second: list[tuple[str, float]]
) -> list[tuple[str, float]]:
    """Two best-first rankings as one, by rank (the first ahead on a tie), each hit keeping
    its own score."""
    fused, _ = rrf({"first": first, "second": second})
    scores = dict(second) | dict(first)
    return [(c, scores[c]) for c in sorted(fused, key=lambda c: -fused[c])]


class Names:
    """The chunks of the notes the question names, in turns (each note's first chunk, then
    each one's second, …; the most specific name first in each turn), each scoring its
    note's specificity over the note's place."""

    name, needs, seed = "names", frozenset({"named"}), True

    async def rank(self, ctx: Context) -> Ranking | None:
        named = await ctx.named_first
        if not named:
            return None
        return Ranking([(c, named[i].specificity / (1 + i)) for c, i in search.in_turns(named)])


class Temporal:
    """Chunks of notes dated in the range the question names; nothing when it names none."""

    name, needs, seed = "temporal", frozenset({"view"}), True

    async def rank(self, ctx: Context) -> Ranking | None:
        if question_range(ctx.question) is None:  # no date named: the vault view is not awaited
            ctx.clock.lap("temporal", time.perf_counter())  # timed as ever: nothing to do
            return None
        key = (ctx.vault, (await ctx.vault_view()).generation)  # dated notes kept per generation
        found = cached.temporal(ctx.core.store, ctx.core.memo, key, ctx.question, ctx.k)
        ranked = await ctx.clock.timed("temporal", found)
        return None if ranked is None else Ranking(ranked)


class GraphWalk:
    """From the notes the question names — lacking any, from the best seed hits' notes —
    along facts, ``KNOTWORK_GRAPH_DEPTH`` hops."""

    name, needs, seed = "graph", frozenset({"named", "seeds", "embedding", "view"}), False

    async def rank(self, ctx: Context) -> Ranking | None:
        # The walk starts at the notes the question names; lacking any, at the best hits'
        # notes (the walk's own query finds them).
        named = await ctx.named_notes()
        seeds = {n.node: f"note:{n.path}" for n in named}
        top: tuple[str, ...] = ()
        if not seeds:
            fused, _ = rrf(await ctx.seeds)
            top = tuple(sorted(fused, key=lambda c: -fused[c])[: ctx.config.walk_seeds])
        start = time.perf_counter()
        graph, reached, paths = await _walk(ctx, seeds, ctx.core.settings.graph_depth, top)
        ctx.clock.lap("graph", start)
        # The walk's ranking opens with where it started (hop 0) — the named notes' chunks in
        # turns, as the names rank them, or else the best hits — then what it reached: a
        # walk that only ranked the neighbours would vote them above its own seeds, and one
        # extra vote in the fusion outweighs many places in a text ranking.
        # Its vote is for what it reached beyond the named notes: a named note's own chunks
        # that state a link onwards ("see [[mappa di Karnaugh]]") are that note's text, which
        # the names and full text already rank; voted again, they filled the places of the
        # named note's other sections and of the notes it leads to.
        skip: set[str] = set()
        if seeds:
            top = tuple(c for c, _ in search.in_turns(await ctx.named_first))
            skip = graph.seed_stated()
        started = dict.fromkeys(top, 1.0)
        ranking = list(started.items()) + [
            r for r in reached if r[0] not in started and r[0] not in skip
        ]
        return Ranking(ranking, graph, paths)


class SynonymWalk:
    """From the entities the model's keywords name (or whose whole name the question writes
    out) through their ``SIMILAR_TO`` neighbours first, then along facts."""

    name, needs, seed = "synonym", frozenset({"keywords", "embedding", "view"}), False

    async def rank(self, ctx: Context) -> Ranking | None:
        start = time.perf_counter()
        keywords: list[str] = []
        if ctx.keywords is not None:
            keywords, problem = await ctx.keywords
            if problem:
                ctx.warnings.append(problem)
        entities = await entity_seeds(ctx.core, ctx.vault, ctx.question, keywords)
        if not entities:
            ctx.clock.lap("synonym", start)
            return None
        depth = min(ctx.core.settings.graph_depth + 1, 3)
        synonym, ranking, paths = await _walk(ctx, entities, depth, similar_first=True)
        ctx.clock.lap("synonym", start)
        return Ranking(ranking, synonym, paths)


async def _walk(
    ctx: Context,
    seeds: dict[str, str],
    depth: int,
    seed_chunks: tuple[str, ...] = (),
    *,
    similar_first: bool = False,
) -> tuple[Walk, list[tuple[str, float]], dict[str, HopPath]]:
    """A walk from ``seeds`` (kept per vault generation, generic names not followed) and the
    chunks it reached, ranked against the question, with the path to each."""
    view, qvec = await ctx.vault_view(), await ctx.embedding
    words = question_stems(ctx.question, seeds.values())
    walk, scores = await cached.walk_once(
        ctx.core.store,
        ctx.core.memo,
        (ctx.vault, view.generation),
        seeds,
        depth,
        ctx.extractors,
        similar_first=similar_first,
        max_mentioned_by=ctx.generic(view),
        seed_chunks=seed_chunks,
        embedding=qvec,
        words=words,
    )
    paths: dict[str, HopPath] = {}
    ranking = await walk_ranking(ctx.core, ctx.vault, walk, qvec, paths, scores, words)
    return walk, ranking, paths


# One of each (they keep no state: a question's lives in its context), in the fusion's order.
RETRIEVERS: tuple[Retriever, ...] = tuple(
    sorted(
        (Vector(), Fulltext(), Names(), Temporal(), GraphWalk(), SynonymWalk()),
        key=lambda r: FUSION_ORDER.index(r.name),
    )
)


def for_config(config: RetrievalConfig) -> list[Retriever]:
    """The configuration's retrievers, in the fusion's order."""
    return [r for r in RETRIEVERS if r.name in config.retrievers]
