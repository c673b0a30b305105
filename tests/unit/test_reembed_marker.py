"""A manifest marked as re-embedding is refused as an interrupted (or running) re-embedding
whatever model the settings name; the refusals of the database-wide re-embedding lease name
every holder."""

from __future__ import annotations

from knotwork.cli.stopped import ReembedStopped
from knotwork.errors import ManifestMismatchError, ReembedInterruptedError
from knotwork.graph.reembed_guard import lost, reembedding, refused
from knotwork.graph.schema import Reembedded, mismatch
from tests.conftest import make_settings

OLD = {"embed_model": "nomic-embed-text", "embed_dimension": 768, "schema_version": 3}
MARK = {"reembedding_model": "all-minilm", "reembedding_dimension": 384}


def test_a_marked_manifest_is_refused_under_either_model() -> None:
    for model, size in (("nomic-embed-text", 768), ("all-minilm", 384)):
        settings = make_settings(embed_model=model, embed_dimension=size)
        refusal = mismatch({**OLD, **MARK}, settings, changed=True)
        assert isinstance(refusal, ReembedInterruptedError)  # a ManifestMismatchError: 409
        assert isinstance(refusal, ManifestMismatchError)
        assert str(refusal).startswith(
            "a re-embedding to 'all-minilm' (384 dimensions) was interrupted: run "
            "`knotwork reembed` again"
        ), refusal
    assert mismatch(OLD, make_settings(embed_model="nomic-embed-text", embed_dimension=768)) is None


def test_a_running_reembedding_is_said_as_running_and_by_whom() -> None:
    running = {**OLD, **MARK, "reembedding_by": "h:1:ab, host h, pid 1"}
    refusal = mismatch(running, make_settings())
    assert isinstance(refusal, ReembedInterruptedError) and refusal.running
    assert "is being re-embedded to 'all-minilm'" in str(refusal)
    assert "h:1:ab, host h, pid 1" in str(refusal) and "interrupted" not in str(refusal)


def test_the_refusals_name_each_holder() -> None:
    holders = [
        {"vault": "b", "holder": "w", "host": "h", "pid": 7, "mode": "inotify"},
        {"vault": "c", "holder": "x", "host": "k", "pid": 8, "mode": "rest-write"},
    ]
    said = refused(holders, 30)
    assert "vault 'b': w (host h, pid 7, mode inotify" in said
    assert "vault 'c': x (host k, pid 8, mode rest-write" in said and "Stop them" in said
    told = reembedding("b", {"holder": "r", "host": "h", "pid": 9, "mode": "cli-reembed"})
    assert told.startswith("vault 'b' cannot be written now: `knotwork reembed` is re-embedding")
    assert "r (host h, pid 9, mode cli-reembed" in told


def test_a_lost_reembedding_is_said_of_itself() -> None:
    other = {"holder": "r2", "host": "h", "pid": 9, "mode": "cli-reembed"}
    said, lapsed = lost(other, "r1", 30)
    assert "`knotwork reembed` lost its lease over every vault" in lapsed and lapsed in said
    assert "another `knotwork reembed` holds it now, r2 (host h, pid 9" in said
    assert "cannot be written now" not in said and "*reembed*" not in said and "30 s" in said
    said, _ = lost({**other, "holder": "r1"}, "r1", 30)  # lapsed, taken by no one
    assert "no one holds it now" in said and "r1" not in said


def test_a_stopped_reembed_counts_the_chunks_given_a_vector() -> None:
    stage = ReembedStopped(Reembedded(total=4))
    assert stage.said() == "stopped before re-embedding began: nothing was changed"
    stage.done.marked, stage.done.embedded = True, 2
    assert stage.said().startswith("stopped: 2 of 4 chunks re-embedded; the graph stays")
