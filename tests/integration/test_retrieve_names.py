"""Name specificity on the real Neo4j: a note named by a word most of the vault writes out
is neither taken as the question's subject nor walked to through text mentions."""

from __future__ import annotations

from pathlib import Path

from knotwork.core import Core
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from knotwork.retrieve import retrieve, search
from knotwork.retrieve.graphrank import entity_seeds
from knotwork.retrieve.walk import walk
from tests.integration.conftest import put

GUIDES = 8  # notes that write "api" out: more than a 11-note vault allows a specific name


async def _vault(vault: Path, ingestor: Ingestor) -> None:
    put(vault, "Api.md", "# Api\n\nThe api reference: endpoints and versions.\n")
    put(vault, "Zephyr.md", "# Zephyr\n\nZephyr is the batch scheduler of the platform.\n")
    put(vault, "Guide.md", "# Guide\n\nZephyr jobs are submitted through the api.\n")
    for i in range(GUIDES - 1):
        put(vault, f"howto/Topic {i}.md", f"# Topic {i}\n\nCall the api for task {i}.\n")
    await sync_vault(ingestor)


async def test_a_generic_name_is_not_the_subject(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    await _vault(vault, ingestor)
    notes = await search.vault_notes(core.store, "t")
    assert notes == GUIDES + 2
    named = await search.named_notes(core.store, "t", "How does the api run Zephyr jobs?", notes)
    rarity = {n.path: n.specificity for n in named}
    assert rarity["Zephyr.md"] == 1.0  # one note writes it out
    assert rarity["Api.md"] < 0.5  # eight of ten do
    evidence = await retrieve(core, "t", "How does the api run Zephyr jobs?", top_k=5)
    by_path = {h.path: h for h in evidence.hits}
    assert "names" in by_path["Zephyr.md"].retrievers
    assert all("names" not in h.retrievers for h in evidence.hits if h.path == "Api.md")


async def test_mentions_of_a_generic_name_are_not_walked(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    await _vault(vault, ingestor)
    [zephyr] = await search.named_notes(core.store, "t", "zephyr", GUIDES + 2)
    seeds = {zephyr.node: "note:Zephyr.md"}
    limit = search.max_mentioned_by(GUIDES + 2, 0.5)
    assert limit < GUIDES
    # Zephyr ← Guide (a specific name) is walked; Guide → Api (a generic one) is not.
    bounded = await walk(core.store, seeds, 2, None, max_mentioned_by=limit)
    assert "note:Guide.md" in bounded.names.values()
    assert "note:Api.md" not in bounded.names.values()
    # The control: without the bound the same walk reaches the api note through Guide.
    unbounded = await walk(core.store, seeds, 2, None)
    assert "note:Api.md" in unbounded.names.values()
    evidence = await retrieve(core, "t", "What is Zephyr?", top_k=5)
    assert not [p for p in evidence.paths if "note:Api.md" in p.nodes]


async def test_the_vault_size_is_counted_once_a_minute(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    await _vault(vault, ingestor)
    memo: dict[str, tuple[float, int]] = {}
    assert await search.vault_notes(core.store, "t", memo) == GUIDES + 2
    put(vault, "Later.md", "# Later\n\nOne more note.\n")
    await ingestor.upsert_path("Later.md")
    assert await search.vault_notes(core.store, "t", memo) == GUIDES + 2  # reused
    assert await search.vault_notes(core.store, "t") == GUIDES + 3  # counted afresh
    when, notes = memo["t"]
    memo["t"] = (when - search.SIZE_TTL_S, notes)  # a minute on
    assert await search.vault_notes(core.store, "t", memo) == GUIDES + 3


FILLER = " ".join(f"word{i}" for i in range(40))  # dilutes the section's embedding


async def _sections_vault(vault: Path, ingestor: Ingestor) -> None:
    """A named note of many short sections and one long one that answers; notes it links."""
    short = "\n\n".join(
        f"## Kind {i}\n\nThe flip-flop of kind {i}, see [[Latch {i}]]." for i in range(8)
    )
    behaviour = (
        f"## Behaviour\n\n{FILLER}. A flip-flop is edge-triggered: it changes state on the "
        f"rising edge or on the falling edge of the clock. {FILLER}."
    )
    put(vault, "Flip-flop.md", f"# Flip-flop\n\n{short}\n\n{behaviour}\n")
    for i in range(8):
        put(vault, f"Latch {i}.md", f"# Latch {i}\n\nA latch of kind {i}, a memory cell.\n")
    await sync_vault(ingestor)


async def test_the_named_notes_section_the_question_asks_about_ranks_first(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    """The section of a named note whose words the question uses leads, although the
    embedding alone puts the note's short sections nearer, and the walk from the named note
    does not vote its neighbours above it."""
    await _sections_vault(vault, ingestor)
    question = "What does it mean that a flip-flop is edge-triggered?"
    [named] = await search.named_notes(core.store, "t", question, 9)
    assert named.path == "Flip-flop.md"
    evidence = await retrieve(core, "t", question, top_k=5)
    order = [(h.path, h.heading) for h in evidence.hits]
    asked = order.index(("Flip-flop.md", "Flip-flop > Behaviour"))
    assert asked <= 1  # at most the note's opening before it
    assert all(path == "Flip-flop.md" for path, _ in order[:asked])  # no neighbour above it
    assert {"names", "graph"} <= set(evidence.hits[asked].retrievers)


DEC = (
    "Un decodificatore è un circuito combinatorio con n ingressi e 2^n uscite che attiva "
    "una sola uscita per ogni combinazione degli ingressi.\n\n"
    "## Decodificatore standard\n\nNel decodificatore standard ogni uscita del "
    "decodificatore è un mintermine degli ingressi del decodificatore.\n\n"
    "## Decodificatore non standard\n\nUn decodificatore non standard ha meno uscite; il "
    "decodificatore non standard si ottiene dal decodificatore standard.\n"
)
ENC = (
    "Un codificatore è il circuito inverso: riceve una sola linea attiva tra 2^n ingressi e "
    "ne restituisce il numero in binario su n uscite.\n\n"
    "## Codificatore con priorità\n\nIl codificatore con priorità sceglie, tra più "
    "ingressi attivi del codificatore, quello di indice più alto del codificatore.\n"
)


async def test_named_notes_open_with_their_openings_in_turns(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    """ "What is the difference between X and Y" asks what each is: the two notes' openings
    lead, one after the other, though the sections that repeat the names in their headings
    score higher in full text (the name's words again)."""
    put(vault, "decodificatore (DEC).md", DEC)
    put(vault, "codificatore (ENC).md", ENC)
    put(vault, "multiplexer.md", "Un multiplexer sceglie uno tra più ingressi.\n")
    await sync_vault(ingestor)
    question = "Che differenza c'è tra decodificatore e codificatore?"
    named = await search.named_notes(core.store, "t", question, 3)
    assert {n.path for n in named} == {"decodificatore (DEC).md", "codificatore (ENC).md"}
    text = await search.fulltext(core.store, "t", question, 8)
    sections = await search.cited(core.store, [c for c, _ in text], None, 0)
    assert sections[0][text[0][0]]["heading_path"] != ""  # full text alone: a section first
    evidence = await retrieve(core, "t", question, top_k=4)
    openings = [(h.path, h.heading) for h in evidence.hits[:2]]
    assert sorted(openings) == [("codificatore (ENC).md", ""), ("decodificatore (DEC).md", "")]
    assert all("names" in h.retrievers for h in evidence.hits[:2])
    assert {n.lead for n in named} == {h.id for h in evidence.hits[:2]}


async def test_a_bare_title_heading_is_no_opening(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    """A note that starts with its title heading and goes straight into a section has no
    opening: the heading line alone ("# Alice") is not put ahead of the section asked about."""
    put(vault, "People/Alice.md", "# Alice\n\n## Work\nAlice works with [[Bob]] on the graph.\n")
    put(vault, "Bob.md", "# Bob\n\nBob keeps the graph database running.\n")
    await sync_vault(ingestor)
    question = "Who does Alice work with on the graph?"
    [alice] = [n for n in await search.named_notes(core.store, "t", question, 2)]
    assert alice.lead is None
    [bob] = await search.named_notes(core.store, "t", "What does Bob do?", 2)
    assert bob.lead is not None  # "# Bob" and its text are one chunk: an opening
    evidence = await retrieve(core, "t", question, top_k=3)
    assert (evidence.hits[0].path, evidence.hits[0].heading) == ("People/Alice.md", "Alice > Work")


async def test_the_walk_does_not_vote_again_for_the_named_notes_linking_sections(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    """A named note's sections that link onwards are its own text: the walk votes for the
    notes they lead to, not for them (the names and full text already rank them)."""
    await _sections_vault(vault, ingestor)
    question = "What does it mean that a flip-flop is edge-triggered?"
    evidence = await retrieve(core, "t", question, top_k=12)
    own = [h for h in evidence.hits if h.path == "Flip-flop.md"]
    assert [h for h in own if "Kind" in h.heading]  # its linking sections are ranked
    for hit in own:  # … but the walk votes only for those it started from, the named ones
        assert ("graph" in hit.retrievers) == ("names" in hit.retrievers), hit.heading
    assert any("graph" in h.retrievers for h in evidence.hits if h.path.startswith("Latch"))


async def test_a_chinese_question_names_its_note_inside_a_run_of_characters(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    """A Chinese question writes its words together: the note it names is found by its
    characters, and the names retriever brings it first."""
    put(vault, "北京大学.md", "# 北京大学\n\n北京大学位于海淀区，成立于1898年。\n")  # noqa: RUF001
    put(vault, "上海.md", "# 上海\n\n上海是中国的经济中心。\n")
    put(vault, "日记.md", "# 日记\n\n今天去了上海。\n")
    await sync_vault(ingestor)
    question = "北京大学在哪里？"  # noqa: RUF001 (a Chinese question mark)
    named = await search.named_notes(core.store, "t", question, 3)
    assert [n.path for n in named] == ["北京大学.md"]
    evidence = await retrieve(core, "t", question, top_k=3)
    assert evidence.hits[0].path == "北京大学.md" and "names" in evidence.hits[0].retrievers


async def test_a_thai_question_names_its_note_inside_a_run_of_letters(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    """Thai writes its words together too, its letters carrying vowel signs and tone marks:
    the note a Thai question names is found by its letters, and brought first."""
    put(vault, "เชียงใหม่.md", "# เชียงใหม่\n\nเชียงใหม่เป็นเมืองทางภาคเหนือของประเทศไทย\n")
    put(vault, "ภูเก็ต.md", "# ภูเก็ต\n\nภูเก็ตเป็นเกาะทางภาคใต้\n")
    put(vault, "บันทึก.md", "# บันทึก\n\nวันนี้ไปภูเก็ตมา\n")
    await sync_vault(ingestor)
    question = "เชียงใหม่อยู่ที่ไหน"
    named = await search.named_notes(core.store, "t", question, 3)
    assert [n.path for n in named] == ["เชียงใหม่.md"]
    evidence = await retrieve(core, "t", question, top_k=3)
    assert evidence.hits[0].path == "เชียงใหม่.md" and "names" in evidence.hits[0].retrievers


async def test_a_japanese_question_names_no_note_by_the_tail_of_a_longer_name(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    """ "東京都庁" names 東京 (Tokyo), not 京都 (Kyoto), which only the overlap of 東京 and 都
    writes: neither as a note nor as an entity (an alias) the synonym walk starts from."""
    put(vault, "京都.md", "---\naliases: [Kyoto no miyako, 京都]\n---\n# 京都\n\n古い都。\n")
    put(vault, "東京.md", "---\naliases: [東京]\n---\n# 東京\n\n日本の首都。\n")
    await sync_vault(ingestor)
    question = "東京都庁はどこ\uff1f"
    named = await search.named_notes(core.store, "t", question, 2)
    assert [n.path for n in named] == ["東京.md"]
    assert set((await entity_seeds(core, "t", question, [])).values()) == {"entity:東京"}
    # Where nothing overlaps it, Kyoto is named.
    named = await search.named_notes(core.store, "t", "東京から京都まで", 2)
    assert sorted(n.path for n in named) == ["京都.md", "東京.md"]
    seeds = await entity_seeds(core, "t", "東京から京都まで", [])
    assert set(seeds.values()) == {"entity:東京", "entity:京都"}
