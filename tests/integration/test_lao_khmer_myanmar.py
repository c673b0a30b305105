"""Lao, Khmer and Myanmar full text on the real Neo4j: they write no space between words, so
Lucene keeps a run between spaces as one term; a question still finds a note by a word inside
a run, through the overlapping pairs of its grapheme clusters (text/pairs.py) kept beside the
chunk and searched in the ``chunk_pairs`` index."""

from __future__ import annotations

from pathlib import Path

import pytest

from knotwork.check.verify import verify_vault
from knotwork.core import Core, open_core
from knotwork.graph import pairs, schema
from knotwork.graph.queries.admin import CHUNK_PAIRS_SET, CHUNKS_UNPAIRED
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from knotwork.retrieve import cached, search
from knotwork.settings import Settings
from knotwork.text.pairs import chunk_pairs
from tests.fakes.ollama import FakeOllama
from tests.integration.conftest import ad_hoc, put

NOTES = {
    # "Vientiane is the capital of Laos" / "Luang Prabang is a world heritage town".
    "vientiane.md": "ນະຄອນຫຼວງວຽງຈັນເປັນເມືອງຫຼວງຂອງລາວ\n",
    "luang prabang.md": "ຫຼວງພະບາງເປັນເມືອງມໍລະດົກໂລກ\n",
    # "Phnom Penh is the capital of Cambodia" / "Siem Reap has the temple of Angkor Wat".
    "phnom penh.md": "ភ្នំពេញជារាជធានីនៃប្រទេសកម្ពុជា\n",
    "siem reap.md": "សៀមរាបមានប្រាសាទអង្គរវត្ត\n",
    # "Yangon is the largest city of Myanmar" / "Bagan has many pagodas".
    "yangon.md": "ရန်ကုန်သည်မြန်မာနိုင်ငံ၏အကြီးဆုံးမြို့ဖြစ်သည်\n",
    "bagan.md": "ပုဂံတွင်ဘုရားများစွာရှိသည်\n",
}
DOCS = "# Queues\n\nThe worker takes jobs from the queue and retries them when they fail.\n"


async def _top(core: Core, question: str) -> list[str]:
    """The note paths of the full-text hits, as the retriever asks for them (the vault's
    languages)."""
    view = await cached.vault_view(core.store, "t", core.memo, {})
    hits = await search.fulltext(core.store, "t", question, 5, view.languages)
    rows = await ad_hoc(
        core,
        "UNWIND $ids AS id MATCH (c:Chunk {id: id}) RETURN c.note_path AS path",
        {"ids": [h for h, _ in hits]},
    )
    return [r["path"] for r in rows]


async def _synced_before_pairs(core: Core, vault: Path, notes: dict[str, str]) -> None:
    """Sync ``notes`` (path → text), then leave the graph as a version before pairs wrote it:
    no chunk has pairs, and the manifest says schema version 2."""
    for path, text in notes.items():
        put(vault, path, text)
    await sync_vault(Ingestor(core, root=vault, vault="t", extract_enabled=False))
    await ad_hoc(
        core,
        "MATCH (c:Chunk) REMOVE c.pairs WITH count(c) AS _ "
        "MATCH (m:Manifest) SET m.schema_version = 2",
        write=True,
    )


# Each script's question: one word from inside a run of one of its notes, and that note.
QUESTIONS = {
    # "Where is Vientiane?"; "world heritage".
    "lao": [("ວຽງຈັນຢູ່ໃສ", "vientiane.md"), ("ມໍລະດົກໂລກ", "luang prabang.md")],
    # "Where is Angkor Wat?"; "capital".
    "khmer": [("អង្គរវត្តនៅឯណា", "siem reap.md"), ("រាជធានី", "phnom penh.md")],
    # "pagoda"; "city", a single cluster, found by the pairs it begins or ends.
    "myanmar": [("ဘုရား", "bagan.md"), ("မြို့", "yangon.md")],
}


@pytest.mark.parametrize("script", QUESTIONS)
async def test_a_word_inside_a_run_finds_its_note(core: Core, vault: Path, script: str) -> None:
    for path, text in NOTES.items():
        put(vault, path, text)
    put(vault, "queues.md", DOCS)
    ingestor = Ingestor(core, root=vault, vault="t", extract_enabled=False)
    await sync_vault(ingestor)
    for question, path in QUESTIONS[script]:
        assert await _top(core, question) == [path], question
    assert await _top(core, "ປາ") == []  # "fish": in no note
    # A run written whole is found as before, and English beside them as ever.
    assert (await _top(core, NOTES["bagan.md"].strip()))[:1] == ["bagan.md"]
    assert (await _top(core, "When does the worker retry a job?"))[:1] == ["queues.md"]
    assert await verify_vault(ingestor) == []


async def test_pairs_follow_the_text_of_any_note(core: Core, vault: Path) -> None:
    """An English note quoting a run is found by a word inside it; the pairs go when an edit
    takes the run out, and a chunk without these scripts never has any."""
    put(vault, "trip.md", "# Trip\n\nWe flew to ນະຄອນຫຼວງວຽງຈັນເປັນ on Monday.\n")
    put(vault, "queues.md", DOCS)
    ingestor = Ingestor(core, root=vault, vault="t", extract_enabled=False)
    await sync_vault(ingestor)
    assert await _top(core, "ວຽງຈັນ") == ["trip.md"]
    put(vault, "trip.md", "# Trip\n\nWe flew to Vientiane on Monday.\n")
    await sync_vault(ingestor)
    assert await _top(core, "ວຽງຈັນ") == []
    rows = await ad_hoc(core, "MATCH (c:Chunk {vault: 't'}) WHERE c.pairs IS NOT NULL RETURN c")
    assert rows == []


async def test_a_graph_written_before_pairs_gets_them_when_opened(core: Core, vault: Path) -> None:
    """Chunks written by an earlier version have no pairs: applying the schema to a graph of
    an older schema version gives them theirs once, with no sync."""
    await _synced_before_pairs(
        core, vault, {"vientiane.md": NOTES["vientiane.md"], "queues.md": DOCS}
    )
    assert await _top(core, "ວຽງຈັນຢູ່ໃສ") == []
    await core.ensure_ready()
    assert await _top(core, "ວຽງຈັນຢູ່ໃສ") == ["vientiane.md"]
    [row] = await ad_hoc(
        core, "MATCH (c:Chunk {note_path: 'queues.md'}) RETURN c.pairs IS NULL AS none"
    )
    assert row["none"] is True


async def test_a_graph_written_before_pairs_gets_them_when_reembedded(
    core: Core, vault: Path, settings: Settings, fake_ollama: FakeOllama
) -> None:
    """`knotwork reembed` writes the manifest of this version, with no start between (the
    graph is refused under the new model until it completes): it gives the pairs first."""
    await _synced_before_pairs(core, vault, {"vientiane.md": NOTES["vientiane.md"]})
    fake_ollama.models["all-minilm:latest"] = 384
    other = settings.model_copy(update={"embed_model": "all-minilm", "embed_dimension": 384})
    async with open_core(other) as second:
        await schema.reembed(second.store, other, second.embedder.aget_text_embedding_batch)
        rows = await ad_hoc(second, "MATCH (c:Chunk) RETURN c.pairs AS pairs")
        manifest = await second.store.get_manifest()
    assert rows == [{"pairs": chunk_pairs(NOTES["vientiane.md"])}]
    assert manifest is not None and manifest["schema_version"] == schema.SCHEMA_VERSION


async def test_a_chunk_rewritten_while_its_pairs_were_made_keeps_what_its_writer_left(
    core: Core, vault: Path
) -> None:
    """The pass reads a page, pairs it, then writes: a chunk a sync rewrote in between (a
    service starting beside a running watcher) is not given the pairs of its old text."""
    put(vault, "vientiane.md", NOTES["vientiane.md"])
    await sync_vault(Ingestor(core, root=vault, vault="t", extract_enabled=False))
    await ad_hoc(core, "MATCH (c:Chunk) REMOVE c.pairs", write=True)
    [row] = await core.store.read(CHUNKS_UNPAIRED, after="", pattern=pairs.PATTERN, limit=10)
    await ad_hoc(core, "MATCH (c:Chunk) SET c.text = 'ວຽງຈັນ'", write=True)
    [written] = await core.store.write(CHUNK_PAIRS_SET, rows=[{**row, "pairs": "ນະ ະຄ"}])
    assert written["updated"] == 0
    assert await pairs.backfill(core.store) == 1  # read again: its text now
    assert await ad_hoc(core, "MATCH (c:Chunk) RETURN c.pairs AS pairs") == [
        {"pairs": "ວຽ ຽງ ງຈັ ຈັນ"}
    ]


async def test_a_graph_without_the_pairs_index_still_answers(
    core: Core, vault: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """`ask` and `retrieve` apply no schema: on a graph last opened by a version before the
    ``chunk_pairs`` index, a Lao question is searched by its other indexes instead of failing,
    said once; once a writing command applies the schema, the same process pairs again."""
    for path, text in NOTES.items():
        put(vault, path, text)
    put(vault, "queues.md", DOCS)
    await sync_vault(Ingestor(core, root=vault, vault="t", extract_enabled=False))
    await ad_hoc(core, "DROP INDEX chunk_pairs", write=True)
    with caplog.at_level("INFO", logger="knotwork.graph.store"):
        assert await _top(core, "ວຽງຈັນຢູ່ໃສ") == []  # a word inside a run: only pairs find it
        assert (await _top(core, NOTES["vientiane.md"].strip()))[:1] == ["vientiane.md"]
    assert [r.getMessage() for r in caplog.records].count(
        "the index chunk_pairs is missing: searches that need it are skipped until"
        " `knotwork init` or a command that writes applies the schema"
    ) == 1
    await core.ensure_ready()
    assert await _top(core, "ວຽງຈັນຢູ່ໃສ") == ["vientiane.md"]
