"""Request and response bodies of ``/query`` and ``/retrieve``, with their OpenAPI examples."""

from __future__ import annotations

import unicodedata
from dataclasses import asdict
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from knotwork.api.clipped import clipped, clipped_heading
from knotwork.api.cut_markers import answer_text
from knotwork.api.response_examples import QUERY_EXAMPLE, RETRIEVE_EXAMPLE
from knotwork.api.strict import STRICT, IsoDate
from knotwork.redact import redact
from knotwork.retrieve import Evidence, FactRow, Filters, Hit, HopPath, Mode
from knotwork.retrieve.config import DEFAULT_TOP_K, MAX_TOP_K
from knotwork.retrieve.relevance import worded
from knotwork.retrieve.types import bare_tag, vault_folder


def _visible(char: str) -> bool:
    """Not a space, a control or a format character (zero-width space, byte-order mark): a
    question of those alone is blank, though ``str.strip()`` keeps them."""
    kind = unicodedata.category(char)
    return kind[0] != "Z" and kind not in ("Cc", "Cf")


if TYPE_CHECKING:  # answering imports LlamaIndex; the schemas are needed before (tools/list)
    from knotwork.answer.respond import Answer, Cited

Tag = Annotated[str, Field(min_length=1, max_length=100)]


class FiltersIn(BaseModel):
    """Narrow the evidence to notes under a folder, with all these tags, dated in a range."""

    model_config = STRICT

    folder: str | None = Field(
        default=None,
        max_length=500,
        description="vault-relative folder, e.g. `projects` or `projects/2024/`",
    )
    tags: list[Tag] = Field(
        default_factory=list, max_length=20, description="all of them, without `#`"
    )
    date_from: IsoDate | None = Field(default=None, description="notes dated on or after (ISO)")
    date_to: IsoDate | None = Field(default=None, description="notes dated on or before (ISO)")
    trust: Literal["all", "structural"] = Field(
        default="all",
        description="`structural`: only facts written by the parser, no model-extracted ones",
    )

    @field_validator("folder")
    @classmethod
    def _relative_folder(cls, value: str | None) -> str | None:
        """A prefix inside the vault, ending in ``/`` so ``a`` never matches ``ab/``."""
        return vault_folder(value)

    @field_validator("tags")
    @classmethod
    def _bare_tags(cls, value: list[str]) -> list[str]:
        return [bare_tag(t) for t in value]

    @model_validator(mode="after")
    def _ordered_dates(self) -> FiltersIn:
        if self.date_from and self.date_to and self.date_from > self.date_to:
            raise ValueError(f"date_from {self.date_from} is after date_to {self.date_to}")
        return self

    def to_filters(self) -> Filters:
        return Filters(
            folder=self.folder,
            tags=tuple(self.tags),
            date_from=self.date_from,
            date_to=self.date_to,
            trust=self.trust,
        )


MAX_QUESTION = 2000  # characters; MCP's input schemas declare the same bounds


class RetrieveRequest(BaseModel):
    # A misspelled field ("topk", "filter") is a 422, never silently the default; a value of
    # another JSON type ("top_k": "3") is one too.
    model_config = STRICT

    question: str = Field(
        min_length=1, max_length=MAX_QUESTION, examples=["Who does Alice work with?"]
    )
    top_k: int = Field(default=DEFAULT_TOP_K, ge=1, le=MAX_TOP_K, description="hits to return")
    filters: FiltersIn = Field(default_factory=FiltersIn)

    @field_validator("question")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not any(map(_visible, value)):
            raise ValueError("question is blank")
        # "???", "🤔", "…": nothing the notes could be about, yet an embedding all the same,
        # whose cosine might pass the relevance gate and have the model asked about nothing.
        if not worded(value):
            raise ValueError(
                "question holds no words (a letter or a digit): punctuation, symbols or emoji "
                "alone ask nothing"
            )
        return value


class QueryRequest(RetrieveRequest):
    mode: Mode = Field(
        default="normal",
        description="`normal`: every retriever and the model's keywords; `fast`: no model "
        "call before the answer; `retrieve`: ranked evidence only, no model call at all",
    )
    stream: bool = Field(
        default=False, description="answer as Server-Sent Events (also `Accept: text/event-stream`)"
    )


class CitationOut(BaseModel):
    chunk_id: str | None = Field(
        description="the cited chunk: its `id` among the note's chunks; null for a fact of the "
        "note's frontmatter, which no chunk holds, cited by its own line (`line_start`)"
    )
    path: str
    heading: str
    line_start: int
    line_end: int
    score: float
    snippet: str


class RankedCitation(CitationOut):
    retrievers: dict[str, float] = Field(description="each retriever that found it, its score")


class FactOut(BaseModel):
    subject: str
    predicate: str
    object: str
    source: str
    extractor: str
    confidence: float
    line: int | None = Field(description="the line of `source` that states it, if one does")
    chunk_id: str | None = Field(description="the chunk that states it, if one does")


class PathOut(BaseModel):
    nodes: list[str]
    relations: list[str]
    chunk_id: str


class QueryResponse(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [QUERY_EXAMPLE]})

    status: Literal["ok", "insufficient_context", "model_unavailable"]
    answer: str | None = Field(description="null in `retrieve` mode and when the model is down")
    citations: list[CitationOut]
    dropped_citations: list[str] = Field(description="citations the model made up, removed")
    facts: list[FactOut]
    paths: list[PathOut]
    timings: dict[str, float] = Field(description="milliseconds per step")
    warnings: list[str]
    uncited: bool = Field(
        description="true: an `ok` answer that cites none of the retrieved notes (`citations` "
        "is empty); check it against `evidence`"
    )
    evidence: list[RankedCitation] = Field(
        description="when `uncited`: the ranked chunks retrieved for the answer (as "
        "`/retrieve` gives them, snippets cut), to check it by; otherwise empty"
    )


class RetrieveResponse(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [RETRIEVE_EXAMPLE]})

    status: Literal["ok", "insufficient_context"]
    citations: list[RankedCitation]
    facts: list[FactOut]
    paths: list[PathOut]
    timings: dict[str, float]
    warnings: list[str]


def _citation(cited: Cited) -> CitationOut:
    heading = clipped_heading(cited.heading)
    row = {**asdict(cited), "heading": heading, "score": round(cited.score, 6)}
    return CitationOut.model_validate(row)


def ranked(hit: Hit) -> RankedCitation:
    from knotwork.answer.respond import Cited

    return RankedCitation(
        **_citation(Cited.of(hit)).model_dump(),
        retrievers={k: round(v, 6) for k, v in hit.retrievers.items()},
    )


def _fact(f: FactRow) -> FactOut:
    row = asdict(f)
    for key in ("subject", "predicate", "object"):  # a frontmatter value may run to pages
        row[key] = clipped(row[key])
    return FactOut.model_validate(row)


def _path(p: HopPath) -> PathOut:
    # A note's node is its path, whole as paths are: it names the note to read.
    nodes = [node if node.startswith("note:") else clipped(node) for node in p.nodes]
    return PathOut(nodes=nodes, relations=list(p.relations), chunk_id=p.chunk_id)


def _timings(timings: dict[str, float]) -> dict[str, float]:
    return {k: round(v, 2) for k, v in timings.items()}


def query_response(result: Answer) -> QueryResponse:
    return QueryResponse(
        status=result.status,
        answer=answer_text(result),
        citations=[_citation(c) for c in result.citations],
        dropped_citations=[clipped(d) for d in result.dropped_citations],
        facts=[_fact(f) for f in result.facts],
        paths=[_path(p) for p in result.paths],
        timings=_timings(result.timings_ms),
        warnings=[redact(w) for w in result.warnings],
        uncited=bool(result.evidence),
        evidence=[ranked(h) for h in result.evidence],
    )


def retrieve_response(evidence: Evidence, ok: bool) -> RetrieveResponse:
    return RetrieveResponse(
        status="ok" if ok else "insufficient_context",
        citations=[ranked(h) for h in evidence.hits],
        facts=[_fact(f) for f in evidence.facts],
        paths=[_path(p) for p in evidence.paths],
        timings=_timings(evidence.timings_ms),
        warnings=[redact(w) for w in evidence.warnings],
    )


def evidence_event(evidence: Evidence) -> dict[str, Any]:
    """The first event of a streamed answer: what retrieval found."""
    return {
        "citations": [ranked(h).model_dump() for h in evidence.hits],
        "facts": [_fact(f).model_dump() for f in evidence.facts],
        "paths": [_path(p).model_dump() for p in evidence.paths],
        "relevance": round(evidence.relevance, 4),
        "keywords": evidence.keywords,
        "timings": _timings(evidence.timings_ms),
        "warnings": [redact(w) for w in evidence.warnings],
    }
