"""One text the embedding model always answers garbage for (NaN here) holds back no other
text's vector: a sync stores the vectors of the notes beside it, a retry embeds the chunks
sorted after it, and entity names after a refused one are embedded too. The bad chunk stays
pending, named once in the trouble's warning, and the trouble is not said over while it
waits. A model down is not asked apart."""

from __future__ import annotations

import dataclasses
import logging
import re
import time
from collections import Counter
from pathlib import Path

import pytest

from knotwork.core import Core
from knotwork.ingest import similar
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.retry import retry_all, retry_pending
from knotwork.ingest.sync import sync_vault
from knotwork.llm.vectors import PROBE_TEXT
from knotwork.models import now_ms
from tests.fakes.ollama import FakeOllama, hash_embedding
from tests.integration.conftest import ad_hoc
from tests.integration.test_model_trouble_said import _states

MARK = "Poison"  # the word of the one note whose text the model answers NaN for
REFUSED = "answers vectors that cannot be stored"
BACK = "good vectors again"


def _poison(texts: list[str], dimension: int) -> list[list[float]]:
    """NaN for the texts with the marker word, the fake's own vectors for the others."""
    return [
        [float("nan")] * dimension if MARK in t else hash_embedding(t, dimension) for t in texts
    ]


def _said(caplog: pytest.LogCaptureFixture, part: str, level: int = logging.WARNING) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == level and part in r.getMessage()]


def _tuned(core: Core, **update: object) -> Core:
    """Embedding batches of 2: a slice (4 batches) is 8 texts, so a vault of 20 notes is three."""
    return dataclasses.replace(
        core, settings=core.settings.model_copy(update={"embed_batch_size": 2, **update})
    )


def _vault(tmp_path: Path, bad: str, count: int = 20) -> Path:
    """``count`` notes of one chunk each, and ``bad`` (a path) whose text has the marker."""
    root = tmp_path / "vault"
    root.mkdir()
    for i in range(count):
        (root / f"N{i:02}.md").write_text(f"# N{i}\n\nN{i} works with Ann on the river.\n")
    (root / bad).write_text(f"# Bad\n\nThe {MARK} note works with Ann.\n")
    return root


async def _pending(core: Core, vault: str) -> list[str]:
    rows = await ad_hoc(
        core,
        "MATCH (c:Chunk {vault: $vault, embedding_state: 'pending'}) RETURN c.note_path AS path",
        {"vault": vault},
    )
    return sorted(r["path"] for r in rows)


async def test_a_sync_stores_every_vector_but_the_bad_texts_and_names_its_note_once(
    core: Core, tmp_path: Path, fake_ollama: FakeOllama, caplog: pytest.LogCaptureFixture
) -> None:
    """The bad note sits among others in one unit and one slice (N04.5 between N04 and N05):
    they are all embedded, its chunk alone waits, and one warning names it."""
    root = _vault(tmp_path, "N04.5.md")
    fake_ollama.embed_script = _poison
    caplog.set_level(logging.INFO, logger="knotwork")
    report = await sync_vault(Ingestor(_tuned(core), root=root, vault="w", extract_enabled=False))
    assert report.written == 21
    assert await _states(core, "w", "embedding_state") == {"done": 20, "pending": 1}
    assert await _pending(core, "w") == ["N04.5.md"]
    assert report.warnings == [
        "N04.5.md: embedding model answered vectors that cannot be stored; 1 chunk waits: the "
        "model refuses its text; asked again by `knotwork retry` or when the note changes"
    ]
    [said] = _said(caplog, REFUSED)
    assert "returned a vector holding NaN or infinity, for 1 of 21 texts" in said, said
    assert "out of vector search: 1 chunk of 1 note (N04.5.md) so far" in said, said
    [after] = _said(caplog, "after the sync", logging.INFO)
    assert "1 chunk of 1 note (N04.5.md) waits" in after, after
    assert not _said(caplog, BACK, logging.INFO)


async def test_a_retry_embeds_the_chunks_sorted_after_a_bad_one(
    core: Core, tmp_path: Path, fake_ollama: FakeOllama, caplog: pytest.LogCaptureFixture
) -> None:
    """Every chunk pending (the model was down during the sync), the bad one first by path: a
    retry embeds the 20 others and ends; the next says nothing new and does not say the
    trouble over; once the model answers it well, it is."""
    root = _vault(tmp_path, "A-bad.md")
    ingestor = Ingestor(_tuned(core), root=root, vault="w", extract_enabled=False)
    fake_ollama.down = True
    caplog.set_level(logging.INFO, logger="knotwork")
    await sync_vault(ingestor)
    assert await _states(core, "w", "embedding_state") == {"pending": 21}
    asked = Counter(fake_ollama.embedded_texts())  # a model down is not asked apart
    assert PROBE_TEXT not in asked and max(asked.values()) <= 2, asked

    fake_ollama.down, fake_ollama.embed_script = False, _poison
    done = await retry_all(ingestor.models)
    assert (done.embedded, done.pending, done.model_down) == (20, 1, False)
    assert await _pending(core, "w") == ["A-bad.md"]
    [said] = _said(caplog, REFUSED)
    assert re.search(r"for 1 of 8 texts .*\(A-bad\.md", said), said

    again = await retry_all(ingestor.models)  # a later pass: asked again, said at debug level
    assert (again.embedded, again.pending) == (0, 1)
    assert len(_said(caplog, REFUSED)) == 1
    assert not _said(caplog, BACK, logging.INFO)  # refused vectors still wait
    assert ingestor.models.trouble.refused.since is not None

    fake_ollama.embed_script = None
    last = await retry_all(ingestor.models)
    assert (last.embedded, last.pending) == (1, 0)
    [back] = _said(caplog, BACK, logging.INFO)
    assert back.startswith(f"the embedding model answers {BACK}"), back


async def test_entity_names_after_a_refused_one_are_embedded(
    core: Core, tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    """Names are embedded in key order: a refused one ("poison corp") leaves "zebra farm",
    after it, embedded, and the similar names linked; it alone waits for the next call."""
    root = tmp_path / "vault"
    root.mkdir()
    for path, company in {"A": "Acme Corporation", "B": "Acme Corp", "P": f"{MARK} Corp"}.items():
        (root / f"{path}.md").write_text(f"---\ncompany: {company}\n---\nWorks at a company.\n")
    (root / "Z.md").write_text("---\ncompany: Zebra Farm\n---\nAnimals.\n")
    fake_ollama.embed_script = _poison
    tuned = _tuned(core, similarity_threshold=0.55)
    report = await sync_vault(Ingestor(tuned, root=root, vault="w", extract_enabled=False))
    rows = await ad_hoc(
        core,
        "MATCH (e:Entity {vault: 'w'}) RETURN e.key AS key, e.embedding_state AS state",
    )
    states = {r["key"]: r["state"] for r in rows}
    assert states["poison corp"] == "pending" and states["zebra farm"] == "done", states
    assert {k for k, s in states.items() if s == "pending"} == {"poison corp"}, states
    assert report.linked >= 1  # the two Acme names


async def test_refused_names_are_asked_once_a_call_and_read_after_the_others(
    core: Core, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read full of refused names (first by key) neither ends the call nor is read again in
    it: the names after them are embedded, each name asked once; the next call asking them
    again (a retry's) reads a new name before the refused ones."""
    monkeypatch.setattr(similar, "ENTITY_BATCH", 3)
    bad, good = ["a bad 1", "a bad 2", "a bad 3"], ["b good", "c good"]
    await _entities(core, [*bad, *good])
    asked: list[list[str]] = []
    dimension = core.settings.embed_dimension

    async def embed(texts: list[str]) -> list[list[float] | None]:
        asked.append(texts)
        return [None if "bad" in t else hash_embedding(t, dimension) for t in texts]

    settings = core.settings.model_copy(update={"similarity_threshold": 0.5})
    await similar.link_new_entities(core.store, settings, "r", embed, now_ms())
    assert Counter(t for call in asked for t in call) == Counter([*bad, *good]), asked
    rows = await ad_hoc(
        core,
        "MATCH (e:Entity {vault: 'r'}) RETURN e.key AS key, e.embedding_state AS state, "
        "e.embedding_refused_at IS NOT NULL AS stamped",
    )
    assert {r["key"]: (r["state"], r["stamped"]) for r in rows} == {
        **{k: ("pending", True) for k in bad},
        **{k: ("done", False) for k in good},
    }
    await _entities(core, ["a new"])
    asked.clear()
    # Asked again at once, as by a retry (+1: a stamp of this very millisecond included).
    await similar.link_new_entities(core.store, settings, "r", embed, now_ms() + 1)
    assert asked[0][0] == "a new", asked
    assert Counter(t for call in asked for t in call) == Counter(["a new", *bad]), asked


async def _entities(core: Core, keys: list[str]) -> None:
    await ad_hoc(
        core,
        "UNWIND $keys AS k CREATE (:Entity {vault: 'r', key: k, name: k, "
        "embedding_state: 'pending'})",
        {"keys": keys},
        write=True,
    )


async def test_refused_chunks_do_not_fill_the_background_passes(
    core: Core, tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    """Four refused chunks first by path fill a pass of four once: stamped, the next
    background pass leaves them to the model's back-off and embeds the others; an explicit
    retry asks them again, once."""
    root = tmp_path / "vault"
    root.mkdir()
    for i in range(4):
        (root / f"A{i}.md").write_text(f"# A{i}\n\nThe {MARK} note {i} works with Ann.\n")
    for i in range(6):
        (root / f"N{i}.md").write_text(f"# N{i}\n\nN{i} works with Ann on the river.\n")
    ingestor = Ingestor(_tuned(core), root=root, vault="w", extract_enabled=False)
    fake_ollama.down = True
    await sync_vault(ingestor)  # every chunk pending, none asked apart
    fake_ollama.down, fake_ollama.embed_script = False, _poison
    models = ingestor.models
    models.ask_again()  # the sync's back-off over
    assert await retry_pending(models, 4, ask_again=False) == (0, 0)  # the four refused
    fake_ollama.calls.clear()
    assert await retry_pending(models, 4, ask_again=False) == (4, 0)
    assert not [t for t in fake_ollama.embedded_texts() if MARK in t]  # not asked again
    assert await retry_pending(models, 4, ask_again=False) == (2, 0)
    assert sorted(await _pending(core, "w")) == [f"A{i}.md" for i in range(4)]
    fake_ollama.calls.clear()
    out = await retry_all(models)
    assert (out.embedded, out.pending) == (0, 4)
    assert len(fake_ollama.calls_to("/api/embed")) <= 1 + 1 + 2 * 2 + 8  # one pass's asking


async def test_refused_vectors_are_said_over_while_extractions_fill_the_passes(
    core: Core, tmp_path: Path, fake_ollama: FakeOllama, caplog: pytest.LogCaptureFixture
) -> None:
    """The bad note mended, nothing waits for an embedding: a background pass whose read is
    filled by chunks waiting for extraction (the chat model let be) says the trouble over."""
    root = _vault(tmp_path, "Bad.md", count=7)
    ingestor = Ingestor(_tuned(core), root=root, vault="w", extract_enabled=True)
    models = ingestor.models
    fake_ollama.embed_script = _poison
    core.chat_down_until["w"] = time.monotonic() + 600  # extractions wait
    caplog.set_level(logging.INFO, logger="knotwork")
    await sync_vault(ingestor)
    assert await _pending(core, "w") == ["Bad.md"]
    assert models.trouble.refused.since is not None
    (root / "Bad.md").write_text("# Bad\n\nThe mended note works with Ann.\n")
    await sync_vault(ingestor)  # its new chunk embedded as written; the old one gone
    assert await _pending(core, "w") == []
    for _ in range(2):  # none waiting is believed at the second read (EmbedTrouble.settled)
        assert await retry_pending(models, 4, ask_again=False) == (0, 0)  # 4 extractions read
    assert models.trouble.refused.since is None
    [back] = _said(caplog, "no chunk waiting for good vectors", logging.INFO)
    assert "embedding model" in back, back
