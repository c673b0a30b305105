"""Ranking: reciprocal-rank fusion, personalized PageRank over the retrieved subgraph, and the
relevance score that decides whether the notes hold enough to answer."""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable

RRF_K = 60  # the usual reciprocal-rank-fusion constant
_WORD = re.compile(r"\w+")

# Words too common to say whether a passage is about the question (six languages).
_STOP_TEXT = """
the a an and or of to in on at for by with from is are was were be been being this that these
those it its as do does did what which who whom whose when where why how not no yes can could
would should will shall may might must has have had there their they them he she his her him
we our you your i me my than then so if but about into over under after before between
il lo la i gli le un una uno e o di da del della dei delle in su per con tra fra che chi cosa
come quando dove perché non è sono era erano ha hanno al alla ai alle nel nella
der die das ein eine einer und oder von zu im in auf für mit aus ist sind war waren hat haben
wer was wann wo wie warum nicht dem den des
le la les un une et ou de du des en dans sur pour par avec est sont était qui que quoi quand
où comment pourquoi ne pas au aux ce cette
el la los las un una y o de del en sobre para por con es son era qué quién cuándo dónde cómo
por qué no al lo
o a os as um uma e ou de do da dos das em no na sobre para por com é são era que quem quando
onde como porque não ao
"""
STOPWORDS = frozenset(_STOP_TEXT.split())


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
