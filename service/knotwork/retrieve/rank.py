"""Ranking: reciprocal-rank fusion, personalized PageRank over the retrieved subgraph, and the
relevance score that decides whether the notes hold enough to answer."""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable

from knotwork.stopwords import STOPWORDS

RRF_K = 60  # the usual reciprocal-rank-fusion constant
_WORD = re.compile(r"\w+")


def terms(text: str) -> list[str]:
    """Content words, case-folded, without stop words; what relevance is measured on."""
    words = _WORD.findall(unicodedata.normalize("NFC", text).casefold())
    return [w for w in words if len(w) > 1 and w not in STOPWORDS]


def rrf(
    rankings: dict[str, list[tuple[str, float]]], weights: dict[str, float] | None = None
) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """(fused score per id, {retriever: own score} per id) over several best-first rankings;
    a ranking counts ``weights[name]`` times (default once)."""
    fused: dict[str, float] = defaultdict(float)
    found: dict[str, dict[str, float]] = defaultdict(dict)
    for name, ranking in rankings.items():
        weight = (weights or {}).get(name, 1.0)
        for rank, (item, score) in enumerate(ranking):
            fused[item] += weight / (RRF_K + rank + 1)
            found[item].setdefault(name, score)
    return dict(fused), dict(found)


def personalized_pagerank(
    edges: Iterable[tuple[str, str, float]],
    seeds: dict[str, float],
    damping: float = 0.85,
    iterations: int = 50,
    tolerance: float = 1e-7,
) -> dict[str, float]:
    """PageRank on an undirected weighted graph, restarting at ``seeds`` (HippoRAG's ranker).

    ``damping`` is the probability of following an edge rather than jumping back to a seed; a
    node without edges returns its mass to the seeds.
    """
    neighbours: dict[str, dict[str, float]] = defaultdict(dict)
    for a, b, weight in edges:
        if a != b and weight > 0:
            neighbours[a][b] = neighbours[a].get(b, 0.0) + weight
            neighbours[b][a] = neighbours[b].get(a, 0.0) + weight
    total = sum(w for w in seeds.values() if w > 0)
    if total <= 0:
        return {}
    restart = {n: w / total for n, w in seeds.items() if w > 0}
    nodes = set(neighbours) | set(restart)
    rank = dict.fromkeys(nodes, 0.0) | restart
    strength = {n: sum(neighbours[n].values()) for n in nodes}
    for _ in range(iterations):
        nxt = {n: (1 - damping) * restart.get(n, 0.0) for n in nodes}
        dangling = 0.0
        for node, mass in rank.items():
            if not mass:
                continue
            if strength[node] == 0:
                dangling += mass
                continue
            for other, weight in neighbours[node].items():
                nxt[other] += damping * mass * weight / strength[node]
        for node, share in restart.items():
            nxt[node] += damping * dangling * share
        delta = sum(abs(nxt[n] - rank[n]) for n in nodes)
        rank = nxt
        if delta < tolerance:
            break
    return rank


def coverage(question_terms: list[str], text: str) -> float:
    """Share of the question's content words that the text holds."""
    if not question_terms:
        return 0.0
    have = set(terms(text))
    return sum(1 for t in set(question_terms) if t in have) / len(set(question_terms))
