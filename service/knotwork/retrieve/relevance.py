"""How well evidence answers a question, on a scale that holds for any embedder and language.

Relevance is the higher of two signals: the best dense cosine of the top hits, and the share of
the question's content words they hold (``coverage``). Coverage means the same everywhere; a
cosine does not — an unrelated question scores 0.2 against Italian notes with one model and
0.5 with another. So the vault calibrates it: off-topic probe questions in the vault's languages
(``probes.py``) are retrieved like real ones, and the cosine that nearly all of them stay under
becomes the vault's *floor*, stored per vault and embedding model. A calibrated cosine is
rescaled so that the floor lands on ``KNOTWORK_MIN_RELEVANCE``: the one threshold then means
"more like the notes than an off-topic question is" whatever the model.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from knotwork.errors import EmptyVaultError
from knotwork.graph.queries.admin import CALIBRATION_PUT
from knotwork.graph.queries.reads import VAULT_LANGUAGES
from knotwork.graph.store import GraphStore
from knotwork.retrieve.probes import PROBES
from knotwork.retrieve.rank import coverage, terms
from knotwork.retrieve.types import Hit

RELEVANCE_HITS = 3  # the top hits relevance is read from (a multi-hop answer spans several)
FLOOR_QUANTILE = 0.9  # the share of probes the floor stands above …
FLOOR_MARGIN = 0.02  # … and by how much
MIN_SHARE = 0.1  # a language with this share of the vault's chunks has its probes asked
FLOOR_TTL_S = 60.0  # how long a vault's floor is reused before it is read again


@dataclass(frozen=True)
class Calibration:
    vault: str
    embed_model: str
    floor: float  # the cosine nearly every off-topic probe stays under
    probes: int
    languages: tuple[str, ...]
    probe_cosines: tuple[float, ...]


def parts(question: str, hits: Sequence[Hit]) -> tuple[float, float]:
    """(best dense cosine, coverage) of the top hits."""
    top = hits[:RELEVANCE_HITS]
    dense = max(
        (2 * h.retrievers["vector"] - 1 for h in top if "vector" in h.retrievers), default=0.0
    )
    text = "\n".join(f"{h.title}\n{h.heading}\n{h.text}" for h in top)
    return dense, coverage(terms(question), text)


def rescale(cosine: float, floor: float | None, threshold: float) -> float:
    """A cosine on the calibrated scale: ``floor`` maps to ``threshold``, 1 to 1, linearly."""
    if floor is None or floor >= 1.0:
        return cosine
    return threshold + (cosine - floor) * (1.0 - threshold) / (1.0 - floor)


def relevance(question: str, hits: Sequence[Hit], floor: float | None, threshold: float) -> float:
    """The evidence's relevance in 0..1; see the module's docstring."""
    if not hits:
        return 0.0
    dense, covered = parts(question, hits)
    return round(min(1.0, max(0.0, rescale(dense, floor, threshold), covered)), 4)


async def floor(
    store: GraphStore,
    vault: str,
    embed_model: str,
    memo: dict[str, tuple[float, float | None]] | None = None,
) -> float | None:
    """The vault's calibrated floor for this embedding model, or None (uncalibrated); reused
    from ``memo`` for ``FLOOR_TTL_S``."""
    now = time.monotonic()
    key = f"{vault}\x00{embed_model}"
    if memo is not None and key in memo and now - memo[key][0] < FLOOR_TTL_S:
        return memo[key][1]
    stored = await store.calibration(vault, embed_model)
    value = float(stored["floor"]) if stored else None
    if memo is not None:
        memo[key] = (now, value)
    return value


def floor_of(cosines: Sequence[float]) -> float:
    """The FLOOR_QUANTILE quantile of the probes' cosines, plus FLOOR_MARGIN."""
    if len(cosines) < 2:
        return (cosines[0] if cosines else 0.0) + FLOOR_MARGIN
    cut = statistics.quantiles(cosines, n=100, method="inclusive")[int(FLOOR_QUANTILE * 100) - 1]
    return round(min(0.99, cut + FLOOR_MARGIN), 4)


async def calibrate(
    store: GraphStore,
    vault: str,
    embed_model: str,
    best_cosine: Callable[[str], Awaitable[float]],
) -> Calibration:
    """Ask the probes of the vault's languages, store the floor of their best cosines.

    ``best_cosine`` retrieves a question and returns its evidence's best dense cosine."""
    rows = await store.read(VAULT_LANGUAGES, vault=vault)
    total = sum(int(r["chunks"]) for r in rows)
    if not total:
        raise EmptyVaultError(
            f"vault {vault!r} holds no embedded chunks: ingest it (`knotwork ingest`, with the "
            "embedding model answering), then calibrate"
        )
    # Six languages: one of them always holds at least a sixth of the chunks.
    languages = tuple(sorted(r["language"] for r in rows if int(r["chunks"]) / total >= MIN_SHARE))
    questions = [q for lang in languages for q in PROBES.get(lang, ())]
    cosines = tuple([round(await best_cosine(q), 4) for q in questions])
    result = Calibration(vault, embed_model, floor_of(cosines), len(cosines), languages, cosines)
    await store.write(
        CALIBRATION_PUT,
        vault=vault,
        embed_model=embed_model,
        floor=result.floor,
        probes=result.probes,
        languages=list(languages),
    )
    return result
