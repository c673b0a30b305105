"""What one retrieval runs and how it fuses them, as data: which retrievers, the rule that
weighs what the question names, whether PageRank ranks, how many hits seed the walk.

``PRESETS`` names the configurations the evaluation compares (``knotwork eval --configs``):
the full pipeline, the text baselines, and the ablations — the full pipeline less one part.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from knotwork.retrieve.types import RETRIEVERS

# Ranked chunks of evidence a question gets, unless it asks for another number, and at most:
# REST, MCP, the command line, the LlamaIndex retriever and the evaluation all take these.
DEFAULT_TOP_K = 8
MAX_TOP_K = 50

# The order the fusion reads the rankings in (the seed searches, then the walks): fused scores
# are float sums, so this order is part of the result, as are the retrievers of each hit.
FUSION_ORDER = ("vector", "fulltext", "names", "temporal", "graph", "synonym")
WALK_SEEDS = 5  # top fused chunks whose notes seed the graph walk
# What the question names outweighs what merely resembles it: a named note, and the walk from
# named notes, count this many times their name's specificity in the fusion.
NAMED_FUSION_WEIGHT = 2.0
# … and as much of the question as the names make up: a name that holds under this share of
# the question's content words counts that much less ("… such as uploading PDFs and generating
# embeddings?" names `embeddings.md` in passing; "Who directed Blind Shaft?" is about its name).
NAMED_SHARE_FULL = 0.25
MIN_SPECIFICITY = 0.5  # below this a name is generic: not taken as named, its mentions not walked
# Lacking named notes, the walk starts at the best hits' notes. Where it leads is a guess (a
# page's neighbours are rarely what a question about that page asks): its ranking (its starting
# hits, then their neighbours) would reorder what the text found, so it has no vote; it still
# explains the hits it reaches and gives PageRank its edges. PageRank over the hits' notes keeps
# a quarter, a tie-breaker (chunks of one note lift each other a little).
HITS_WALK_WEIGHT = 0.0
HITS_PPR_WEIGHT = 0.25
NAMED_CHUNKS = 2  # chunks of each named note taken as evidence (search reads more to pick from)
NAMED_FOUND = 4  # … or up to this many of those full text found for the question
# Dense retrieval ranks a chunk by its own cosine to the question and, this share of the way,
# by its note's (the note vector: the mean of the note's chunk vectors).
NOTE_SHARE = 0.35
# Rankings that vote in the fusion by their scores' spacing, not by their places (rank.rrf):
# full text, whose scores (each hit's share of its index's best BM25) say how far a weak
# match of one or two common words is behind a strong one. Cosines are not spaced: USE's
# sit within a few hundredths of each other, so their spacing is noise.
SPACED = frozenset({"fulltext"})


@dataclass(frozen=True)
class RetrievalConfig:
    """One retrieval's retrievers and fusion. Every retriever counts once in the fusion but
    ``names``, ``graph`` and PageRank's ranking (``ppr``): see ``weights``."""

    retrievers: frozenset[str] = frozenset(RETRIEVERS)
    ppr: bool | None = None  # personalized PageRank joins the fusion; None: the setting
    walk_seeds: int = WALK_SEEDS
    named_fusion_weight: float = NAMED_FUSION_WEIGHT
    hits_walk_weight: float = HITS_WALK_WEIGHT
    hits_ppr_weight: float = HITS_PPR_WEIGHT
    min_specificity: float = MIN_SPECIFICITY
    named_chunks: int = NAMED_CHUNKS
    named_found: int = NAMED_FOUND
    note_share: float = NOTE_SHARE
    spaced: frozenset[str] = SPACED
    named_share_full: float = NAMED_SHARE_FULL

    def __post_init__(self) -> None:
        if unknown := self.retrievers - set(RETRIEVERS):
            raise ValueError(f"unknown retrievers {sorted(unknown)}; known: {RETRIEVERS}")

    def weights(self, named_specificity: float, share: float = 1.0) -> dict[str, float]:
        """Fusion weights, given the specificity of the most specific note the question names
        (0 when it names none) and the share of the question's content words the names hold
        (``share``; whole from ``named_share_full`` up): the graph's say (``names``, the walk
        ``graph``, PageRank ``ppr``) follows what the question names; naming nothing, the
        walk from the best hits has ``hits_walk_weight`` and PageRank ``hits_ppr_weight``: the
        graph may break ties among text matches, never lead them."""
        named = self.named_fusion_weight * named_specificity
        if self.named_share_full > 0:
            named *= min(1.0, share / self.named_share_full)
        return {
            "names": named,
            "graph": max(named, self.hits_walk_weight),
            "ppr": max(named, self.hits_ppr_weight),
        }

    def without(self, part: str) -> RetrievalConfig:
        """This configuration less one retriever, less PageRank (``"ppr"``), or less the
        note vector's share in dense retrieval (``"note-vector"``)."""
        if part == "ppr":
            return replace(self, ppr=False)
        if part == "note-vector":
            return replace(self, note_share=0.0)
        if part not in self.retrievers:
            raise ValueError(f"{part!r} is not among {sorted(self.retrievers)}")
        return replace(self, retrievers=self.retrievers - {part})

    @property
    def label(self) -> str:
        """What a report calls it: ``fulltext+vector + PPR``."""
        return "+".join(sorted(self.retrievers)) + (" + PPR" if self.ppr else "")


DEFAULT = RetrievalConfig()  # every retriever, PageRank as KNOTWORK_PPR says
FULL = RetrievalConfig(ppr=True)
PRESETS: dict[str, RetrievalConfig] = {
    "dense": RetrievalConfig(retrievers=frozenset({"vector"}), ppr=False),
    "fulltext": RetrievalConfig(retrievers=frozenset({"fulltext"}), ppr=False),
    "hybrid": RetrievalConfig(retrievers=frozenset({"vector", "fulltext"}), ppr=False),
    "full": FULL,
    **{f"no-{part}": FULL.without(part) for part in (*RETRIEVERS, "ppr", "note-vector")},
}
ABLATIONS = tuple(name for name in PRESETS if name.startswith("no-"))
