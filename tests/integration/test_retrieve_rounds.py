"""Retrieval's folded round trips on the real Neo4j: each query that now does the work of two
gives what the two gave — the walk finding its seeds' notes, the walk scoring what it reached,
full text asking only the vault's languages — and the view of the vault follows its writes; a
question's shared steps start once, whichever retrievers await them."""

from __future__ import annotations

from pathlib import Path

import pytest

from knotwork.core import Core
from knotwork.graph.queries.reads import CHUNKS_CITED
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from knotwork.retrieve import cached, retrieve, search
from knotwork.retrieve.config import PRESETS, RetrievalConfig
from knotwork.retrieve.context import Context, Rankings
from knotwork.retrieve.graphrank import question_stems, walk_ranking
from knotwork.retrieve.types import HopPath
from knotwork.retrieve.walk import walk, walk_scored
from tests.integration.conftest import ad_hoc, put

NOTES = {
    "team/Alice.md": "# Alice\n\nAlice reports to [[Bob]] since spring.\n",
    "team/Bob.md": (
        "# Bob\n\nBob works with [[Carol]] on the launch.\n\n## Later\n\n"
        "Bob also reviews the rocket budget with [[Dave]].\n"
    ),
    "team/Carol.md": "# Carol\n\nCarol runs the rocket schedule with [[Bob]].\n",
    "team/Dave.md": "# Dave\n\nDave once ran the rocket schedule too, in 2019.\n",
}
ITALIAN = "# Alberi\n\nGli alberi hanno una radice e ogni nodo ha dei figli, come sempre.\n"


async def _ingest(core: Core, vault: Path) -> Ingestor:
    for path, text in NOTES.items():
        put(vault, path, text)
    ingestor = Ingestor(core, root=vault, vault="t", extract_enabled=False)
    await sync_vault(ingestor)
    return ingestor


async def _alice(core: Core) -> tuple[str, str]:
    """Alice's note (element id) and the id of its chunk, as retrieval itself reads them."""
    [named] = await search.named_notes(core.store, "t", "Alice", 4)
    return named.node, named.chunk_ids[0]


async def test_a_walk_from_a_chunk_starts_at_its_note(core: Core, vault: Path) -> None:
    await _ingest(core, vault)
    note, chunk = await _alice(core)
    from_note = await walk(core.store, {note: "note:team/Alice.md"}, 2, None)
    from_chunk = await walk(core.store, {}, 2, None, seed_chunks=(chunk, chunk))
    assert from_chunk.names == from_note.names and from_chunk.depth == from_note.depth
    assert from_chunk.asserting == from_note.asserting and from_chunk.parent == from_note.parent
    assert "note:team/Carol.md" in from_chunk.names.values()  # two hops: Alice → Bob → Carol
    assert (await walk(core.store, {}, 2, None, seed_chunks=("no-such-chunk",))).names == {}


async def test_a_walk_scored_in_its_own_query_ranks_as_scored_apart(
    core: Core, vault: Path
) -> None:
    """walk_hops' scoring (one round trip) and walk_scores (a second) rank alike."""
    await _ingest(core, vault)
    note, _ = await _alice(core)
    qvec = list(await core.embedder.aget_query_embedding("Who reviews the rocket budget?"))
    seeds = {note: "note:team/Alice.md"}
    walked, scores = await walk_scored(core.store, seeds, 2, None, False, None, (), qvec)
    assert scores is not None and scores["notes"]
    # Bob's note has two chunks: both scored, the one about the budget ranked for Bob.
    assert len([c for c in scores["notes"] if c["path"] == "team/Bob.md"]) == 2
    folded: dict[str, HopPath] = {}
    apart: dict[str, HopPath] = {}
    ranked = await walk_ranking(core, "t", walked, qvec, folded, scores)
    assert ranked == await walk_ranking(core, "t", walked, qvec, apart)
    assert folded == apart and len(ranked) >= 3
    assert [s for _, s in ranked] == sorted((s for _, s in ranked), reverse=True)
    # Without a question vector nearness alone orders them, the same either way.
    _, unscored = await walk_scored(core.store, seeds, 2, None, False, None, (), None)
    assert await walk_ranking(core, "t", walked, None, {}, unscored) == await walk_ranking(
        core, "t", walked, None, {}
    )


async def test_the_view_holds_the_vault_languages_until_a_write(core: Core, vault: Path) -> None:
    ingestor = await _ingest(core, vault)
    view = await cached.vault_view(core.store, "t", core.memo, {})
    assert view.languages == ("en",) and view.notes == len(NOTES)
    assert view.generation is not None
    assert await cached.vault_view(core.store, "t", core.memo, {}) is view  # kept
    put(vault, "alberi.md", ITALIAN)
    await ingestor.upsert_path("alberi.md")
    after = await cached.vault_view(core.store, "t", core.memo, {})
    assert after.generation != view.generation
    # The most notes' language first: full text breaks a tie between two indexes by it.
    assert after.languages == ("en", "it") and after.notes == len(NOTES) + 1
    # Full text over the vault's languages finds what it finds over all six.
    for question in ("Che cosa sono gli alberi?", "Who runs the rocket schedule?"):
        everywhere = await search.fulltext(core.store, "t", question, 8)
        assert everywhere
        assert await search.fulltext(core.store, "t", question, 8, after.languages) == everywhere
    assert await search.fulltext(core.store, "t", "alberi", 8, ()) == []


async def test_the_seed_rankings_are_gathered_once_per_question(
    core: Core, vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The graph walk (from the best hits when no note is named, from the named notes' chunks
    otherwise) and the fusion await one started task, never a fresh gathering each."""
    await _ingest(core, vault)
    gathered: list[str] = []
    seed_rankings, named_first = Context._seed_rankings, Context._named_first

    async def counted_seeds(self: Context, seeds: list[str]) -> Rankings:
        gathered.append("seeds")
        return await seed_rankings(self, seeds)

    async def counted_named(self: Context) -> list[search.NamedNote]:
        gathered.append("named")
        return await named_first(self)

    monkeypatch.setattr(Context, "_seed_rankings", counted_seeds)
    monkeypatch.setattr(Context, "_named_first", counted_named)
    for question in ("Who runs the rocket schedule?", "Whom does Alice report to?"):
        gathered.clear()
        evidence = await retrieve(core, "t", question, top_k=5)
        assert evidence.hits and sorted(gathered) == ["named", "seeds"]
        assert "graph" in {r for h in evidence.hits for r in h.retrievers}


async def test_a_preset_retrieves_as_its_retrievers_and_ranker_named_alone(
    core: Core, vault: Path
) -> None:
    await _ingest(core, vault)
    question = "Who reviews the rocket budget with Bob?"
    for name in ("hybrid", "no-graph", "no-ppr", "full"):
        config = PRESETS[name]
        by_preset = await retrieve(core, "t", question, top_k=5, config=config)
        by_sets = await retrieve(
            core, "t", question, top_k=5, use=config.retrievers, ppr=config.ppr
        )
        assert [(h.id, h.score, h.retrievers) for h in by_preset.hits] == [
            (h.id, h.score, h.retrievers) for h in by_sets.hits
        ]
        used = {r for h in by_preset.hits for r in h.retrievers} - {"ppr"}
        assert by_preset.hits and used <= config.retrievers
        assert any("ppr" in h.retrievers for h in by_preset.hits) == bool(config.ppr)


DATED = {
    "log/2024-03-05.md": "# Standup\n\nThe rocket schedule slipped a day.\n",
    "log/2024-03-20.md": "# Review\n\nThe budget review went well.\n",
    "plans/Launch.md": "---\ndate: 2024-03-18\n---\n# Launch\n\nLaunch on 2024-04-02, then rest.\n",
    "plans/Budget.md": "# Budget\n\nAgreed on 2024-03-18 and again on 2023-12-01.\n",
}
WHEN = (
    "What happened on 2024-03-18?",
    "What was decided in March 2024?",
    "What happened in 2024?",
    "What happened between 2023 and 2024?",
    "Anything from 1999?",
)


async def test_the_kept_dated_notes_answer_as_the_query_until_a_write(
    core: Core, vault: Path
) -> None:
    for path, text in DATED.items():
        put(vault, path, text)
    ingestor = await _ingest(core, vault)
    view = await cached.vault_view(core.store, "t", core.memo, {})
    key = ("t", view.generation)
    for question in WHEN:
        scanned = await search.temporal(core.store, "t", question, 3)
        assert await cached.temporal(core.store, core.memo, key, question, 3) == scanned
    assert await search.temporal(core.store, "t", "What happened in March 2024?", 8)
    assert await cached.temporal(core.store, core.memo, key, "Who runs it?", 8) is None
    # A dated note written afterwards is found under the generation its write brings.
    day = "What happened on 2024-03-18?"
    before = await cached.temporal(core.store, core.memo, key, day, 8) or []
    put(vault, "log/2024-03-18.md", "# Liftoff\n\nThe rocket flew.\n")
    await ingestor.upsert_path("log/2024-03-18.md")
    after = await cached.vault_view(core.store, "t", core.memo, {})
    found = await cached.temporal(core.store, core.memo, ("t", after.generation), day, 8) or []
    assert found == await search.temporal(core.store, "t", day, 8)
    assert len(found) == len(before) + 1 and set(before) < set(found)


async def test_reads_return_plain_nested_values(core: Core, vault: Path) -> None:
    """Rows come back as decoded (no Record.data() pass): lists and maps as Python's own."""
    await _ingest(core, vault)
    _, chunk = await _alice(core)
    [row] = await core.store.read(CHUNKS_CITED, ids=[chunk], extractors=None, limit=10)
    assert type(row["chunks"]) is list and type(row["chunks"][0]) is dict
    assert (
        row["chunks"][0]["path"] == "team/Alice.md" and "Alice reports" in row["chunks"][0]["text"]
    )
    assert [(f["subject"], f["object"]) for f in row["facts"]] == [("Alice", "Bob")]


async def test_the_best_hits_facts_come_first_when_facts_are_cut(core: Core, vault: Path) -> None:
    """With more facts than the limit, the top hit's are kept, whatever its note's path."""
    many = " ".join(f"[[Linked {i}]]" for i in range(8))
    put(vault, "a/Many.md", f"# Many\n\nIt links {many}.\n")
    put(vault, "z/Top.md", "# Top\n\nTop works with [[Partner]].\n")
    await _ingest(core, vault)
    rows = await ad_hoc(
        core,
        "MATCH (n:Note {vault: 't'})-[:HAS_CHUNK]->(c:Chunk) RETURN n.path AS path, c.id AS id",
        {},
        write=False,
    )
    ids = {r["path"]: r["id"] for r in rows}
    order = [ids["z/Top.md"], ids["a/Many.md"]]  # Top ranked first
    [row] = await core.store.read(CHUNKS_CITED, ids=order, extractors=None, limit=4)
    facts = [(f["source"], f["object"]) for f in row["facts"]]
    assert ("z/Top.md", "Partner") in facts and len(facts) == 4
    assert facts == sorted(facts, key=lambda f: f[0])  # shown by note


FILM = {
    "Film X.md": "# Film X\n\nStarring [[Ann Reed]] and [[Ben Hale]], music by [[Cy Moss]].\n",
    "Ann Reed.md": "# Ann Reed\n\nWhere was Ann Reed born? Ann was born in Leeds.\n",
    "Ben Hale.md": "# Ben Hale\n\nWhere was Ben Hale born? Ben was born in York.\n",
    "Cy Moss.md": "# Cy Moss\n\nCy Moss is a composer, born in Hull.\n",
}


async def test_a_walk_says_which_of_the_questions_words_each_chunk_holds(
    core: Core, vault: Path
) -> None:
    """The walk's query and walk_scores (a kept walk's second round trip) read the words the
    same way, and rank alike with them (the ranking itself: tests/unit/test_walk_words.py)."""
    for path, text in FILM.items():
        put(vault, path, text)
    await sync_vault(Ingestor(core, root=vault, vault="t", extract_enabled=False))
    question = "Where was the composer of Film X born?"
    [film] = await search.named_notes(core.store, "t", question, len(FILM))
    seeds = {film.node: "note:Film X.md"}
    words = question_stems(question, seeds.values())
    # "where", "was", "the", "of" are stop words; "film" and "x" the name walked from.
    assert words == ("compos", "born")
    qvec = list(await core.embedder.aget_query_embedding(question))
    walked, scores = await walk_scored(core.store, seeds, 1, None, False, None, (), qvec, words)
    assert scores is not None
    held = {c["path"]: c["held"] for c in scores["notes"]}
    assert held == {"Ann Reed.md": [1], "Ben Hale.md": [1], "Cy Moss.md": [0, 1]}
    ranked = await walk_ranking(core, "t", walked, qvec, {}, scores, words)
    # The same from a second round trip (a walk kept from an earlier question).
    assert await walk_ranking(core, "t", walked, qvec, {}, None, words) == ranked


async def test_full_text_scores_other_pages_by_the_words_beyond_the_names(
    core: Core, vault: Path
) -> None:
    """A page that repeats the film's name is no answer to who wrote its music."""
    put(vault, "Film X.md", "# Film X\n\nA drama with [[Ann Reed]], music by [[Cy Moss]].\n")
    put(vault, "Ann Reed.md", "# Ann Reed\n\nAnn starred in the Film X music drama, Film X.\n")
    put(vault, "Cy Moss.md", "# Cy Moss\n\nCy Moss wrote music for the stage.\n")
    await sync_vault(Ingestor(core, root=vault, vault="t", extract_enabled=False))
    text = RetrievalConfig(retrievers=frozenset({"fulltext", "names"}), ppr=False)
    evidence = await retrieve(core, "t", "Who wrote the music of Film X?", top_k=3, config=text)
    assert [h.path for h in evidence.hits] == ["Film X.md", "Cy Moss.md", "Ann Reed.md"]
    # Full text alone, naming nothing, scores every page by the whole question.
    alone = RetrievalConfig(retrievers=frozenset({"fulltext"}), ppr=False)
    evidence = await retrieve(core, "t", "Who wrote the music of Film X?", top_k=3, config=alone)
    assert [h.path for h in evidence.hits][1] == "Ann Reed.md"
