"""Ranking: reciprocal-rank fusion, personalized PageRank over the retrieved subgraph, and the
relevance score that decides whether the notes hold enough to answer."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable

from knotwork.retrieve.temporal import time_words
from knotwork.text.asking import asking_words, phrase_places
from knotwork.text.keys import spaceless, spaceless_pairs, words
from knotwork.text.language import leading_language
from knotwork.text.stopwords import STOPWORDS

RRF_K = 60  # the usual reciprocal-rank-fusion constant


def terms(text: str) -> list[str]:
    """Content words, case-folded, without stop words; what relevance is measured on. Han,
    kana, Hangul, Thai and the like count by pairs of neighbouring characters (one alone says
    little)."""
    found = words(text)
    pairs = [a + b for a, b in spaceless_pairs(found)]
    return [w for w in found if len(w) > 1 and not spaceless(w) and w not in STOPWORDS] + pairs


def asked(question: str) -> list[str]:
    """The question's content words that the evidence is asked to hold: its ``terms`` less the
    words and phrases it is asked with (text/asking.py) — "Wann fand das Treffen statt?" asks
    for "treffen", as "When was the meeting?" asks for "meeting". The words are those of the
    language most of its function words belong to; none when it holds none or two languages
    tie: a keyword question ("car insurance renewal") asks for every word it holds. The words
    of a relative time ("yesterday", "last summer", "l'estate scorsa") ask when: a note dated
    then answers them by its date (the temporal retriever), not by writing them."""
    found = words(question)
    timed = time_words(question)
    language = leading_language(question)
    framing = asking_words([language] if language else [])
    places = phrase_places(found)
    pairs = [a + b for a, b in spaceless_pairs(found)]
    return [
        w
        for i, w in enumerate(found)
        if len(w) > 1
        and not spaceless(w)
        and w not in STOPWORDS
        and w not in framing
        and i not in places
        and w not in timed
    ] + pairs


def rrf(
    rankings: dict[str, list[tuple[str, float]]],
    weights: dict[str, float] | None = None,
    spaced: Collection[str] = (),
) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """(fused score per id, {retriever: own score} per id) over several best-first rankings;
    a ranking counts ``weights[name]`` times (default once).

    A ranking named in ``spaced`` votes over the same span as by rank — 1 / (K + 1) for its
    first, 1 / (K + n) for its last of n — but spaced by its scores (min-max between the
    two) instead of its places: its scores say how far a hit is behind the best, which the
    places throw away."""
    fused: dict[str, float] = defaultdict(float)
    found: dict[str, dict[str, float]] = defaultdict(dict)
    for name, ranking in rankings.items():
        weight = (weights or {}).get(name, 1.0)
        votes = _spaced(ranking) if name in spaced else _by_rank(ranking)
        for (item, score), vote in zip(ranking, votes, strict=True):
            fused[item] += weight * vote
            found[item].setdefault(name, score)
    return dict(fused), dict(found)


def _by_rank(ranking: list[tuple[str, float]]) -> list[float]:
    return [1 / (RRF_K + rank + 1) for rank in range(len(ranking))]


def _spaced(ranking: list[tuple[str, float]]) -> list[float]:
    if not ranking:
        return []
    scores = [score for _, score in ranking]
    best, worst = max(scores), min(scores)
    first, last = 1 / (RRF_K + 1), 1 / (RRF_K + len(ranking))
    if best <= worst:
        return [first] * len(ranking)
    return [last + (s - worst) / (best - worst) * (first - last) for s in scores]


def personalized_pagerank(
    edges: Iterable[tuple[str, str, float]],
    seeds: dict[str, float],
    damping: float = 0.85,
    iterations: int = 50,
    tolerance: float = 1e-7,
) -> dict[str, float]:
    """PageRank on an undirected weighted graph, restarting at ``seeds`` (HippoRAG's ranker).

    ``damping`` is the probability of following an edge rather than jumping back to a seed; a
    node without edges returns its mass to the seeds. Parallel edges add their weights. The
    power iteration runs in numpy (one ``bincount`` per step over the edge list): in pure
    Python it took longer than every query of a retrieval together.
    """
    import numpy as np  # imported on first use: commands that never rank start faster

    index: dict[str, int] = {}
    ends: list[tuple[int, int, float]] = []
    for a, b, weight in edges:
        if a != b and weight > 0:
            ends.append((index.setdefault(a, len(index)), index.setdefault(b, len(index)), weight))
    total = sum(w for w in seeds.values() if w > 0)
    if total <= 0:
        return {}
    for node, w in seeds.items():
        if w > 0:
            index.setdefault(node, len(index))
    size = len(index)
    restart = np.zeros(size)
    for node, w in seeds.items():
        if w > 0:
            restart[index[node]] = w / total
    pairs = np.array([(a, b) for a, b, _ in ends], dtype=np.int64).reshape(-1, 2)
    src = np.concatenate([pairs[:, 0], pairs[:, 1]])  # both directions: undirected
    dst = np.concatenate([pairs[:, 1], pairs[:, 0]])
    weights = np.tile(np.array([w for _, _, w in ends], dtype=np.float64), 2)
    strength = np.bincount(src, weights=weights, minlength=size)
    share = weights / np.where(strength[src] > 0, strength[src], 1.0)
    dangling = strength == 0
    rank = restart.copy()
    for _ in range(iterations):
        spread = np.bincount(dst, weights=rank[src] * share, minlength=size)
        nxt = (1 - damping) * restart + damping * (spread + rank[dangling].sum() * restart)
        delta = float(np.abs(nxt - rank).sum())
        rank = nxt
        if delta < tolerance:
            break
    return {node: float(rank[i]) for node, i in index.items()}


def coverage(question_terms: list[str], text: str) -> float:
    """Share of the question's content words that the text holds."""
    if not question_terms:
        return 0.0
    have = set(terms(text))
    return sum(1 for t in set(question_terms) if t in have) / len(set(question_terms))
