"""Graph walks in Cypher, all hops in one query: from seed notes or entities along facts,
keeping the path to every node reached so each piece of evidence can say how it was found.

Hops are bounded (facts kept per node, nodes expanded per hop, hub nodes not entered), so a
walk costs the same in a vault of a thousand notes or a hundred thousand.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from knotwork.graph.queries.reads import ENTITY_SIMILAR, WALK_HOPS, WalkScoresRow
from knotwork.graph.store import GraphStore
from knotwork.retrieve.types import HopPath

PER_NODE = 12  # facts followed from one node per hop
MAX_DEGREE = 200  # nodes with more relationships (tags, hubs) are not entered
MAX_FRONTIER = 30  # nodes expanded per hop, nearest discovered first
MAX_REACHED = 30  # notes reached whose best chunk is looked up
SIMILAR_PER_NODE = 5
# How near the question what a walk reached is: "notes" (every chunk of the notes reached:
# path, note, id, ord, score) and "asserting" (the asserting chunks outside them: id, score).
Scores = WalkScoresRow


@dataclass
class Edge:
    a: str  # element ids
    b: str
    weight: float


@dataclass
class Walk:
    """Where a walk went: a parent pointer per node reached, and every edge it saw."""

    names: dict[str, str] = field(default_factory=dict)  # element id → note:<path>/entity:<key>
    parent: dict[str, tuple[str, str, str | None]] = field(
        default_factory=dict
    )  # id → (from, rel, chunk)
    depth: dict[str, int] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)
    # (chunk id, node reached, hops): chunks that assert a walked fact
    asserting: list[tuple[str, str, int]] = field(default_factory=list)
    # id → the heading the link that reached a note names ([[Plan#Budget]]): its section's
    # chunk is the one the walk offers of the note, the one the author pointed at
    anchor: dict[str, str] = field(default_factory=dict)

    def path_to(self, node: str, chunk_id: str) -> HopPath:
        nodes, relations = [self.names[node]], []
        while node in self.parent:
            node, relation, _ = self.parent[node]
            nodes.append(self.names[node])
            relations.append(relation)
        return HopPath(tuple(reversed(nodes)), tuple(reversed(relations)), chunk_id)

    def seed_stated(self) -> set[str]:
        """The asserting chunks that are a seed note's own text: their fact leads out of a
        seed note (hop 0) to the node it reached. (A fact walked against its direction, a
        neighbour's link to the seed, is the neighbour's text.)"""
        own: set[str] = set()
        for chunk_id, node, _ in self.asserting:
            start, relation, _ = self.parent[node]
            if (
                self.depth.get(start) == 0
                and self.names.get(start, "").startswith("note:")
                and not relation.startswith("<-")
            ):
                own.add(chunk_id)
        return own

    def notes_reached(self) -> list[tuple[str, str]]:
        """(element id, path) of every note reached beyond the seeds, nearest first."""
        found = [(n, name[5:]) for n, name in self.names.items() if name.startswith("note:")]
        reached = [f for f in found if self.depth[f[0]] > 0]
        return sorted(reached, key=lambda f: self.depth[f[0]])[:MAX_REACHED]


async def walk(
    store: GraphStore,
    seeds: dict[str, str],
    depth: int,
    extractors: list[str] | None,
    similar_first: bool = False,
    max_mentioned_by: int | None = None,
    seed_chunks: tuple[str, ...] = (),
) -> Walk:
    """Breadth-first from ``seeds`` (element id → name) and the notes of ``seed_chunks`` (read
    in the same query) up to ``depth`` fact hops.

    With ``similar_first`` (the synonym walk), seeds first step to similar entities. Text
    mentions of notes that more than ``max_mentioned_by`` notes mention are not followed.
    """
    found, _ = await walk_scored(
        store,
        seeds,
        depth,
        extractors,
        similar_first,
        max_mentioned_by,
        seed_chunks,
        None,
        (),
        False,
    )
    return found


async def walk_scored(
    store: GraphStore,
    seeds: dict[str, str],
    depth: int,
    extractors: list[str] | None,
    similar_first: bool,
    max_mentioned_by: int | None,
    seed_chunks: tuple[str, ...],
    embedding: list[float] | None,
    words: tuple[str, ...] = (),
    score: bool = True,
) -> tuple[Walk, Scores | None]:
    """``walk``, and with ``score`` what it reached scored against ``embedding`` and
    ``words`` (graphrank.question_stems) in the same query (the rows walk_scores.cypher
    returns for the walk's notes_reached and asserting)."""
    out = Walk(names=dict(seeds), depth=dict.fromkeys(seeds, 0))
    frontier = list(seeds)
    # SIMILAR_TO edges are the embedding model's guesses: a walk of chosen extractors
    # (trust "structural") does not take them.
    if similar_first and frontier and extractors is None:
        rows = await store.read(ENTITY_SIMILAR, ids=frontier, per_node=SIMILAR_PER_NODE)
        for near in rows:
            out.edges.append(Edge(near["from"], near["to"], float(near["cosine"] or 0.0)))
            if near["to"] not in out.names:
                out.names[near["to"]] = near["to_name"]
                out.parent[near["to"]] = (near["from"], "SIMILAR_TO", None)
                out.depth[near["to"]] = 0
                frontier.append(near["to"])
    if not frontier and not seed_chunks:
        return out, None
    [row] = await store.read(
        WALK_HOPS,
        ids=frontier,
        chunk_ids=list(seed_chunks),
        depth=depth,
        extractors=extractors,
        per_node=PER_NODE,
        max_frontier=MAX_FRONTIER,
        max_degree=MAX_DEGREE,
        max_mentioned_by=max_mentioned_by,
        score=score,
        max_reached=MAX_REACHED,
        embedding=embedding,
        words=list(words),
    )
    for seed in row["seeds"]:
        out.names[seed["id"]] = seed["name"]
        out.depth[seed["id"]] = 0
    for step in row["steps"]:
        out.edges.append(Edge(step["from"], step["to"], float(step["confidence"] or 1.0)))
        relation = step["type"] if step["outgoing"] else f"<-{step['type']}"
        if step["to"] in out.names:
            continue
        out.names[step["to"]] = step["to_name"]
        out.parent[step["to"]] = (step["from"], relation, step["chunk_id"])
        out.depth[step["to"]] = step["hop"]
        if step["heading"]:
            out.anchor[step["to"]] = step["heading"]
        if step["chunk_id"]:  # the chunk that states the fact which led here
            out.asserting.append((step["chunk_id"], step["to"], step["hop"]))
    return out, row["scores"]
