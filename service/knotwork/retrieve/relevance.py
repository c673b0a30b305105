"""How well evidence answers a question, on a scale that holds for any embedder and language.

Relevance is the higher of two signals: the best dense cosine of the top hits, and the share of
the question's content words they hold (``coverage``). Coverage means the same everywhere; a
cosine does not — an unrelated question scores 0.2 against Italian notes with one model and
0.5 with another. So the vault calibrates it: off-topic probe questions in the vault's languages
(``probes.py``) are retrieved like real ones, and the cosine that nearly all of them stay under
becomes the vault's *floor*, stored per vault and embedding model. A calibrated cosine is
rescaled so that the floor lands on ``KNOTWORK_MIN_RELEVANCE``: the one threshold then means
"more like the notes than an off-topic question is" whatever the model.

The floor stands above the probes by their own spread (``FLOOR_SPREAD`` standard deviations
over their mean), not by a fixed margin over a quantile: models spread unrelated cosines
differently (the standard deviation of USE multilingual's probes is 0.03 to 0.08), and a real
off-topic question nearer the vault's world than an everyday probe scores towards the top of
that spread — a quantile plus 0.02 put the floor below such questions and so let through more
than the raw threshold did. The top tenth of the probes is left out first: a vault may answer
a probe or two (a cooking vault), which must not lift the floor.

Coverage is of the words a question is about: those it is asked with — its question words,
pronouns and auxiliaries, "take place" or "fand … statt" — are no subject a note writes
(``rank.asked``, text/asking.py), in any language. It counts a word by where the top hits hold
it. A word in a hit's title, in an alias of its note (frontmatter ``aliases``) or in its
heading names what the passage is about and counts in full. A word only in a hit's body may
be there by chance — course notes say "avendo cura di", a travel note walks "lungo il fiume" —
so it counts by the larger of two shares: how far the cosine clears the vault's probes (none
at the cosine they score on average, their mean, stored beside the floor; all from the floor
up; in proportion between), and how much of the question the hits hold (chance seldom holds
most of it; a hashing or lexical embedder's cosine says little more than the words do). At
a probe's cosine, coverage by body words alone is thus squared: one word of two, 0.25. How
common a word is in the vault does not tell chance from subject: the Italian notes hold
"cura" in 2 of 185 notes and "fiume" in 1, while "levain", which a French bread vault's
question needs, is in 5 of its 14 (bench/RESULTS.md). Uncalibrated, or calibrated before the
mean was stored, or with no cosine among the top hits, body words count in full.

A question whose only content is a relative time ("What did I do yesterday?", "Was ist gestern
passiert?") leaves no word to cover once its asking and time words are gone, and its cosine to
a journal entry is low: the date is the whole question. When a top hit is of a note the
temporal retriever found dated in that time, the evidence answers it in full (``dated_only``);
a question that asks anything more is judged by its words as ever, and one whose time no
note is dated in keeps its cosine alone.

A question of no letter or digit at all ("???", "🤔") is about nothing: its relevance is 0,
whatever cosine its embedding scores (the API refuses it before, as it refuses a blank one).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from knotwork.errors import EmptyVaultError
from knotwork.graph.queries.admin import CALIBRATION_PUT
from knotwork.graph.queries.reads import VAULT_LANGUAGES
from knotwork.graph.store import GraphStore
from knotwork.retrieve.probes import PROBES
from knotwork.retrieve.rank import asked, coverage, terms
from knotwork.retrieve.temporal import time_words
from knotwork.retrieve.types import Hit

RELEVANCE_HITS = 3  # the top hits relevance is read from (a multi-hop answer spans several)
FLOOR_TRIM = 0.1  # the top share of the probes left out (questions the vault may answer) …
FLOOR_SPREAD = 3.0  # … and how many standard deviations of the rest it stands over their mean
FLOOR_MARGIN = 0.02  # at least this far
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
    probe_mean: float  # the cosine they score on average (less their top tenth)


class Scale(NamedTuple):
    """A vault's calibration as the gate reads it."""

    floor: float
    probe_mean: float | None  # None: calibrated before the mean was stored


def top_cosine(hits: Sequence[Hit]) -> float | None:
    """The best dense cosine of the top hits; None when none of them came with one."""
    top = hits[:RELEVANCE_HITS]
    cosines = [2 * h.retrievers["vector"] - 1 for h in top if "vector" in h.retrievers]
    return max(cosines) if cosines else None


def _names(hit: Hit) -> str:
    """What names a hit's passage: its note's title and aliases, and its heading."""
    return "\n".join((hit.title, *hit.aliases, hit.heading))


def parts(question: str, hits: Sequence[Hit]) -> tuple[float, float]:
    """(best dense cosine, coverage) of the top hits, every held word counted in full."""
    top = hits[:RELEVANCE_HITS]
    text = "\n".join(f"{_names(h)}\n{h.text}" for h in top)
    cosine = top_cosine(hits)
    return (0.0 if cosine is None else cosine), coverage(asked(question), text)


def held(question: str, hits: Sequence[Hit]) -> tuple[int, int, int]:
    """(the question's content words, those the top hits' titles, aliases or headings hold,
    those only their text holds)."""
    top = hits[:RELEVANCE_HITS]
    about = set(asked(question))
    named = about & set(terms("\n".join(_names(h) for h in top)))
    body = (about - named) & set(terms("\n".join(h.text for h in top)))
    return len(about), len(named), len(body)


def worded(question: str) -> bool:
    """Whether the question holds a word at all: a letter or a digit, in any script."""
    return any(char.isalnum() for char in question)


def dated_only(question: str, hits: Sequence[Hit]) -> bool:
    """Whether the question asks for a relative time alone — no content word left once its
    asking and time words are gone — and a top hit is of a note dated then (the temporal
    retriever ranks only those)."""
    top = hits[:RELEVANCE_HITS]
    return (
        any("temporal" in h.retrievers for h in top)
        and not asked(question)
        and bool(time_words(question))
    )


def body_weight(cosine: float | None, scale: Scale | None, share: float) -> float:
    """How much a word held only in a hit's text counts: the larger of ``share`` (of the
    question's words the hits hold) and how far the cosine clears the probes (0 at their mean,
    1 at the floor and above, linearly between); 1 when either is not known."""
    if cosine is None or scale is None or scale.probe_mean is None:
        return 1.0
    low, high = scale.probe_mean, scale.floor
    if high <= low:
        return 1.0 if cosine >= high else share
    return max(share, min(1.0, max(0.0, (cosine - low) / (high - low))))


def rescale(cosine: float, floor: float | None, threshold: float) -> float:
    """A cosine on the calibrated scale: ``floor`` maps to ``threshold``, 1 to 1, linearly."""
    if floor is None or floor >= 1.0:
        return cosine
    return threshold + (cosine - floor) * (1.0 - threshold) / (1.0 - floor)


def relevance(question: str, hits: Sequence[Hit], scale: Scale | None, threshold: float) -> float:
    """The evidence's relevance in 0..1; see the module's docstring."""
    if not hits or not worded(question):
        return 0.0
    if dated_only(question, hits):  # the date is the whole question, and the hit is dated then
        return 1.0
    cosine = top_cosine(hits)
    about, named, body = held(question, hits)
    share = (named + body) / about if about else 0.0
    covered = (named + body_weight(cosine, scale, share) * body) / about if about else 0.0
    dense = rescale(0.0 if cosine is None else cosine, scale.floor if scale else None, threshold)
    return round(min(1.0, max(0.0, dense, covered)), 4)


async def scale(
    store: GraphStore,
    vault: str,
    embed_model: str,
    memo: dict[str, tuple[float, tuple[float, float | None] | None]] | None = None,
) -> Scale | None:
    """The vault's calibration for this embedding model, or None (uncalibrated); reused from
    ``memo`` for ``FLOOR_TTL_S``."""
    now = time.monotonic()
    key = f"{vault}\x00{embed_model}"
    if memo is not None and key in memo and now - memo[key][0] < FLOOR_TTL_S:
        kept = memo[key][1]
        return Scale(*kept) if kept else None
    stored = await store.calibration(vault, embed_model)
    value = None
    if stored:
        mean = stored["probe_mean"]
        value = Scale(float(stored["floor"]), None if mean is None else float(mean))
    if memo is not None:
        memo[key] = (now, value)
    return value


def _kept(cosines: Sequence[float]) -> list[float]:
    """The probes' cosines less their top FLOOR_TRIM (at least one): 2 or more of 3 or more."""
    return sorted(cosines)[: len(cosines) - max(1, int(len(cosines) * FLOOR_TRIM))]


def floor_of(cosines: Sequence[float]) -> float:
    """The mean of the probes' cosines less their top FLOOR_TRIM (at least one), plus
    FLOOR_SPREAD of their standard deviations (at least FLOOR_MARGIN)."""
    if len(cosines) < 3:
        return round(min(0.99, max(cosines, default=0.0) + FLOOR_MARGIN), 4)
    kept = _kept(cosines)
    spread = FLOOR_SPREAD * statistics.stdev(kept)
    return round(min(0.99, statistics.mean(kept) + max(spread, FLOOR_MARGIN)), 4)


def mean_of(cosines: Sequence[float]) -> float:
    """The mean of the probes' cosines less their top FLOOR_TRIM: the cosine an off-topic
    question scores on average (all of them when fewer than 3), never above the floor."""
    kept = _kept(cosines) if len(cosines) >= 3 else list(cosines)
    return round(min(statistics.fmean(kept) if kept else 0.0, floor_of(cosines)), 4)


async def calibrate(
    store: GraphStore,
    vault: str,
    embed_model: str,
    best_cosine: Callable[[str], Awaitable[float]],
    progress: Callable[[int, int], None] | None = None,
) -> Calibration:
    """Ask the probes of the vault's languages, store the floor of their best cosines.

    ``best_cosine`` retrieves a question and returns its evidence's best dense cosine;
    ``progress`` is told (probes asked, of how many) before each probe and at the end."""
    rows = await store.read(VAULT_LANGUAGES, vault=vault)
    total = sum(int(r["chunks"]) for r in rows)
    if not total:
        raise EmptyVaultError(
            f"vault {vault!r} holds no embedded chunks: ingest it (`knotwork ingest`, with the "
            "embedding model answering), then calibrate"
        )
    # Ten languages: one of them always holds at least a tenth of the chunks (MIN_SHARE).
    languages = tuple(sorted(r["language"] for r in rows if int(r["chunks"]) / total >= MIN_SHARE))
    questions = [q for lang in languages for q in PROBES.get(lang, ())]
    asked: list[float] = []
    for question in questions:
        if progress is not None:
            progress(len(asked), len(questions))
        asked.append(round(await best_cosine(question), 4))
    if progress is not None:
        progress(len(asked), len(questions))
    cosines = tuple(asked)
    result = Calibration(
        vault, embed_model, floor_of(cosines), len(cosines), languages, cosines, mean_of(cosines)
    )
    await store.write(
        CALIBRATION_PUT,
        vault=vault,
        embed_model=embed_model,
        floor=result.floor,
        probe_mean=result.probe_mean,
        probes=result.probes,
        languages=list(languages),
    )
    return result
