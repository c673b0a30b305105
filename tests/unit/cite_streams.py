"""The check that an answer streamed in pieces reads as the whole answer does, however it is
cut: for the citation tests."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from knotwork.answer.cite import check_citations
from knotwork.answer.cite_stream import CitationStream
from knotwork.retrieve import Hit


def assert_streams_as_whole(
    words: Sequence[str],
    hits: Sequence[Hit],
    sources: Mapping[int, Hit],
    *,
    seed: int,
    rounds: int,
    longest: int,
) -> None:
    """``rounds`` texts of up to ``longest`` random ``words``, each cut at up to three random
    places and fed to a stream: what it sends is what the whole text checked gives."""
    rng = random.Random(seed)
    for _ in range(rounds):
        raw = "".join(rng.choice(words) for _ in range(rng.randint(1, longest)))
        cuts = sorted(rng.sample(range(len(raw) + 1), min(3, len(raw) + 1)))
        pieces = [raw[a:b] for a, b in zip([0, *cuts], [*cuts, len(raw)], strict=True)]
        stream = CitationStream(hits, sources)
        sent = "".join([*(stream.feed(piece) for piece in pieces), stream.close()])
        assert sent == check_citations(raw, hits, sources).text, (raw, pieces)
