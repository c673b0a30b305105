"""A drafted batch's new chunks embedded: the stage between drafting (ingest/states.py) and
resolving names (ingest/resolve.py), asking nothing of the graph but the manifest.

Every draft's fresh chunks go to the model in one call (ingest/modelcalls.py slices it). A
model down leaves them all pending; garbage for some texts alone, the others answered, leaves
only theirs, each marked with when it was refused, so the write stores it stamped
(chunks_write.cypher) and a background pass leaves it to the model's back-off rather than
asking it again at once. Garbage for every text of the call (a model of another size, say) is
the model's trouble, no text's: nothing is stamped, and the next pass asks again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from knotwork.ingest import draft as drafting
from knotwork.ingest import waiting
from knotwork.ingest.changes import Drafted
from knotwork.ingest.modelcalls import EmbedProgress
from knotwork.models import now_ms

if TYPE_CHECKING:  # ingestor.py calls this as its ``embed`` stage
    from knotwork.ingest.ingestor import Ingestor


async def embed(
    ingestor: Ingestor, drafted: Drafted, progress: EmbedProgress | None = None
) -> Drafted:
    """The drafts' new chunks embedded, or left pending with a warning; see ``Ingestor.embed``."""
    drafts, outcomes, models = drafted.drafts, drafted.outcomes, ingestor.models
    fresh = {path: d.fresh() for path, d in drafts.items()}
    chunks = [c for cs in fresh.values() for c in cs]
    if not chunks:
        return drafted
    if ingestor.embed_enabled:
        await ingestor.core.check_manifest()
    owners = {c.id: path for path, cs in fresh.items() for c in cs}  # counted if it fails
    vectors = await models.embed(drafting.embed_inputs(chunks), owners, progress)
    if vectors is None and not ingestor.embed_enabled:
        return drafted
    found = dict(zip([c.id for c in chunks], vectors or [None] * len(chunks), strict=True))
    by_path = {o.path: o for o in outcomes}
    # The model answered other texts of the call: it refuses these, waiting says nothing.
    refused = any(v is not None for v in vectors or ())
    at = now_ms()
    for path, cs in fresh.items():
        draft = drafts[path]
        draft.vectors = {c.id: v for c in cs if (v := found[c.id]) is not None}
        if refused:  # only when it answered others: garbage for all is the model's trouble
            draft.refused_at = {c.id: at for c in cs if c.id not in draft.vectors}
        outcome = by_path[path]
        outcome.embedded = len(draft.vectors)
        if left := len(cs) - outcome.embedded:  # the model down, or garbage for these texts
            outcome.models_down = vectors is None  # down: their extraction waits too
            outcome.waits_for.append(models.embed_failed)
            outcome.warnings.append(
                f"{path}: {models.embed_failed}; "
                f"{waiting.left_pending(left, ingestor.finisher, refused=refused)}"
            )
    return drafted
