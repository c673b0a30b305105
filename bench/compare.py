"""Knotwork beside LlamaIndex's PropertyGraphIndex on Neo4jPropertyGraphStore, interleaved.

Usage (from the repository root, after scripts/bootstrap; ``pip install -e '.[bench]'`` for --plot):
    .venv/bin/python -m bench.compare [--notes 1000 10000] [--folder PATH ...] [--rounds 2]
        [--warmup 0] [--updates 20] [--max-rss-gb G] [--timeout S] [--plot bench/compare.png]
        [--record]

What runs: for every workload (bench/ingest.py's generated vault at each ``--notes`` size, then
each ``--folder`` of Markdown), ``--rounds`` rounds of both sides, the database wiped before
every run (every node, constraint and index). The sides take turns going first (Knotwork then
LlamaIndex in the first round, LlamaIndex then Knotwork in the second, …): on a server just
started, whichever runs first also pays for the JVM compiling the server's code. ``--warmup N``
runs N unrecorded rounds of both sides first (ingest, edits, deletes and questions, without
settling), so the figures are a warm server's.
Each side runs in its own process (this module with ``--side``), so its peak RSS is its own,
on a fresh copy of the workload folder. A side whose process holds more than ``--max-rss-gb``
(half the machine's memory by default) or runs longer than ``--timeout`` seconds is stopped and
recorded as not finished, with its memory and time when stopped; the other side and the other
workloads go on.


- Knotwork: ``Ingestor`` + ``sync_vault`` with model extraction off, then (untimed) the write
  rehearsal the watcher runs once its rescan is done (ingest/rehearse.py: its write queries
  planned before the first edit); an edit is ``Ingestor.upsert_path``, a delete
  ``Ingestor.delete``.
- LlamaIndex: one ``Document`` per note (id = path, metadata ``path``), ``SentenceSplitter`` at
  Knotwork's chunk size in characters and no overlap, ``kg_extractors`` =
  ``ImplicitPathExtractor`` + ``WikilinkExtractor`` (below: one ``LINKS_TO`` relation between
  note entities per ``[[link]]``), ``embed_kg_nodes`` left at its default, a ``MockLLM`` that is
  never called. An edit is ``index.refresh_ref_docs([doc])`` (delete_ref_doc + insert inside),
  a delete ``index.delete_ref_doc(path, delete_from_docstore=True)``: what its docs offer.

Both sides embed with the same stand-in and batch size, so embedding costs the same on both and
the figures measure the store path. ``--embedder http`` (the default): the loopback Ollama fake
(tests/fakes/ollama.py, hashing embedder, served by a thread of the side's own process) through
LlamaIndex's ``OllamaEmbedding``; ``--embedder inprocess``: the same hashing function called in
the process (bench/common.py ``HashingEmbedding``), without the HTTP and JSON that take about half
of the Python CPU of a sync with the fake. No model is called.

Measured per side: whole-vault ingest (seconds, notes/s, chunks/s), ``--updates`` scripted edits
and then as many deletes (median and p95; ``--settle`` seconds after the ingest, 60 by default:
edits timed right after a bulk write measure the server's background work, not the edit),
peak RSS of the side's process (VmHWM), and the stale relations after the script: each edit
unlinks one ``[[link]]`` of a note (its text stays) and appends a line linking another note;
each delete removes a note's file. Then ``--questions`` retrievals (median and p95, after three
untimed ones that plan each side's queries): seeded questions naming a note and three words of
its text; Knotwork's ``retrieve(mode="retrieve")`` (its whole pipeline, no model), LlamaIndex's
``VectorContextRetriever`` (its retriever that calls no model; the default adds one that asks
the LLM for synonyms), top 8 on both. The script is seeded, so both sides get the same one. Then
the link relations in the graph are compared with those the final folder asserts, by each
side's own rule: Knotwork's (source note, relation, link key)
against its parser's link facts; LlamaIndex's ``LINKS_TO`` (note, target) pairs against
``wikilink_targets`` of every current file. "stale" = in the graph, asserted by no current note;
"missing" = asserted, not in the graph.

Neo4j: KNOTWORK_NEO4J_URI / KNOTWORK_NEO4J_PASSWORD when set, else a local server (instance
``bench``) started and stopped as in bench/common.py. The database is wiped before every run
(every node, constraint and index): a database that is not empty at the start is refused unless
``--wipe`` is given. The LlamaIndex store needs APOC (the local
server has it). ``--record`` appends the tables to bench/RESULTS.md; ``--plot`` writes a PNG of
ingest cost per note and edit time against the number of notes.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import random
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path, PurePosixPath
from typing import Any

from llama_index.core.graph_stores.types import (
    KG_NODES_KEY,
    KG_RELATIONS_KEY,
    EntityNode,
    Relation,
)
from llama_index.core.schema import BaseNode, MetadataMode, TransformComponent
from llama_index.embeddings.ollama import OllamaEmbedding

from bench.common import (
    EMBEDDER_ENV,
    ROOT,
    HashingEmbedding,
    bench_settings,
    cpu_model,
    embedder_kind,
    record,
    use_bench_embedder,
)
from bench.ingest import generate
from knotwork.ingest.chunk import chunk_note
from knotwork.ingest.facts import split_oversized, structural_facts
from knotwork.ingest.parse import parse_note
from knotwork.settings import Settings
from knotwork.text.keys import link_key
from knotwork.vault.files import list_notes, read_note

SIDES = ("knotwork", "llamaindex")
EMBEDDERS = {
    "http": "the loopback hashing embedder (tests/fakes/ollama.py) through LlamaIndex's "
    "OllamaEmbedding",
    "inprocess": "the same hashing embedder called in the process (bench/common.py "
    "HashingEmbedding, no HTTP)",
}
VAULT = "compare"
LINK_RELATION = "LINKS_TO"
# Knotwork's facts that come from links, as opposed to entities, mentions and extraction.
LINK_EXTRACTORS = ("wikilink", "frontmatter")
KNOTWORK_LINKS = """
MATCH (:Note {vault: $vault})-[r]->(o)
WHERE r.source IS NOT NULL AND r.extractor IN $extractors AND (o:Note OR o:Unresolved)
RETURN r.source AS source, type(r) AS relation, r.target AS target
"""
LLAMAINDEX_LINKS = """
MATCH (s:__Entity__)-[r]->(t:__Entity__)
WHERE type(r) = $relation
RETURN s.name AS source, t.name AS target
"""
_WIKILINK = re.compile(r"!?\[\[([^\[\]]+)\]\]")


# -- the wikilink extractor for LlamaIndex ------------------------------------------------------


def note_name(path: str) -> str:
    """A note's name as links write it: the file name without ``.md``."""
    name = PurePosixPath(path).name
    return name[:-3] if name.lower().endswith(".md") else name


def wikilink_targets(text: str) -> list[str]:
    """The note names ``[[links]]`` in ``text`` point at, in order: no folder, heading, alias."""
    out = []
    for match in _WIKILINK.finditer(text):
        ref = match.group(1).replace("\\|", "|").split("|", 1)[0].split("#", 1)[0].strip()
        if name := note_name(ref.rsplit("/", 1)[-1]).strip():
            out.append(name)
    return out


class WikilinkExtractor(TransformComponent):
    """One ``LINKS_TO`` relation from a node's note to each note its text links to.

    Built the way LlamaIndex's own path extractors are: it adds ``EntityNode``s and
    ``Relation``s to the node's ``KG_NODES_KEY`` / ``KG_RELATIONS_KEY`` metadata, keeping what
    earlier extractors put there, with the node's metadata as their properties.
    """

    @classmethod
    def class_name(cls) -> str:
        return "WikilinkExtractor"

    def __call__(self, nodes: Sequence[BaseNode], **kwargs: Any) -> Sequence[BaseNode]:
        for node in nodes:
            kg_nodes = node.metadata.pop(KG_NODES_KEY, [])
            kg_relations = node.metadata.pop(KG_RELATIONS_KEY, [])
            properties = node.metadata.copy()
            source = EntityNode(
                name=note_name(str(properties.get("path", node.node_id))), properties=properties
            )
            targets = dict.fromkeys(wikilink_targets(node.get_content(MetadataMode.NONE)))
            if targets:
                kg_nodes.append(source)
            for name in targets:
                target = EntityNode(name=name, properties=properties)
                kg_nodes.append(target)
                kg_relations.append(
                    Relation(
                        label=LINK_RELATION,
                        source_id=source.id,
                        target_id=target.id,
                        properties=properties,
                    )
                )
            node.metadata[KG_NODES_KEY] = kg_nodes
            node.metadata[KG_RELATIONS_KEY] = kg_relations
        return nodes

    async def acall(self, nodes: Sequence[BaseNode], **kwargs: Any) -> Sequence[BaseNode]:
        return self.__call__(nodes, **kwargs)


class LoopSafeOllamaEmbedding(OllamaEmbedding):  # type: ignore[misc]
    """LlamaIndex's Ollama client, its async calls answered by its sync client.

    PropertyGraphIndex runs each insert in a new event loop (``asyncio.run``), and the async
    client's pooled connections belong to the first loop: the second insert fails with "Event
    loop is closed". Same server, same requests, same batches.
    """

    @classmethod
    def class_name(cls) -> str:
        return "LoopSafeOllamaEmbedding"

    async def aget_general_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        vectors: list[list[float]] = self.get_general_text_embeddings(texts)
        return vectors

    async def aget_general_text_embedding(self, prompt: str) -> list[float]:
        vector: list[float] = self.get_general_text_embedding(prompt)
        return vector


# -- the scripted edits and deletes, and what the final folder asserts ---------------------------


@dataclass
class Script:
    """Seeded edits and deletes of a vault folder; the same seed and folder give the same script.

    An edit unlinks one ``[[link]]`` of a note (the link's text stays) and appends a line that
    links to another note; a delete removes a note's file. Each returns the note's path.
    """

    folder: Path
    seed: int = 11
    paths: list[str] = field(init=False)
    rng: random.Random = field(init=False)

    def __post_init__(self) -> None:
        self.paths = list_notes(self.folder)
        self.rng = random.Random(self.seed)

    def edit(self, n: int) -> str:
        path = self.rng.choice(self.paths)
        file = self.folder / path
        text = file.read_text(encoding="utf-8")
        links = list(_WIKILINK.finditer(text))
        if links:
            link = self.rng.choice(links)
            ref, bar, alias = link.group(1).partition("|")
            text = text[: link.start()] + (alias if bar else ref) + text[link.end() :]
        target = note_name(self.rng.choice(self.paths))
        file.write_text(f"{text.rstrip()}\n\nEdit {n}: now works with [[{target}]].\n", "utf-8")
        return path

    def delete(self) -> str:
        path = self.rng.choice(self.paths)
        self.paths.remove(path)
        (self.folder / path).unlink()
        return path


def read_text(folder: Path, path: str) -> str:
    return read_note(folder, path, 1 << 30).text


def knotwork_expected(folder: Path, chunk_size: int = 1200) -> Counter[tuple[str, str, str]]:
    """The (note path, relation, link key) link facts the folder's notes assert, as Knotwork
    parses them (its own parser and fact rules, each fact counted once per assertion)."""
    out: Counter[tuple[str, str, str]] = Counter()
    for path in list_notes(folder):
        note = parse_note(path, read_text(folder, path))
        facts, _ = split_oversized(structural_facts(note, chunk_note(note, VAULT, chunk_size)))
        out.update(
            (path, f.relation, link_key(f.object))
            for f in facts
            if f.extractor in LINK_EXTRACTORS and f.object_kind == "note"
        )
    return out


def llamaindex_expected(folder: Path) -> set[tuple[str, str]]:
    """The (note name, target name) pairs the folder's notes link, as WikilinkExtractor reads."""
    return {
        (note_name(path), target)
        for path in list_notes(folder)
        for target in wikilink_targets(read_text(folder, path))
    }


def stale_and_missing(graph: Iterable[Any], expected: Iterable[Any]) -> tuple[int, int]:
    """(relations in the graph that nothing asserts, assertions not in the graph).

    Both are multisets: a relation held twice but asserted once counts one stale.
    """
    held, wanted = Counter(graph), Counter(expected)
    stale = sum((held - wanted).values())
    missing = len(set(wanted) - set(held))
    return stale, missing


@dataclass(frozen=True)
class Plan:
    """What each side does after its ingest: ``updates`` edits then as many deletes (seeded by
    ``seed``, ``settle`` seconds after the ingest), then ``questions`` retrievals."""

    updates: int
    seed: int
    settle: float
    questions: int


QUESTIONS_UNTIMED = 3  # asked first on each side, so a query's first planning is not timed


def questions(folder: Path, count: int, seed: int) -> list[str]:
    """Seeded questions about the folder's notes, the same on both sides: a note's name and
    three longer words of its text, as a user asks after something they half remember."""
    rng = random.Random(seed)
    paths = list_notes(folder)
    out = []
    for _ in range(count + QUESTIONS_UNTIMED if paths and count else 0):
        path = rng.choice(paths)
        words = sorted({w for w in re.findall(r"[^\W\d_]{5,}", read_text(folder, path))})
        picked = rng.sample(words, min(3, len(words)))
        out.append(f"What does {note_name(path)} say about {' '.join(picked)}?".replace("  ", " "))
    return out


# -- one side, in its own process ----------------------------------------------------------------


def status_mb(pid: int | str, field: str) -> float | None:
    """A memory figure of a process from /proc (VmRSS, VmHWM, …), None once it has gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError):
        return None
    return None


def peak_rss_mb() -> float:
    peak = status_mb("self", "VmHWM")
    if peak is not None:
        return peak
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _summary(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    return {
        "median_ms": statistics.median(ordered) * 1000 if ordered else float("nan"),
        "p95_ms": ordered[round(0.95 * (len(ordered) - 1))] * 1000 if ordered else float("nan"),
    }


async def run_knotwork(settings: Settings, folder: Path, plan: Plan) -> dict[str, Any]:
    from knotwork.core import open_core
    from knotwork.ingest.ingestor import Ingestor
    from knotwork.ingest.rehearse import rehearse
    from knotwork.ingest.sync import sync_vault
    from knotwork.retrieve.pipeline import retrieve

    async with open_core(settings) as core:
        use_bench_embedder(core)
        await core.ensure_ready()
        ingestor = Ingestor(core, root=folder, vault=VAULT, extract_enabled=False)
        start = time.perf_counter()
        report = await sync_vault(ingestor)
        seconds = time.perf_counter() - start
        if report.errors:
            raise RuntimeError(f"Knotwork ingest failed: {report.errors[:3]}")
        if plan.updates:
            await rehearse(core)  # as the watcher does once its rescan is done (untimed)
        if (plan.updates or plan.questions) and plan.settle:
            await asyncio.sleep(plan.settle)  # the server's background work after a bulk write
        script, edits, deletes, asked = Script(folder, plan.seed), [], [], []
        for n in range(plan.updates):
            path = script.edit(n)
            start = time.perf_counter()
            await ingestor.upsert_path(path)
            edits.append(time.perf_counter() - start)
        for _ in range(plan.updates):
            path = script.delete()
            start = time.perf_counter()
            await ingestor.delete(path)
            deletes.append(time.perf_counter() - start)
        for question in questions(folder, plan.questions, plan.seed):
            start = time.perf_counter()
            evidence = await retrieve(core, VAULT, question, top_k=8, mode="retrieve")
            asked.append(time.perf_counter() - start)
            if not evidence.hits:
                raise RuntimeError(f"Knotwork found nothing for {question!r}")
        async with core.driver.session(database=settings.neo4j_database) as session:
            result = await session.run(
                KNOTWORK_LINKS, vault=VAULT, extractors=list(LINK_EXTRACTORS)
            )
            graph = [(r["source"], r["relation"], r["target"]) async for r in result]
    stale, missing = stale_and_missing(graph, knotwork_expected(folder, settings.chunk_size))
    return {
        "notes": report.notes,
        "chunks": report.chunks,
        "seconds": seconds,
        "edit": _summary(edits),
        "delete": _summary(deletes),
        "retrieve": _summary(asked[QUESTIONS_UNTIMED:]),
        "links": len(graph),
        "stale": stale,
        "missing": missing,
    }


def run_llamaindex(settings: Settings, folder: Path, plan: Plan) -> dict[str, Any]:
    from llama_index.core import Document, PropertyGraphIndex
    from llama_index.core.indices.property_graph import (
        ImplicitPathExtractor,
        VectorContextRetriever,
    )
    from llama_index.core.llms import MockLLM
    from llama_index.core.node_parser import SentenceSplitter
    from llama_index.graph_stores.neo4j import Neo4jPropertyGraphStore

    def document(path: str) -> Document:
        return Document(text=read_text(folder, path), id_=path, metadata={"path": path})

    store = Neo4jPropertyGraphStore(
        username=settings.neo4j_user,
        password=settings.password(),
        url=settings.neo4j_uri,
        database=settings.neo4j_database,
    )
    embed: Any = LoopSafeOllamaEmbedding(
        model_name=settings.embed_model,
        base_url=settings.ollama_base_url,
        embed_batch_size=settings.embed_batch_size,
    )
    if embedder_kind() == "inprocess":
        embed = HashingEmbedding(
            dimension=settings.embed_dimension, embed_batch_size=settings.embed_batch_size
        )
    # Knotwork's chunk size is in characters: count characters, as it does; no overlap either.
    splitter = SentenceSplitter(chunk_size=settings.chunk_size, chunk_overlap=0, tokenizer=list)
    try:
        start = time.perf_counter()
        paths = list_notes(folder)
        index = PropertyGraphIndex.from_documents(
            [document(p) for p in paths],
            property_graph_store=store,
            embed_model=embed,
            llm=MockLLM(),
            kg_extractors=[ImplicitPathExtractor(), WikilinkExtractor()],
            transformations=[splitter],
        )
        seconds = time.perf_counter() - start
        chunks = len(index.docstore.docs)
        if (plan.updates or plan.questions) and plan.settle:
            time.sleep(plan.settle)
        script, edits, deletes, asked = Script(folder, plan.seed), [], [], []
        for n in range(plan.updates):
            path = script.edit(n)
            start = time.perf_counter()
            refreshed = index.refresh_ref_docs([document(path)])
            edits.append(time.perf_counter() - start)
            assert refreshed == [True], f"refresh_ref_docs did not see the edit of {path}"
        for _ in range(plan.updates):
            path = script.delete()
            start = time.perf_counter()
            index.delete_ref_doc(path, delete_from_docstore=True)
            deletes.append(time.perf_counter() - start)
        # Its retriever that calls no model (the default adds LLMSynonymRetriever): vector
        # search over the graph's nodes, their neighbours one hop out, with their chunks' text.
        retriever = index.as_retriever(
            sub_retrievers=[
                VectorContextRetriever(
                    store, embed_model=embed, include_text=True, similarity_top_k=8
                )
            ]
        )
        for question in questions(folder, plan.questions, plan.seed):
            start = time.perf_counter()
            found = retriever.retrieve(question)
            asked.append(time.perf_counter() - start)
            if not found:
                raise RuntimeError(f"LlamaIndex found nothing for {question!r}")
        rows = store.structured_query(LLAMAINDEX_LINKS, param_map={"relation": LINK_RELATION})
        graph = [(r["source"], r["target"]) for r in rows]
    finally:
        store.close()
    stale, missing = stale_and_missing(graph, llamaindex_expected(folder))
    return {
        "notes": len(paths),
        "chunks": chunks,
        "seconds": seconds,
        "edit": _summary(edits),
        "delete": _summary(deletes),
        "retrieve": _summary(asked[QUESTIONS_UNTIMED:]),
        "links": len(graph),
        "stale": stale,
        "missing": missing,
    }


def run_side(side: str, workload: Path, plan: Plan, out: Path) -> None:
    """One side on a fresh copy of ``workload``; the figures go to ``out`` as JSON."""
    folder = Path(tempfile.mkdtemp(prefix=f"knotwork-compare-{side}-"))
    try:
        shutil.copytree(workload, folder, dirs_exist_ok=True, symlinks=True)
        with bench_settings() as settings:
            if side == "knotwork":
                row = asyncio.run(run_knotwork(settings, folder, plan))
            else:
                row = run_llamaindex(settings, folder, plan)
        row["peak_rss_mb"] = peak_rss_mb()
        out.write_text(json.dumps(row), encoding="utf-8")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


# -- the runner ------------------------------------------------------------------------------------


@dataclass
class Workload:
    label: str
    folder: Path
    generated: bool
    rows: dict[str, list[dict[str, Any]]] = field(default_factory=lambda: {s: [] for s in SIDES})


def wipe(driver: Any, database: str) -> None:
    """Every node, constraint and index but the two token lookups: an empty database.

    Relationships go first, in batches: one node of a large vault (a daily note, a tag's
    placeholder) can hold more relationships than one transaction may delete in memory."""
    for query in (
        "MATCH ()-[r]->() WITH r LIMIT 20000 DELETE r RETURN count(*) AS deleted",
        "MATCH (n) WITH n LIMIT 10000 DETACH DELETE n RETURN count(*) AS deleted",
    ):
        while driver.execute_query(query, database_=database).records[0]["deleted"]:
            pass
    for kind, plural in (("CONSTRAINT", "CONSTRAINTS"), ("INDEX", "INDEXES")):
        records = driver.execute_query(f"SHOW {plural} YIELD name, type", database_=database)
        for row in records.records:
            if row["type"] != "LOOKUP":
                name = row["name"].replace("`", "``")
                driver.execute_query(f"DROP {kind} `{name}` IF EXISTS", database_=database)


def sides_in_round(round_: int) -> tuple[str, ...]:
    """The order the sides run in: each goes first in every other round, since the first run
    on a server just started also pays for the JVM compiling the server's own code."""
    return SIDES if round_ % 2 == 0 else SIDES[::-1]


def spawn(
    side: str, workload: Workload, args: argparse.Namespace, settings: Settings
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="knotwork-compare-") as tmp:
        out = Path(tmp) / "row.json"
        env = {
            **os.environ,
            "KNOTWORK_NEO4J_URI": settings.neo4j_uri,
            "KNOTWORK_NEO4J_USER": settings.neo4j_user,
            "KNOTWORK_NEO4J_PASSWORD": settings.password(),
            "KNOTWORK_NEO4J_DATABASE": settings.neo4j_database,
        }
        command = [
            sys.executable,
            "-m",
            "bench.compare",
            "--side",
            side,
            "--workload",
            str(workload.folder),
            "--updates",
            str(args.updates),
            "--seed",
            str(args.seed),
            "--settle",
            str(args.settle),
            "--questions",
            str(args.questions),
            "--json",
            str(out),
        ]
        failed = run_watched(command, env, args.max_rss_gb * 1024, args.timeout)
        if failed is not None:
            print(f"   {side} did not finish: {failed}", flush=True)
            return {"failed": failed}
        row: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
        return row


def run_watched(
    command: list[str], env: dict[str, str], max_rss_mb: float, timeout: float | None
) -> str | None:
    """Run a side's process; stop it when its memory passes ``max_rss_mb`` or it runs longer
    than ``timeout`` seconds. None when it ended well, else why it did not: a side that does
    not fit the machine is a result to record, not a reason to lose the other workloads'."""
    started = time.monotonic()
    peak = 0.0
    with subprocess.Popen(command, cwd=ROOT, env=env) as process:
        while process.poll() is None:
            elapsed = time.monotonic() - started
            peak = max(peak, status_mb(process.pid, "VmRSS") or 0.0)
            reason = None
            if peak > max_rss_mb:
                reason = f"stopped at {peak / 1024:.1f} GB resident after {elapsed:.0f} s"
            elif timeout is not None and elapsed > timeout:
                reason = f"stopped after {elapsed:.0f} s (--timeout {timeout:.0f})"
            if reason:
                process.kill()
                process.wait()
                return reason
            time.sleep(0.2)
    if process.returncode:
        return f"exited with status {process.returncode} after {time.monotonic() - started:.0f} s"
    return None


def versions(driver: Any, database: str) -> str:
    server = driver.execute_query(
        "CALL dbms.components() YIELD name, versions, edition "
        "RETURN versions[0] AS version, edition",
        database_=database,
    ).records[0]
    apoc = driver.execute_query("RETURN apoc.version() AS v", database_=database).records[0]["v"]
    rev = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"],
        cwd=ROOT,
        text=True,
        capture_output=True,
        check=False,
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--", "service", "cypher"],
        cwd=ROOT,
        text=True,
        capture_output=True,
        check=False,
    ).stdout.strip()
    return (
        f"Neo4j {server['version']} {server['edition']} with APOC {apoc}; "
        f"llama-index-core {metadata.version('llama-index-core')}, "
        f"llama-index-graph-stores-neo4j {metadata.version('llama-index-graph-stores-neo4j')}, "
        f"llama-index-embeddings-ollama {metadata.version('llama-index-embeddings-ollama')}; "
        f"knotwork {rev or 'unknown'}{' with uncommitted changes' if dirty else ''}"
    )


METRICS: list[tuple[str, str, str]] = [
    # (label, how it is read from a row, format)
    ("chunks", "chunks", "{:.0f}"),
    ("whole-vault ingest, s", "seconds", "{:.1f}"),
    ("notes/s", "notes_per_s", "{:.1f}"),
    ("chunks/s", "chunks_per_s", "{:.1f}"),
    ("one edit, median ms", "edit.median_ms", "{:.0f}"),
    ("one edit, p95 ms", "edit.p95_ms", "{:.0f}"),
    ("one delete, median ms", "delete.median_ms", "{:.0f}"),
    ("one delete, p95 ms", "delete.p95_ms", "{:.0f}"),
    ("one retrieval, median ms", "retrieve.median_ms", "{:.0f}"),
    ("one retrieval, p95 ms", "retrieve.p95_ms", "{:.0f}"),
    ("peak RSS of the side's process, MB", "peak_rss_mb", "{:.0f}"),
    ("link relations after the script", "links", "{:.0f}"),
    ("stale link relations after the script", "stale", "{:.0f}"),
    ("missing link relations after the script", "missing", "{:.0f}"),
]


def value(row: dict[str, Any], key: str) -> float:
    if key == "notes_per_s":
        return float(row["notes"]) / float(row["seconds"])
    if key == "chunks_per_s":
        return float(row["chunks"]) / float(row["seconds"])
    node: Any = row
    for part in key.split("."):
        node = node[part]
    return float(node)


def finished(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rounds that ran to the end (a side stopped by its memory or time limit did not)."""
    return [r for r in rows if "failed" not in r]


def cell(rows: list[dict[str, Any]], key: str, fmt: str) -> tuple[str, float | None]:
    """The median over the finished rounds, each round's figure after it when there are
    several (a round that did not finish shows as "—")."""
    if not finished(rows):
        return "—", None
    values = [value(r, key) for r in finished(rows)]
    middle = statistics.median(values)
    text = fmt.format(middle)
    if len(rows) > 1:
        text += " (" + ", ".join("—" if "failed" in r else fmt.format(value(r, key)) for r in rows)
        text += ")"
    return text, middle


def table(workload: Workload, updates: int, questions: int) -> str:
    k, li = workload.rows["knotwork"], workload.rows["llamaindex"]
    done = finished(k) or finished(li)
    notes = done[0]["notes"] if done else len(list_notes(workload.folder))
    lines = [
        f"**{workload.label}**: {notes} notes; {updates} edits then {updates} deletes, "
        f"then {questions} retrievals; {len(k)} round(s) per side, median first, each round in "
        "brackets.",
        "",
        "| metric | Knotwork | LlamaIndex PGI | Knotwork / LlamaIndex |",
        "|---|---:|---:|---:|",
    ]
    for label, key, fmt in METRICS:
        (kt, kv), (lt, lv) = cell(k, key, fmt), cell(li, key, fmt)
        both = kv is not None and lv and key not in ("stale", "missing")
        ratio = f"{kv / lv:.2f}×" if kv is not None and lv and both else ""
        lines.append(f"| {label} | {kt} | {lt} | {ratio} |")
    for side, name in (("knotwork", "Knotwork"), ("llamaindex", "LlamaIndex")):
        for round_, row in enumerate(workload.rows[side], 1):
            if "failed" in row:
                lines.append(f"\n{name}, round {round_}: did not finish ({row['failed']}).")
    return "\n".join(lines)


def plot(workloads: list[Workload], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 4, figsize=(20, 4.5))
    panels: list[tuple[str, Callable[[dict[str, Any]], float]]] = [
        ("whole-vault ingest, ms per note", lambda r: 1000 * r["seconds"] / r["notes"]),
        ("one edit, median ms", lambda r: r["edit"]["median_ms"]),
        ("one delete, median ms", lambda r: r["delete"]["median_ms"]),
        ("one retrieval, median ms", lambda r: r["retrieve"]["median_ms"]),
    ]
    styles = {"knotwork": ("Knotwork", "tab:blue"), "llamaindex": ("LlamaIndex PGI", "tab:orange")}
    for ax, (title, get) in zip(axes, panels, strict=True):
        for side, (name, color) in styles.items():
            generated = sorted(
                (done[0]["notes"], statistics.median(get(r) for r in done))
                for w in workloads
                if w.generated and (done := finished(w.rows[side]))
            )
            if generated:
                ax.plot(
                    *zip(*generated, strict=True),
                    "o-",
                    color=color,
                    label=f"{name}, generated vault",
                )
            for w in workloads:  # a side that did not finish: a dotted line at its N
                other = finished(w.rows["knotwork"]) or finished(w.rows["llamaindex"])
                if w.generated and other and not finished(w.rows[side]):
                    ax.axvline(other[0]["notes"], color=color, linestyle=":", alpha=0.7)
                    ax.annotate(
                        f"{name}: did not finish",
                        (other[0]["notes"], 0),
                        xytext=(-4, 6),
                        textcoords="offset points",
                        rotation=90,
                        ha="right",
                        fontsize=7,
                        color=color,
                    )
            for w in (w for w in workloads if not w.generated and finished(w.rows[side])):
                done = finished(w.rows[side])
                y = statistics.median(get(r) for r in done)
                ax.plot(done[0]["notes"], y, "s", color=color, fillstyle="none")
                ax.annotate(w.label, (done[0]["notes"], y), fontsize=7)
        ax.set_xscale("log")
        ax.set_ylim(bottom=0)
        ax.set_xlabel("notes")
        ax.set_title(title)
        ax.grid(True, alpha=0.3)
    axes[0].legend(fontsize=8, loc="best")
    fig.suptitle(
        "Knotwork and LlamaIndex PropertyGraphIndex on one Neo4j: cost against N "
        "(squares: real folders; dotted: a side stopped by --max-rss-gb or --timeout)"
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def default_max_rss_gb() -> float:
    """Half the machine's memory: the other half stays for Neo4j and the system."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 1024 / 1024 / 2, 1)
    return 8.0


def machine() -> str:
    return (
        f"{platform.machine()}, {os.cpu_count()} cores ({cpu_model()}), "
        f"Python {platform.python_version()}"
    )


def load() -> str:
    return " / ".join(f"{v:.2f}" for v in os.getloadavg())


@contextlib.contextmanager
def workloads_of(args: argparse.Namespace) -> Iterator[list[Workload]]:
    tmp = Path(tempfile.mkdtemp(prefix="knotwork-compare-vaults-"))
    try:
        out = []
        for count in args.notes:
            generate(tmp / f"generated-{count}", count)
            out.append(
                Workload(
                    f"generated vault, {count} notes", tmp / f"generated-{count}", generated=True
                )
            )
        for folder in args.folder:
            path = Path(folder).resolve()
            if not list_notes(path):
                raise SystemExit(f"{path}: no Markdown notes")
            out.append(Workload(f"{path.parent.name}/{path.name}", path, generated=False))
        yield out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def compare(args: argparse.Namespace) -> str:
    from neo4j import GraphDatabase

    command = "python -m bench.compare " + shlex.join(sys.argv[1:])
    load_before = load()
    with bench_settings() as settings, workloads_of(args) as workloads:
        driver = GraphDatabase.driver(
            settings.neo4j_uri, auth=(settings.neo4j_user, settings.password())
        )
        try:
            held = driver.execute_query(
                "MATCH (n) RETURN count(n) AS n", database_=settings.neo4j_database
            ).records[0]["n"]
            if held and not args.wipe:
                raise SystemExit(
                    f"{settings.neo4j_uri} holds {held} nodes, and this benchmark deletes every "
                    "node, constraint and index in it: point it at a server of its own, or pass "
                    "--wipe"
                )
            about = versions(driver, settings.neo4j_database)
            # A warm-up round runs the whole script, unsettled and unrecorded: the server's JIT
            # then has compiled what the edits, deletes and questions run, not only the ingest
            # (with the ingest alone warmed, Knotwork's questions measured 94 ms median on the
            # 1k vault against 60 once the server had answered some: bench/RESULTS.md).
            warming = argparse.Namespace(**{**vars(args), "settle": 0.0})
            for workload in workloads:
                for round_ in range(-args.warmup, args.rounds):
                    for side in sides_in_round(round_):
                        what = "warm-up" if round_ < 0 else f"round {round_ + 1}"
                        print(f"-- {workload.label}: {side}, {what}", flush=True)
                        wipe(driver, settings.neo4j_database)
                        if round_ < 0:
                            spawn(side, workload, warming, settings)
                        else:
                            workload.rows[side].append(spawn(side, workload, args, settings))
                # Printed at once: kept if a later workload fails.
                print(table(workload, args.updates, args.questions), flush=True)
            wipe(driver, settings.neo4j_database)
        finally:
            driver.close()
    text = "\n\n".join(
        [
            f"Command: `{command}`",
            f"Machine: {machine()}. {about}. Load averages (1/5/15 min) before "
            f"{load_before}, after {load()}.",
            f"Both sides: {EMBEDDERS[embedder_kind()]}, "
            "batch 32; no model calls; database wiped before every run; the sides take turns "
            f"going first, round by round; {args.warmup} unrecorded warm-up round(s) before "
            f"each workload; a side stopped above {args.max_rss_gb:g} GB resident"
            + (f" or after {args.timeout:g} s" if args.timeout else "")
            + ". LlamaIndex: "
            "PropertyGraphIndex.from_documents, ImplicitPathExtractor + WikilinkExtractor, "
            "SentenceSplitter at 1,200 characters; an edit is "
            "`index.refresh_ref_docs([doc])`, a delete "
            "`index.delete_ref_doc(path, delete_from_docstore=True)`, a retrieval its "
            "`VectorContextRetriever` (top 8, text included; no model). Knotwork: sync_vault, "
            "extraction off, then the write rehearsal the watcher runs after its rescan "
            "(untimed); an edit is `Ingestor.upsert_path`, a delete `Ingestor.delete`, a "
            'retrieval `retrieve(mode="retrieve")` (top 8). Retrievals: seeded questions '
            f"naming a note and three of its words, {QUESTIONS_UNTIMED} untimed first. "
            "Stale = link relations in the graph that no current note asserts.",
            *(table(w, args.updates, args.questions) for w in workloads),
        ]
    )
    if args.plot:
        plot(workloads, Path(args.plot))
    print("\n" + text)
    if args.record:
        body = text.split("\n\n", 2)[2]
        record(
            "Knotwork beside LlamaIndex PropertyGraphIndex",
            command,
            f"{about}; load {load_before} before, {load()} after.",
            body,
        )
    return text


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--notes",
        type=int,
        nargs="*",
        default=[1000],
        help="generated vault sizes (none: only --folder)",
    )
    parser.add_argument(
        "--folder", action="append", default=[], help="a folder of Markdown notes (repeatable)"
    )
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument(
        "--warmup",
        type=int,
        default=0,
        help="unrecorded rounds of both sides (ingest, edits, deletes, questions; no settling) "
        "before each workload's rounds (the server's JIT and caches warm; 0: every figure "
        "includes a just-started server's)",
    )
    parser.add_argument("--updates", type=int, default=20, help="edits, then as many deletes")
    parser.add_argument(
        "--questions",
        type=int,
        default=20,
        help=f"retrievals timed after the deletes (after {QUESTIONS_UNTIMED} untimed ones)",
    )
    parser.add_argument(
        "--seed", type=int, default=11, help="seed of the edit/delete script and the questions"
    )
    parser.add_argument(
        "--settle",
        type=float,
        default=60.0,
        help="seconds between each side's ingest and its first timed edit: a bulk write leaves "
        "Neo4j busy in the background for a while, which edits timed at once would measure",
    )
    parser.add_argument(
        "--max-rss-gb",
        type=float,
        default=default_max_rss_gb(),
        help="stop a side whose process holds more memory than this and record it as not "
        "finished (default: half this machine's memory)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        help="stop a side's run (ingest, edits, deletes, retrievals) after this many seconds "
        "and record it as not finished (default: no limit)",
    )
    parser.add_argument("--plot", help="write a PNG of cost against N here")
    parser.add_argument("--record", action="store_true", help="append to bench/RESULTS.md")
    parser.add_argument(
        "--wipe", action="store_true", help="run even when the database is not empty (it is wiped)"
    )
    parser.add_argument(
        "--embedder",
        choices=sorted(EMBEDDERS),
        help="the stand-in both sides embed with (default: $KNOTWORK_BENCH_EMBEDDER, else http)",
    )
    parser.add_argument("--side", choices=SIDES, help=argparse.SUPPRESS)
    parser.add_argument("--workload", help=argparse.SUPPRESS)
    parser.add_argument("--json", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.embedder:
        os.environ[EMBEDDER_ENV] = args.embedder  # the spawned sides inherit it
    if args.side:
        plan = Plan(args.updates, args.seed, args.settle, args.questions)
        run_side(args.side, Path(args.workload), plan, Path(args.json))
    else:
        compare(args)


if __name__ == "__main__":
    main()
