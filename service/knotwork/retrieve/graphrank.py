"""The graph's side of ranking: the chunks a walk reached, scored by nearness and similarity;
the entities a question's keywords name (the synonym walk's seeds); and a personalized PageRank
over the walked subgraph."""

from __future__ import annotations

import math
from collections.abc import Iterable

from knotwork.core import Core
from knotwork.graph.queries.reads import (
    ENTITIES_MATCHING,
    ENTITY_MKEYS,
    WALK_SCORES,
    ReachedChunk,
)
from knotwork.retrieve import search
from knotwork.retrieve.rank import personalized_pagerank
from knotwork.retrieve.types import HopPath
from knotwork.retrieve.walk import Edge, Scores, Walk
from knotwork.text.keys import (
    entity_key,
    mention_key,
    spaceless,
    spaceless_pairs,
    words,
)
from knotwork.text.names_found import chunk_grams, question_names
from knotwork.text.stopwords import STOPWORDS

NAMED_WEIGHT = 0.5  # share of PageRank's restart mass on the notes the question names
STEM = 6  # a question's word matches words starting with its first STEM letters ("director"
# matches "directed"): a crude stem that serves every language alike
MAX_STEMS = 16
SEED_ENTITIES = 15  # entities a synonym walk starts from, best matched first
# How far the question's own words in a reached chunk lift its similarity: a chunk holding all
# of those words that few other reached chunks hold counts (1 + LEXICAL) times its cosine.
LEXICAL = 1.0


def question_stems(question: str, seeds: Iterable[str]) -> tuple[str, ...]:
    """The question's words that may tell a walk's neighbours apart: content words not in the
    names of the walk's ``seeds`` (``note:<path>`` / ``entity:<key>``: every neighbour of a
    named note is near its name), cut to their first STEM letters."""
    named: set[str] = set()
    for seed in seeds:
        kind, _, name = seed.partition(":")
        if kind == "note":
            name = name.rsplit("/", 1)[-1].removesuffix(".md")
        named.update(mention_key(name).split())
    stems: dict[str, None] = {}
    asked = words(question)
    for word in asked:
        if len(word) >= 3 and not spaceless(word) and word not in STOPWORDS and word not in named:
            stems.setdefault(word[:STEM])
    # Spaceless scripts (Han, kana, Hangul, Thai …) by pairs of neighbouring characters,
    # written as the chunks' word text writes them (walk_scores.cypher matches " a b" in it).
    for a, b in spaceless_pairs(asked):
        if not (a in named and b in named):
            stems.setdefault(f"{a} {b}")
    return tuple(stems)[:MAX_STEMS]


def lexical(chunks: list[ReachedChunk]) -> dict[str, float]:
    """Chunk id → the share of the question's word weight it holds, a word weighing the
    more the fewer of ``chunks`` hold it (an inverse document frequency over what the walk
    reached: a word every neighbour holds, "born" among people, tells none apart)."""
    held = {c["id"]: set(c["held"]) for c in chunks}
    freq: dict[int, int] = {}
    for indexes in held.values():
        for word in indexes:
            freq[word] = freq.get(word, 0) + 1
    weight = {w: math.log1p(len(held) / n) for w, n in freq.items()}
    total = sum(weight.values())
    if not total:
        return {}
    return {c: sum(weight[w] for w in words) / total for c, words in held.items() if words}


def _offered(chunk: ReachedChunk, similarity: dict[str, float]) -> tuple[bool, float, int]:
    """How a reached note's chunks compete to be the one offered: a chunk under the heading the
    link that reached the note names first ([[Plan#Budget]] points at Budget, not at the note's
    opening), then the nearest the question, then the first."""
    return (not chunk.get("anchored", False), -similarity[chunk["id"]], chunk["ord"])


async def walk_ranking(
    core: Core,
    vault: str,
    graph: Walk,
    qvec: list[float] | None,
    paths: dict[str, HopPath],
    scores: Scores | None = None,
    words: tuple[str, ...] = (),
) -> list[tuple[str, float]]:
    """Chunks a walk reached: those asserting a walked fact, and the most question-like chunk
    of each note reached (under the heading its link names, if it names one: ``_offered``).
    Each scores its similarity to the question over 1 + hops, so a near chunk that says nothing
    to the question does not outrank a farther one that does (without a question vector,
    nearness alone orders them). A reached note's chunk holding the question's ``words`` that
    few others hold (``lexical``) counts up to 1 + LEXICAL times its similarity: among a film's
    cast and crew, the composer's page is the one that says "composer".

    Scoring reads the embedding of every chunk scored, the walk's main cost, so a chunk both
    asserting and in a reached note is read once; ``scores``, when the walk's own query
    scored it (walk.walk_scored), spares the round trip."""
    hops: dict[str, int] = {}
    for chunk_id, node, n in graph.asserting:
        if chunk_id not in hops:
            hops[chunk_id] = n
            paths.setdefault(chunk_id, graph.path_to(node, chunk_id))
    reached = graph.notes_reached()
    if not reached and not hops:
        return []
    if scores is None:
        [row] = await core.store.read(
            WALK_SCORES,
            vault=vault,
            paths=[p for _, p in reached],
            anchors=[graph.anchor.get(n) for n, _ in reached],
            ids=list(hops) if qvec is not None else [],
            embedding=qvec,
            words=list(words),
        )
        scores = row
    similarity: dict[str, float] = {}
    best: dict[str, ReachedChunk] = {}  # path → its chunk nearest the question
    lifted = lexical(scores["notes"])
    for chunk in scores["notes"]:
        similarity[chunk["id"]] = max(float(chunk["score"]), 0.0) * (
            1 + LEXICAL * lifted.get(chunk["id"], 0.0)
        )
        held = best.get(chunk["path"])
        if held is None or _offered(chunk, similarity) < _offered(held, similarity):
            best[chunk["path"]] = chunk
    for hit in scores["asserting"]:
        similarity[hit["id"]] = float(hit["score"])
    for _, path in reached:
        top = best.get(path)
        if top is not None and top["id"] not in hops:
            hops[top["id"]] = graph.depth[top["note"]]
            paths.setdefault(top["id"], graph.path_to(top["note"], top["id"]))
    if qvec is None:  # nearness alone
        similarity.clear()
    ranking = {c: max(similarity.get(c, 1.0), 0.0) / (1 + n) for c, n in hops.items()}
    return sorted(ranking.items(), key=lambda item: -item[1])


async def entity_seeds(
    core: Core, vault: str, question: str, keywords: list[str]
) -> dict[str, str]:
    """Entities the model's keywords name (exact or full-text), and entities whose whole name
    the question writes out (without keywords, full-text on the question would match every
    entity sharing a common word). In Han, kana or Thai a name overlapping one written before
    it is no name there ("京都" in "東京都庁": text/names_found.py), so the entity names among
    the question's runs are asked first."""
    keys = sorted({entity_key(w) for w in keywords if entity_key(w)})
    mkeys = sorted(chunk_grams(question, (1,)))
    if mkeys and any(map(spaceless, words(question))):
        bearing = await core.store.read(ENTITY_MKEYS, vault=vault, mkeys=mkeys)
        mkeys = sorted(question_names(question, {row["mkey"] for row in bearing}))
    query = " OR ".join(q for q in (search.lucene_query(w) for w in keywords) if q)
    rows = await core.store.read(
        ENTITIES_MATCHING,
        vault=vault,
        keys=keys,
        mkeys=mkeys,
        query=query,
        k=SEED_ENTITIES,
        candidates=SEED_ENTITIES * 5,  # before notes and other vaults' entities are dropped
    )
    return {row["id"]: row["name"] for row in rows}


def pagerank(
    core: Core,
    pool: dict[str, str],
    fused: dict[str, float],
    named: list[search.NamedNote],
    walks: list[Walk],
) -> dict[str, float]:
    """PPR scores of the pool's chunks (chunk id → its note's element id, as filter_chunks
    read them) over chunks, their notes and every walked edge."""
    edges: list[Edge] = [e for w in walks for e in w.edges]
    edges += [Edge(f"chunk:{c}", note, 1.0) for c, note in pool.items()]
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
