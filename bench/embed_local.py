"""Throughput of the in-process embedder (sentence-transformers, all-MiniLM-L6-v2) on this CPU.

Usage (from the repository root, with the local-embed extra installed):
    .venv/bin/python -m bench.embed_local [--texts 500] [--threads 1 2] [--batch 32] [--record]

Embeds generated chunk-sized texts (about KNOTWORK_CHUNK_SIZE characters of prose each) through
``aget_text_embedding_batch``, the call ingest and reembed make, once per thread count after a
warm-up; the best of ``--rounds`` runs is reported, so other load on the machine counts less.
CPU time per text (this process, all threads) is reported beside it: unlike wall time, it hardly
moves when other work shares the cores. Repeat thread counts (``--threads 1 2 1 2``) to interleave.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import time

from bench.common import record
from knotwork.llm.embed_local import SentenceTransformerEmbedding

VOCABULARY = (
    "the project graph note meeting budget review alice bob team design retrieval vector index "
    "thursday plan draft release version customer contract deadline research paper experiment "
    "result summary question answer link chunk heading status role owner milestone risk issue "
    "decision follow-up travel office library garden recipe oven weather train station"
)


def generate(count: int, chars: int, seed: int = 7) -> list[str]:
    """Prose-like texts of about ``chars`` characters: sentences of 8-20 words."""
    rng = random.Random(seed)
    words = VOCABULARY.split()
    texts = []
    for _ in range(count):
        parts: list[str] = []
        size = 0
        while size < chars:
            sentence = " ".join(rng.choice(words) for _ in range(rng.randint(8, 20)))
            parts.append(sentence.capitalize() + ".")
            size += len(parts[-1]) + 1
        texts.append(" ".join(parts)[:chars])
    return texts


async def measure(texts: list[str], threads: int, batch: int, rounds: int) -> tuple[float, float]:
    """Texts per second (best of ``rounds``) and CPU milliseconds per text in that round."""
    embedder = SentenceTransformerEmbedding(
        "all-MiniLM-L6-v2", threads=threads, embed_batch_size=batch
    )
    await embedder.aget_text_embedding_batch(texts[:batch])  # warm-up
    best, best_cpu = float("inf"), 0.0
    for _ in range(rounds):
        start, cpu = time.perf_counter(), time.process_time()
        vectors = await embedder.aget_text_embedding_batch(texts)
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
        if wall < best:
            best, best_cpu = wall, cpu
        assert len(vectors) == len(texts)
    return len(texts) / best, 1000 * best_cpu / len(texts)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--texts", type=int, default=500)
    parser.add_argument("--chars", type=int, default=1200)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--record", action="store_true")
    args = parser.parse_args()

    texts = generate(args.texts, args.chars)
    rows = []
    load_before = os.getloadavg()[0]
    for threads in args.threads:
        rate, cpu_ms = await measure(texts, threads, args.batch, args.rounds)
        print(
            f"threads {threads}: {rate:.1f} texts/s, {1000 / rate:.1f} ms wall, {cpu_ms:.1f} ms CPU"
        )
        rows.append(
            f"| {threads} | {args.batch} | {len(texts)} | {rate:.1f} | {1000 / rate:.1f} "
            f"| {cpu_ms:.1f} |"
        )
    load = f"load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after"
    if args.record:
        record(
            "In-process embeddings, all-MiniLM-L6-v2",
            f".venv/bin/python -m bench.embed_local --texts {args.texts} --chars {args.chars} "
            f"--threads {' '.join(map(str, args.threads))} --batch {args.batch} "
            f"--rounds {args.rounds} --record",
            f"sentence-transformers on CPU, texts of {args.chars} characters (truncated by the "
            f"model at 256 tokens), normalised, best of {args.rounds} runs; {load}.",
            "| torch threads | batch | texts | texts/s | wall ms per text | CPU ms per text |\n"
            "|---:|---:|---:|---:|---:|---:|\n" + "\n".join(rows),
        )


if __name__ == "__main__":
    asyncio.run(main())
