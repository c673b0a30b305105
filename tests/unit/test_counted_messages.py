"""Messages that count say "1 chunk", "2 chunks": the noun (and the verb, and the pronoun
after it) agrees with the count, through the one rule of knotwork/plural.py."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import pytest

from knotwork.answer.prompt import build_prompt
from knotwork.answer.respond import finish
from knotwork.check.capabilities import capabilities
from knotwork.check.reports import ManifestReport, Neo4jReport
from knotwork.cli.app import MAX_LISTED
from knotwork.cli.printed import errors_put_back, retried
from knotwork.cli.synced import SyncSummary, print_sync
from knotwork.errors import ServerBusyError
from knotwork.ingest.changes import NoteOutcome
from knotwork.ingest.retry import Retried
from knotwork.ingest.sync import SyncReport
from knotwork.limits import WorkLimiter
from knotwork.llm.vectors import vectors_problem
from knotwork.mcp.writes import _written
from knotwork.plural import counted, plural
from knotwork.retrieve import Evidence
from knotwork.serving.writes import WriteResult
from knotwork.vault.folders import AnotherFolder, empty_while_held
from knotwork.watch.events import PathEvents
from knotwork.watch.queue import WatchStatus
from tests.conftest import hit, make_settings

STATS = {"facts": {}, "pending_embeddings": 0, "pending_extractions": 0, "extraction_errors": 0}


def test_a_count_of_one_takes_the_singular_and_any_other_the_plural() -> None:
    assert [counted(n, "chunk") for n in (0, 1, 2)] == ["0 chunks", "1 chunk", "2 chunks"]
    assert counted(1, "entity", "entities") == "1 entity"
    assert counted(3, "entity", "entities") == "3 entities"
    assert (plural(1, "is", "are"), plural(2, "is", "are")) == ("is", "are")


def test_extraction_failed_for_good_on_one_chunk_or_two(
    capsys: pytest.CaptureFixture[str],
) -> None:
    said = {}
    for n in (1, 2):
        print_sync(SyncSummary(SyncReport(), [], {**STATS, "extraction_errors": n}))
        said[n] = " ".join(capsys.readouterr().out.split())
    assert "model extraction failed for good on 1 chunk (" in said[1], said[1]
    assert "`knotwork retry --errors` tries it again" in said[1], said[1]
    assert "model extraction failed for good on 2 chunks (" in said[2], said[2]
    assert "`knotwork retry --errors` tries them again" in said[2], said[2]


@pytest.mark.parametrize(("more", "said"), [(1, "1 more warning\n"), (2, "2 more warnings\n")])
def test_the_warnings_left_out_of_a_summary_are_counted_in_agreement(
    capsys: pytest.CaptureFixture[str], more: int, said: str
) -> None:
    report = SyncReport(warnings=[f"w{i}" for i in range(MAX_LISTED + more)])
    print_sync(SyncSummary(report, [], STATS))
    assert f"… and {said}" in capsys.readouterr().out


def test_retry_counts_what_it_put_back_did_and_left_in_agreement() -> None:
    assert errors_put_back(1) == "1 chunk whose extraction had failed is pending again"
    assert errors_put_back(2) == "2 chunks whose extraction had failed are pending again"
    did, left = retried(Retried(embedded=1, pending=1))
    assert did == "embedded 1 chunk, extracted 0"
    assert left == "1 chunk still pending: a pass made no progress on it (see the warnings above)"
    did, left = retried(Retried(embedded=2, extracted=1, pending=2, model_down=True))
    assert did == "embedded 2 chunks, extracted 1"
    assert left is not None and left.startswith("2 chunks still pending: the model did not")
    assert retried(Retried(embedded=2))[1] is None
    did, left = retried(Retried(extracted=1, failed=1))
    assert left is not None and left.startswith("1 chunk failed extraction for good")
    assert "was recorded as an error:" in left and "--errors" in left
    _, left = retried(Retried(failed=2, pending=1))
    assert left is not None and left.split("\n")[0].startswith("2 chunks failed")
    assert left.split("\n")[1].startswith("1 chunk still pending")


@pytest.mark.parametrize(("missing", "said"), [(1, "1 index not"), (2, "2 indexes not")])
def test_indexes_not_online_are_counted_in_agreement(missing: int, said: str) -> None:
    names = ["chunk_embedding", "note_embedding"][:missing]
    neo4j = Neo4jReport(ok=False, uri="bolt://x:7687", version="5.26.30", missing_indexes=names)
    ingest = capabilities(make_settings(), neo4j, None, ManifestReport(ok=False))["ingest"]
    assert ingest.reason is not None and ingest.reason.startswith(f"{said} ONLINE"), ingest


@pytest.mark.parametrize(("running", "said"), [(1, "1 request is"), (2, "2 requests are")])
async def test_a_busy_server_counts_the_requests_running_in_agreement(
    running: int, said: str
) -> None:
    limiter = WorkLimiter(running, 0)
    held = [limiter.slot() for _ in range(running)]
    for slot in held:
        await slot.__aenter__()
    with pytest.raises(ServerBusyError, match=f"^busy: {said} running and 0 waiting"):
        async with limiter.slot():
            pass
    for slot in held:
        await slot.__aexit__(None, None, None)


def test_a_vault_folder_refused_counts_the_vaults_notes_in_agreement() -> None:
    one = AnotherFolder(vault="v", was="/a", path="/b", notes=1, held=0)
    assert one.reason.startswith("vault 'v' holds 1 note synced from /a;"), one.reason
    two = AnotherFolder(vault="v", was="/a", path="/b", notes=2, held=0)
    assert two.reason.startswith("vault 'v' holds 2 notes synced from /a;"), two.reason
    assert empty_while_held(1, "v").startswith("is empty while the graph holds 1 note of vault")
    assert empty_while_held(2, "v").startswith("is empty while the graph holds 2 notes of vault")


@pytest.mark.parametrize(("pending", "said"), [(1, "its 1 chunk pending"), (2, "its 2 chunks")])
def test_an_mcp_write_counts_the_chunks_pending_extraction_in_agreement(
    pending: int, said: str
) -> None:
    outcome = NoteOutcome("a.md", "written", chunks=pending, pending=pending)
    written = _written(WriteResult("a.md", "done", "saved", outcome=outcome))
    assert f"the model's facts of {said}" in written.detail, written.detail


@pytest.mark.parametrize(("dropped", "said"), [(1, "1 pending path"), (2, "2 pending paths")])
def test_a_watcher_overflow_counts_the_paths_dropped_in_agreement(
    tmp_path: Path, dropped: int, said: str
) -> None:
    status = WatchStatus()
    waiting = PathEvents(tmp_path, debounce=0.3, queue_max=dropped - 1, status=status)
    for i in range(dropped):
        waiting._mark(f"n{i}.md")
    assert status.last_overflow is not None
    assert f"; {said} dropped, the whole vault rescanned" in status.last_overflow


def test_an_embedding_answer_of_the_wrong_length_counts_in_agreement() -> None:
    assert vectors_problem([[1.0]], 2, 1) == "returned 1 vector for 2 texts"
    assert vectors_problem([[1.0], [1.0]], 1, 1) == "returned 2 vectors for 1 text"


@pytest.mark.parametrize(
    ("cited", "left_out", "said"),
    [
        ("[S1] [S7]", 1, ["1 hit did not fit the model"]),
        ("[S1] [S7] [S8]", 2, ["2 hits did not fit the model"]),
    ],
)
def test_an_answers_warnings_count_in_agreement(cited: str, left_out: int, said: list[str]) -> None:
    evidence = Evidence(hits=[hit("Alice.md", "Work", "Alice works with Bob.")], timings_ms={})
    prompt = build_prompt("Who does Alice work with?", evidence, 8192)
    prompt = dataclasses.replace(prompt, left_out=left_out)
    answer = finish(evidence, f"Alice works with Bob {cited}.", time.perf_counter(), prompt)
    assert [w.partition("'s")[0] for w in answer.warnings] == said, answer.warnings
