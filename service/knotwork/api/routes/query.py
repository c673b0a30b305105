"""``POST /retrieve``: ranked evidence for a question, with no chat model call."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter
from pydantic import BaseModel, Field

from knotwork.api.deps import Authorized, CoreDep
from knotwork.retrieve import retrieve

router = APIRouter(tags=["query"], dependencies=[Authorized])


class RetrieveRequest(BaseModel):
    question: Annotated[
        str, Field(min_length=1, max_length=2000, examples=["Who does Alice work with?"])
    ]
    top_k: Annotated[int, Field(ge=1, le=50)] = 8


class Citation(BaseModel):
    path: str
    heading: str
    line_start: int
    line_end: int
    score: float
    snippet: str
    retrievers: dict[str, float]


class RetrieveResponse(BaseModel):
    status: str
    citations: list[Citation]
    timings: dict[str, float]
    warnings: list[str]


@router.post(
    "/retrieve",
    response_model=RetrieveResponse,
    summary="Ranked evidence (chunks with note, heading and lines); no model answer",
)
async def retrieve_evidence(body: RetrieveRequest, core: CoreDep) -> RetrieveResponse:
    evidence = await retrieve(core, core.settings.vault_name, body.question, body.top_k)
    return RetrieveResponse(
        status="ok" if evidence.hits else "insufficient_context",
        citations=[
            Citation(
                path=h.path,
                heading=h.heading,
                line_start=h.line_start,
                line_end=h.line_end,
                score=round(h.score, 6),
                snippet=h.text[:300],
                retrievers=h.retrievers,
            )
            for h in evidence.hits
        ],
        timings={k: round(v, 2) for k, v in evidence.timings_ms.items()},
        warnings=evidence.warnings,
    )
