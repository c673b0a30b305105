"""The retry of work left pending while the models were down: chunks embedded and extracted
pass after pass, through one vault's model calls (ingest/modelcalls.py).

A pass reads at most ``RETRY_PASS`` pending chunks (held in memory), embeds the unembedded
ones first — search needs them, and a chat model that is missing must not keep them waiting —
a slice at a time, each stored as it comes, then extracts the others chunk by chunk. A model
that fails leaves the rest pending for the next retry; one that answers garbage for some texts
(ingest/modelcalls.py) leaves theirs pending, stamped (chunks_refused_stamp.cypher): read after
the others, asked again by a background pass only once the model's back-off is over, and once
a run of ``retry_all`` (as are chunks stamped where a write or ``reembed`` met the refusal, and
entity names, ingest/similar.py). Each takes the vault's ``ModelCalls``:
``retry.retry_all(ingestor.models)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from knotwork.graph.queries.writes import (
    CHUNK_PENDING,
    CHUNKS_ERRORS_PENDING,
    CHUNKS_PENDING,
    CHUNKS_REFUSED_STAMP,
)
from knotwork.ingest import owed
from knotwork.ingest.changes import Progress
from knotwork.ingest.modelcalls import MODEL_BACKOFF_S
from knotwork.models import Chunk, embed_text, now_ms
from knotwork.plural import counted

if TYPE_CHECKING:  # modelcalls.py imports nothing from here: only its type is needed
    from knotwork.ingest.modelcalls import ModelCalls

RETRY_PASS = 10_000  # pending chunks read (and held in memory) by one pass of a retry


@dataclass
class Retried:
    """What ``retry_all`` did, and what it left."""

    embedded: int = 0
    extracted: int = 0
    pending: int = 0  # chunks still waiting after the last pass
    failed: int = 0  # chunks asked whose extraction is now recorded as an error
    model_down: bool = False  # they wait because a model did not answer
    warnings: list[str] = field(default_factory=list)  # extractions postponed or failed, why


async def errors_pending(models: ModelCalls) -> int:
    """Put the chunks whose extraction is recorded as an error back to pending, tries
    counted from none (a model or context since changed may do them); how many."""
    [row] = await models.core.store.write(CHUNKS_ERRORS_PENDING, vault=models.vault)
    return int(row["updated"])


async def _embeddings_waiting(models: ModelCalls) -> int:
    """Chunks still waiting for an embedding, refused ones among them."""
    return (await owed.read(models.core.store, models.vault, ["embedding"])).embeddings


async def retry_all(models: ModelCalls, progress: Progress | None = None) -> Retried:
    """``retry_pending`` pass after pass (each reads at most ``RETRY_PASS`` chunks) until
    no chunk is pending or a pass does nothing: the model is down, or what is left is
    nothing a retry can do. One pass at least: it also links new entities. A model let be
    during the run (down, or answering garbage to every request) is not asked again by its
    next passes: said once, not once a pass."""
    out = Retried(pending=(await owed.owed(models)).chunks)
    began = now_ms()  # a text refused by one of its passes is not asked again by the next
    first = True
    while True:
        embedded, extracted = await retry_pending(
            models,
            RETRY_PASS,
            ask_again=first,
            progress=progress,
            warnings=out.warnings,
            asked_before=began,
            tally=out,
        )
        out.pending = (await owed.owed(models)).chunks
        out.embedded, out.extracted = out.embedded + embedded, out.extracted + extracted
        first = False
        if not out.pending or not (embedded or extracted):
            break
    out.model_down = bool(out.pending) and models.down
    return out


async def retry_pending(
    models: ModelCalls,
    limit: int = RETRY_PASS,
    *,
    ask_again: bool = True,
    progress: Progress | None = None,
    warnings: list[str] | None = None,
    asked_before: int | None = None,
    tally: Retried | None = None,
) -> tuple[int, int]:
    """Embed and extract chunks left pending while Ollama was down: (embedded, extracted).

    An explicit retry (``ask_again``) asks a model in its back-off too; the watcher's
    periodic one waits each model's back-off out (the other's work goes on) and does
    nothing when no chunk is pending. A chunk (or entity name) whose text the model refused
    at or after ``asked_before`` (milliseconds since the epoch) is not asked again: by default,
    an explicit retry asks every one, a periodic one those refused before the model's back-off.
    ``progress`` is told of each slice embedded and each chunk extracted; ``warnings``
    gets why an extraction was postponed or failed, ``tally`` the chunks that failed."""
    if ask_again:
        models.ask_again()
    elif models.chat_down and models.embed_down:
        return 0, 0  # both let be; one model down leaves the other's work going
    read = models.trouble.refusals  # refused vectors are over only if none is refused since
    if asked_before is None:
        asked_before = now_ms() - (0 if ask_again else int(MODEL_BACKOFF_S * 1000))
    rows = await models.core.store.read(
        CHUNKS_PENDING,
        vault=models.vault,
        extract=models.extract_enabled,
        limit=limit,
        asked_before=asked_before,
    )
    need = [r for r in rows if r["embedding_state"] == "pending"]
    # Refused vectors may be over only if none read was refused lately and left to ask later
    # (``held``), and none waits beyond what was read: a read filled (by extractions, say)
    # is followed by a count of the chunks still waiting for an embedding.
    held = any(r["embedding_state"] == "refused" for r in rows)
    full = len(rows) >= limit
    if not need and not held and (not full or not await _embeddings_waiting(models)):
        models.trouble.settled(read, embedded=False)
    if not rows and not ask_again:
        return 0, 0
    embedded = extracted = 0
    todo = [r for r in rows if r["extraction_state"] == "pending"] if models.extract_enabled else []
    total, done = len(need) + len(todo), 0
    if need and models.embed_enabled:  # not another model's graph now (Core.check_manifest)
        await models.core.check_manifest()
    # A slice at a time, each stored as it comes: a failure part-way keeps what came.
    size, refused = models.embed_slice, 0
    for first in range(0, len(need), size):
        part = need[first : first + size]
        texts = [embed_text(r["context"] or r["heading_path"] or "", r["text"]) for r in part]
        vectors = await models.embed(texts, {r["id"]: r["note_path"] for r in part})
        if vectors is None:
            break  # the model is down, or refuses every text: the rest stays pending
        pairs = list(zip(part, vectors, strict=True))
        good = [(r["id"], r["embed_hash"], v) for r, v in pairs if v]
        if bad := [{"id": r["id"], "embed_hash": r["embed_hash"]} for r, v in pairs if not v]:
            refused += len(bad)  # garbage for these texts alone: they stay pending, stamped
            await models.core.store.write(CHUNKS_REFUSED_STAMP, rows=bad, at=now_ms())
        embedded += await models.core.store.set_chunk_embeddings(good) if good else 0
        done += len(part)
        if progress:
            progress(done, total, f"embedded {first + len(part)}/{counted(len(need), 'chunk')}")
    else:  # good vectors for each: when they were all that waited, refused ones are over
        over = need and not refused and not held
        if over and (not full or not await _embeddings_waiting(models)):
            models.trouble.settled(read, embedded=True)
    for i, row in enumerate(todo, 1):
        if models.chat_down:
            break  # the model is let be: the rest stays pending, said by the caller
        if not await _still_pending(models, row["id"], row["hash"]):
            done += 1  # changed since the pass read it: its new chunks wait their turn
            continue
        chunk = Chunk(
            id=row["id"],
            ord=0,
            heading_path=row["heading_path"],
            line_start=row["line_start"],
            line_end=row["line_start"],
            text=row["text"],
            hash=row["hash"],
        )
        got = await models.extract([chunk], row["note_path"])
        extracted += got.done
        if tally is not None:
            tally.failed += got.failed
        if warnings is not None:
            warnings += got.warnings
        done += 1
        if progress:
            progress(done, total, f"extracting facts: chunk {i}/{len(todo)}")
    await models.link_entities(asked_before)  # names refused lately wait as chunks do
    return embedded, extracted


async def _still_pending(models: ModelCalls, chunk_id: str, chunk_hash: str) -> bool:
    """Whether a chunk read for extraction still waits for it (see chunk_pending.cypher)."""
    [row] = await models.core.store.read(CHUNK_PENDING, id=chunk_id, hash=chunk_hash)
    return bool(row["pending"])
