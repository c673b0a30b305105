"""Evaluation figures: passage recall@k over distinct notes or sections, answer exact match
and F1, latency percentiles, and the Markdown tables they are reported in. Pure functions, so
they are tested by hand."""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from knotwork.eval.data import heading_leaf, section_key
from knotwork.retrieve.types import Hit
from knotwork.text.keys import nfc


@dataclass
class QuestionResult:
    id: str
    type: str
    unmatched: bool
    recalls: dict[int, float] | None  # k → recall; None when the question has no gold evidence
    latency_ms: float
    ranked: list[str] = field(default_factory=list)  # distinct keys in rank order


@dataclass
class ConfigResult:
    name: str
    retrievers: str  # what was asked of retrieve(), for the table
    results: list[QuestionResult]


@dataclass(frozen=True)
class Summary:
    n: int  # questions with gold evidence
    recall: dict[int, float]  # k → mean recall over those questions
    p50_ms: float
    p95_ms: float


def title_key(titles: dict[str, str] | None) -> Callable[[Hit], str]:
    """A hit's note title: from the corpus mapping (path → title) when there is one; composed
    (NFC), as gold titles and stored titles are."""
    return lambda hit: nfc((titles or {}).get(hit.path, hit.title))


def hit_section(hit: Hit) -> str:
    """A hit's section: its note path and the normalised last part of its heading path."""
    return section_key(hit.path, heading_leaf(hit.heading))


def distinct_keys(hits: Iterable[Hit], key: Callable[[Hit], str]) -> list[str]:
    """Keys in the rank order of each key's best hit; later hits of a key do not count twice."""
    return list(dict.fromkeys(key(hit) for hit in hits))


def recall_at(ranked: Sequence[str], gold: Sequence[str], k: int) -> float | None:
    """Share of the gold keys among the first ``k`` distinct keys; None without gold."""
    wanted = set(gold)
    if not wanted:
        return None
    return len(wanted.intersection(ranked[:k])) / len(wanted)


def percentile(values: Sequence[float], p: float) -> float:
    """The p-th percentile (0-100), interpolated linearly between ranks; NaN when empty."""
    if not values:
        return math.nan
    ordered = sorted(values)
    pos = (len(ordered) - 1) * p / 100.0
    low = math.floor(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def summarise(
    results: Sequence[QuestionResult],
    ks: Sequence[int],
    keep: Callable[[QuestionResult], bool] = lambda r: True,
) -> Summary:
    """Mean recall@k over the kept questions that have gold; latency over all kept ones."""
    kept = [r for r in results if keep(r)]
    scored = [r.recalls for r in kept if r.recalls is not None]
    recall = {k: sum(r[k] for r in scored) / len(scored) if scored else math.nan for k in ks}
    latency = [r.latency_ms for r in kept]
    return Summary(len(scored), recall, percentile(latency, 50), percentile(latency, 95))


def _pct(value: float) -> str:
    return "-" if math.isnan(value) else f"{100 * value:.1f}"


def _ms(value: float) -> str:
    return "-" if math.isnan(value) else f"{value:.0f}"


def recall_table(
    configs: Sequence[ConfigResult],
    ks: Sequence[int],
    keep: Callable[[QuestionResult], bool] = lambda r: True,
) -> str:
    """Configs by recall@k (in %), questions scored, latency p50/p95 in ms."""
    head = ["config", "retrievers", "n", *(f"recall@{k}" for k in ks), "p50 ms", "p95 ms"]
    lines = ["| " + " | ".join(head) + " |", "|---|---|" + "---:|" * (len(head) - 2)]
    for config in configs:
        s = summarise(config.results, ks, keep)
        cells = [config.name, config.retrievers, str(s.n), *(_pct(s.recall[k]) for k in ks)]
        lines.append("| " + " | ".join([*cells, _ms(s.p50_ms), _ms(s.p95_ms)]) + " |")
    return "\n".join(lines)


def _of_type(kind: str) -> Callable[[QuestionResult], bool]:
    return lambda result: result.type == kind


def type_table(configs: Sequence[ConfigResult], ks: Sequence[int]) -> str:
    """recall@k per question type (2WikiMultihopQA's compositional, comparison, …)."""
    types = sorted({r.type for c in configs for r in c.results if r.type})
    head = ["config", "type", "n", *(f"recall@{k}" for k in ks)]
    lines = ["| " + " | ".join(head) + " |", "|---|---|" + "---:|" * (len(head) - 2)]
    for config in configs:
        for kind in types:
            s = summarise(config.results, ks, _of_type(kind))
            cells = [config.name, kind, str(s.n), *(_pct(s.recall[k]) for k in ks)]
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


# Answer metrics, as SQuAD and HotpotQA compute them: lower case, no punctuation, no English
# articles, single spaces; the best score over the gold answers counts.
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = re.compile(r"[^\w\s]")


def normalize_answer(text: str) -> str:
    text = _PUNCT.sub(" ", unicodedata.normalize("NFKC", text).casefold())
    return " ".join(_ARTICLES.sub(" ", text).split())


def exact_match(prediction: str, answers: Sequence[str]) -> float:
    """1 when the normalised prediction equals a normalised gold answer."""
    said = normalize_answer(prediction)
    return float(any(said == normalize_answer(a) for a in answers))


def answer_f1(prediction: str, answers: Sequence[str]) -> float:
    """The best token-overlap F1 of the prediction against the gold answers."""
    said = normalize_answer(prediction).split()
    best = 0.0
    for answer in answers:
        gold = normalize_answer(answer).split()
        common = sum((Counter(said) & Counter(gold)).values())
        if common:
            precision, recall = common / len(said), common / len(gold)
            best = max(best, 2 * precision * recall / (precision + recall))
    return best


def contains_answer(prediction: str, answers: Sequence[str]) -> float:
    """1 when a normalised gold answer appears, word-aligned, in the normalised prediction: a
    sentence that holds the answer scores here where exact match cannot."""
    said = f" {normalize_answer(prediction)} "
    gold = (normalize_answer(a) for a in answers)
    return float(any(f" {g} " in said for g in gold if g))
