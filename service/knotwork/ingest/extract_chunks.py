"""A note's chunks through the chat model, one at a time, each result recorded on its chunk
(``ModelCalls.extract``): the facts and entities the chunk states (ingest/grounding.py), or why
none came and whether the chunk waits for a retry (``pending``) or failed for good (``error``).

A call that failed, or an answer that does not fit, is the chunk's own only if the model does
its own short request (``PROBE_TEXT``) right: a model that refuses every request, or answers
garbage to every one, is a model or setting to fix; it blames no chunk, is let be for
``MODEL_BACKOFF_S`` and the chunk stays pending for `knotwork retry`.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from knotwork.graph.queries.writes import CHUNK_EXTRACTION_TRIED
from knotwork.ingest import extract, grounding, write
from knotwork.ingest.draft import entity_rows
from knotwork.ingest.rows import fact_rows
from knotwork.models import Chunk, Fact
from knotwork.plural import counted

if TYPE_CHECKING:  # modelcalls.py imports this module
    from knotwork.ingest.modelcalls import ModelCalls

log = logging.getLogger(__name__)
# Calls about one chunk refused for the request itself (a prompt too long) before its extraction
# is recorded as an error (cypher/chunk_extraction_tried.cypher): the first, since the model
# refuses the same request on every retry. A time-out, a model down, a 5xx or a 429 counts none.
MAX_EXTRACTION_TRIES = 1
# In a warning "<note>: extraction postponed: <why>": the model down, the chunk left pending
# (the background passes say these once while the model stays down, ingest/model_work.py).
POSTPONED = ": extraction postponed: "
# Why a chunk waits when the model answered garbage to its probe too.
GARBAGE_ALWAYS = "the model answers garbage to every request, a short probe too: "


@dataclass
class Extracted:
    """What extracting some chunks of a note gave."""

    done: int = 0  # chunks whose extraction was recorded
    failed: int = 0  # chunks whose extraction is now recorded as an error
    facts: Counter[str] = field(default_factory=Counter)  # facts asserted, by extractor
    warnings: list[str] = field(default_factory=list)


async def extract_chunks(
    models: ModelCalls, chunks: list[Chunk], path: str, tick: Callable[[], None] | None = None
) -> Extracted:
    """Ask the model about each chunk of note ``path`` and record each result; ``tick`` is
    called as each chunk's model call returns (a progress bar's step)."""
    out = Extracted()
    if not models.extract_enabled:
        return out
    llm_model = models.core.settings.llm_model
    for chunk in chunks:
        if models.chat_down:
            out.warnings.append(f"{path}{POSTPONED}model unavailable")
            break
        llm = await models.core.load_llm()  # built off the event loop on first use
        result = await extract.extract_chunk(llm, chunk.heading_path, chunk.text)
        if tick is not None:
            tick()
        error = result.error or ""
        if result.extraction is None and error.startswith("model call failed"):
            # A refusal is the chunk's own only if the model answers others: one that
            # refuses every request (a wrong model, a schema it cannot take) is a setting
            # to fix, and counts against no chunk.
            own = result.refused and await extract.answers(llm)
            await _tried(models, chunk, path, error, own, out)
            continue
        if result.extraction is None and not await extract.makes_sense(llm):
            await _tried(models, chunk, path, GARBAGE_ALWAYS + error, False, out)
            continue
        facts: list[Fact] = []
        rows: list[dict[str, Any]] = []
        kept = result.extraction
        if kept is not None:
            title = PurePosixPath(path).stem
            found = grounding.grounded(kept, chunk.heading_path, chunk.text, title)
            kept = found.extraction
            if found.dropped:  # one line a chunk, however many: a model making up names
                log.warning(
                    "%s: dropped %s and %s that the model gave for the chunk at line %d but "
                    "its text does not name",
                    path,
                    counted(found.entities_dropped, "entity", "entities"),
                    counted(found.triples_dropped, "fact"),
                    chunk.line_start,
                )
            facts = extract.llm_facts(kept, chunk.id, chunk.line_start, llm_model)
            rows = entity_rows(chunk.id, kept)
        else:
            out.warnings.append(f"{path}: extraction failed for a chunk: {result.error}")
        _, entities = fact_rows(facts, path)
        if models.before_write is not None:
            await models.before_write()
        written = await write.write_extraction(
            models.core.store,
            models.vault,
            {
                "id": chunk.id,
                "hash": chunk.hash,
                "extraction": kept.model_dump_json() if kept else None,
                "extraction_model": models.model_tag,
                "extraction_state": "done" if kept else "error",
                "extraction_error": result.error,
            },
            entities,
            rows,
        )
        out.done += int(written and kept is not None)
        out.failed += int(written and kept is None)
        out.facts.update(f.extractor for f in facts)
    return out


async def _tried(
    models: ModelCalls, chunk: Chunk, path: str, error: str, own: bool, out: Extracted
) -> None:
    """A chunk the model gave nothing for: an error when ``own`` (the chunk's request refused),
    else pending, the model let be for a while (one slow or broken for this chunk is for the
    next); `knotwork retry` asks again."""
    if not own:
        models.let_chat_be(garbage=error.startswith(GARBAGE_ALWAYS))
    if models.before_write is not None:
        await models.before_write()
    tried = await models.core.store.write(
        CHUNK_EXTRACTION_TRIED,
        id=chunk.id,
        hash=chunk.hash,
        error=error[:500],
        counted=own,
        max=MAX_EXTRACTION_TRIES,
        model=models.model_tag,
    )
    failed = bool(tried) and tried[0]["state"] == "error"
    out.failed += int(failed)
    out.warnings.append(
        f"{path}: extraction failed for a chunk, the model refused it: {error}"
        if failed
        else f"{path}{POSTPONED}{error}"
    )
