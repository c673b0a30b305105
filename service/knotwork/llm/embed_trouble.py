"""The embedding model's trouble with a vault, one for the whole process that writes it: the
model out of reach (``down``), or answering vectors that cannot be stored (``refused``). The
server makes an ingestor for each note write, beside its syncs and its background passes, and
a watcher writes changes beside its passes: each has its own model calls, and all meet the
same trouble, held by the core (``Core.embed_trouble``), so it is said (and what waits counted)
as it begins and as it ends, not once a writer.

The model out of reach is back at its first good answer. Vectors that cannot be stored may be
a few texts' (a zero vector): good vectors for other texts say nothing of them, so that trouble
ends only when a pass over the pending chunks has good vectors for every chunk that waits for
an embedding, or finds none waiting any more, twice in a row (``settled``): a write refused
meanwhile stores its chunks pending only after the refusal."""

from __future__ import annotations

from dataclasses import dataclass, field

from knotwork.outage import Outage


def _refused() -> Outage:
    return Outage(
        "the embedding model",
        remind_s=None,
        trouble="answers vectors that cannot be stored",
        until="it answers good ones",
        back="answers good vectors again",
    )


@dataclass
class EmbedTrouble:
    """A vault's embedding trouble, said when it begins and when it ends, at debug level
    between (the passes ask again every period)."""

    down: Outage = field(default_factory=lambda: Outage("the embedding model", remind_s=None))
    refused: Outage = field(default_factory=_refused)
    refusals: int = 0  # vectors refused so far: counted as each is, before it is said
    # The monotonic time before which the model is not asked again, ``down`` (its back-off,
    # ingest/modelcalls.py): a server's next write waits it out as the same write's next call.
    down_until: float = 0.0
    # ``refusals`` as a read last found no chunk waiting for an embedding (``settled``)
    _none_at: int | None = field(default=None, init=False)

    def settled(self, read: int, *, embedded: bool) -> None:
        """A pass over the pending chunks, which read them when ``read`` refusals had come,
        left none waiting for an embedding: having had good vectors for all (``embedded``),
        or finding none (edited, deleted). Refused vectors are over when none was refused
        since; when none waited, only at the second such read, since a write refused before
        the first may not have stored its chunks yet."""
        if self.refused.since is None or read != self.refusals:
            return
        if embedded:
            self.refused.ended(": chunks are embedded again")
        elif self._none_at == read:
            self.refused.ended(back="has no chunk waiting for good vectors any more")
        else:
            self._none_at = read

    def begun(self, since: float) -> Outage | None:
        """The trouble that began at or after ``since`` (monotonic) and stands, if any."""
        for outage in (self.refused, self.down):
            if outage.since is not None and outage.since >= since:
                return outage
        return None
