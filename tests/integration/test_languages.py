"""Full text in each note's language on the real Neo4j: stemming and stop words of the note's
language, titles and aliases searchable, one language label per chunk, kept true on edits."""

from __future__ import annotations

from pathlib import Path

from knotwork.check.verify import verify_vault
from knotwork.core import Core, open_core
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.rows import FACTS_VERSION
from knotwork.ingest.sync import sync_vault
from knotwork.retrieve import cached, search
from knotwork.settings import Settings
from tests.integration.conftest import ad_hoc, put

TREES = (
    "# Strutture gerarchiche\n\nLe strutture gerarchiche come gli alberi hanno una radice, "
    "e ogni nodo ha dei figli.\n"
)
HOPITAL = (
    "## Enunciato\n\nSe il limite del rapporto di due funzioni si presenta in una forma "
    "indeterminata, allora si calcola il limite del rapporto delle loro derivate.\n"
)
MUX = (
    "# Come funziona\n\nCome funziona? Il circuito seleziona uno degli ingressi e lo porta "
    "all'uscita, secondo i bit di selezione.\n"
)
DOCS = "# Queues\n\nThe worker takes jobs from the queue and retries them when they fail.\n"


async def _labels(core: Core, path: str) -> list[tuple[str, list[str]]]:
    rows = await ad_hoc(
        core,
        "MATCH (c:Chunk {vault: 't', note_path: $path}) "
        "RETURN c.language AS language, [l IN labels(c) WHERE l <> 'Chunk'] AS labels",
        {"path": path},
        write=False,
    )
    return [(r["language"], sorted(r["labels"])) for r in rows]


async def _paths(core: Core, hits: list[tuple[str, float]]) -> list[str]:
    """The note paths of full-text hits, in their order."""
    rows = await ad_hoc(
        core,
        "UNWIND $ids AS id MATCH (c:Chunk {id: id}) RETURN c.note_path AS path",
        {"ids": [h for h, _ in hits]},
        write=False,
    )
    return [r["path"] for r in rows]


async def _top(core: Core, question: str) -> list[str]:
    return await _paths(core, await search.fulltext(core.store, "t", question, 5))


async def test_italian_notes_are_stemmed_and_found_by_title(core: Core, vault: Path) -> None:
    put(vault, "strutture.md", TREES)
    put(vault, "teorema de l'hopital.md", HOPITAL)
    put(vault, "multiplexer (MUX).md", MUX)
    put(vault, "queues.md", DOCS)
    await sync_vault(Ingestor(core, root=vault, vault="t", extract_enabled=False))

    assert await _labels(core, "strutture.md") == [("it", ["Italian"])]
    assert await _labels(core, "queues.md") == [("en", ["English"])]
    # "albero" and "alberi" share a stem in Italian; the note never writes "albero".
    assert (await _top(core, "Che cos'è un albero?"))[:1] == ["strutture.md"]
    # The note's body never repeats its title; its chunks carry it, accents folded.
    assert (await _top(core, "Che cosa dice il teorema di de l'Hôpital?"))[:1] == [
        "teorema de l'hopital.md"
    ]
    # English stemming for an English note: "retry" finds "retries".
    assert (await _top(core, "When does the worker retry a job?"))[:1] == ["queues.md"]
    # A question of stop words only matches nothing and is no error.
    assert await _top(core, "di che il") == []


async def test_an_edit_into_another_language_moves_the_chunk(core: Core, vault: Path) -> None:
    put(vault, "strutture.md", TREES)
    ingestor = Ingestor(core, root=vault, vault="t", extract_enabled=False)
    await sync_vault(ingestor)
    put(vault, "strutture.md", "# Strutture gerarchiche\n\n" + DOCS.split("\n\n", 1)[1])
    await ingestor.upsert_path("strutture.md")
    assert await _labels(core, "strutture.md") == [("en", ["English"])]
    assert await _top(core, "gli alberi") == []
    assert (await _top(core, "retrying workers"))[:1] == ["strutture.md"]
    assert await verify_vault(ingestor) == []


async def test_the_language_setting_applies_to_every_note(
    settings: Settings, empty_db: object, vault: Path
) -> None:
    put(vault, "strutture.md", TREES)
    put(vault, "queues.md", DOCS)
    async with open_core(settings.model_copy(update={"language": "de"})) as core:
        await core.ensure_ready()
        await sync_vault(Ingestor(core, root=vault, vault="t", extract_enabled=False))
        assert await _labels(core, "strutture.md") == [("de", ["German"])]
        assert await _labels(core, "queues.md") == [("de", ["German"])]


async def test_a_changed_setting_rewrites_every_note_on_the_next_sync(
    settings: Settings, empty_db: object, vault: Path
) -> None:
    put(vault, "strutture.md", TREES)
    put(vault, "queues.md", DOCS)
    async with open_core(settings) as core:
        await core.ensure_ready()
        first = await sync_vault(Ingestor(core, root=vault, vault="t", extract_enabled=False))
        assert first.written == 2
        again = await sync_vault(Ingestor(core, root=vault, vault="t", extract_enabled=False))
        assert (again.written, again.unchanged) == (0, 2)
    async with open_core(settings.model_copy(update={"language": "fr"})) as core:
        changed = await sync_vault(Ingestor(core, root=vault, vault="t", extract_enabled=False))
        assert (changed.written, changed.unchanged) == (2, 0)
        assert await _labels(core, "strutture.md") == [("fr", ["French"])]
        ingestor = Ingestor(core, root=vault, vault="t", extract_enabled=False)
        assert await verify_vault(ingestor) == []


async def test_verify_lists_chunks_left_in_another_languages_index(
    settings: Settings, empty_db: object, vault: Path
) -> None:
    """Synced under KNOTWORK_LANGUAGE=en, then verified under auto: the Italian note's chunk
    sits in the English index, which a fresh parse would not put it in, so it is stale."""
    put(vault, "strutture.md", TREES)
    async with open_core(settings.model_copy(update={"language": "en"})) as core:
        await core.ensure_ready()
        await sync_vault(Ingestor(core, root=vault, vault="t", extract_enabled=False))
        assert await _labels(core, "strutture.md") == [("en", ["English"])]
    async with open_core(settings) as core:
        ingestor = Ingestor(core, root=vault, vault="t", extract_enabled=False)
        [diff] = await verify_vault(ingestor)
        assert diff.part == "chunks"
        assert [line.endswith('"it/Italian"]') for line in diff.missing] == [True]
        assert [line.endswith('"en/English"]') for line in diff.stale] == [True]
        assert (await sync_vault(ingestor)).written == 1
        assert await verify_vault(ingestor) == []


GATES_IT = (
    "# Porte logiche\n\nLe porte logiche realizzano le funzioni booleane: ogni porta logica "
    "ha degli ingressi e una uscita, e le porte logiche si collegano in circuiti.\n"
)
CIRCUITS_IT = (
    "# Circuiti combinatori\n\nUn circuito combinatorio collega molte porte con dei fili; "
    "le sue uscite dipendono soltanto dagli ingressi del momento, senza alcuna memoria.\n"
)
ALGEBRA_IT = (
    "# Algebra di Boole\n\nL'algebra di Boole studia le variabili che valgono zero oppure "
    "uno, con le operazioni di somma, prodotto e complemento.\n"
)
GATES_EN = (
    "# Universal gates\n\nThe NAND gate and the NOR gate are universal: every other gate, "
    "and so every circuit, can be built from either of them alone. Italian course notes call "
    "gates porte, and they draw them with the same symbols as the English textbooks do.\n"
)


async def _order(core: Core, question: str) -> list[str]:
    view = await cached.vault_view(core.store, "t", core.memo, {})
    return await _paths(core, await search.fulltext(core.store, "t", question, 8, view.languages))


async def test_language_indexes_merge_by_share_of_their_own_best_whatever_else_is_stored(
    core: Core, vault: Path
) -> None:
    """An Italian vault's one English note is read against what the English index found for
    the question, not by a raw BM25 score, which another vault's English notes would move
    (its words are rare among them): the vault's order stays the same when they come."""
    put(vault, "porte logiche.md", GATES_IT)
    put(vault, "circuiti.md", CIRCUITS_IT)
    put(vault, "algebra.md", ALGEBRA_IT)
    put(vault, "universal gates.md", GATES_EN)
    await sync_vault(Ingestor(core, root=vault, vault="t", extract_enabled=False))
    assert await _labels(core, "universal gates.md") == [("en", ["English"])]
    question = "porte logiche"
    alone = await _order(core, question)
    # Each index's best comes first, the vault's main language's before the other's.
    assert alone[:3] == ["porte logiche.md", "universal gates.md", "circuiti.md"]
    assert (await cached.vault_view(core.store, "t", core.memo, {})).languages == ("it", "en")

    other = vault.parent / "other"
    for i in range(30):
        put(other, f"queue {i}.md", f"# Queue {i}\n\n{DOCS.split(chr(10) * 2, 1)[1]}")
    await sync_vault(Ingestor(core, root=other, vault="o", extract_enabled=False))
    assert await _order(core, question) == alone


async def test_one_languages_index_crowded_by_another_vault_is_asked_again_on_its_own(
    core: Core, vault: Path
) -> None:
    """The Italian index gives enough of the vault's chunks at once; the English index's first
    page is all another vault's. The vault's English chunk is still found: each index is asked
    again while it holds fewer than k of the vault's own, whatever the other indexes gave."""
    put(vault, "porte logiche.md", GATES_IT)
    put(vault, "circuiti.md", CIRCUITS_IT)
    put(vault, "universal gates.md", GATES_EN)
    await sync_vault(Ingestor(core, root=vault, vault="t", extract_enabled=False))
    other = vault.parent / "crowd"
    for i in range(40):
        put(other, f"ports {i}.md", f"# Ports {i}\n\nThe porte and the logiche are what we use.\n")
    await sync_vault(Ingestor(core, root=other, vault="o", extract_enabled=False))
    view = await cached.vault_view(core.store, "t", core.memo, {})
    assert view.languages == ("it", "en")
    english = await search.fulltext(core.store, "o", "porte logiche", 40, ("en",))
    assert len(english) == 40  # the other vault's English chunks all match, past a first page
    found = await search.fulltext(core.store, "t", "porte logiche", 2, view.languages)
    assert await _paths(core, found) == ["porte logiche.md", "universal gates.md"]


async def test_thai_notes_are_split_into_words_and_found_by_any_of_them(
    core: Core, vault: Path
) -> None:
    """Thai runs its words together: its notes sit in the Thai index, whose analyzer splits
    them with a dictionary, so a question finds a note by a word inside a run, not only by the
    run written exactly as the note writes it."""
    put(vault, "เชียงใหม่.md", "# เชียงใหม่\n\nเชียงใหม่เป็นเมืองทางภาคเหนือของประเทศไทย\n")
    put(vault, "ภูเก็ต.md", "# ภูเก็ต\n\nภูเก็ตเป็นเกาะทางภาคใต้\n")
    await sync_vault(Ingestor(core, root=vault, vault="t", extract_enabled=False))
    assert await _labels(core, "ภูเก็ต.md") == [("th", ["Thai"])]
    assert (await _top(core, "เกาะอยู่ที่ไหน"))[:1] == ["ภูเก็ต.md"]  # "island": one word of a run
    assert (await _top(core, "ภาคเหนือมีเมืองอะไรบ้าง"))[:1] == ["เชียงใหม่.md"]


async def test_cjk_notes_are_paired_and_found_by_a_word_inside_a_run(
    core: Core, vault: Path
) -> None:
    """Korean writes a word with its particle as one run, Chinese no word apart: their notes
    sit in the `cjk` index, which pairs neighbouring characters, so a question finds a note by
    a word inside a run; a question of one character finds the pairs it begins or ends."""
    put(vault, "seoul.md", "# 도시\n\n서울은 한국의 수도입니다\n")
    put(vault, "beijing.md", "# 城市\n\n北京大学在北京市海淀区。\n")
    put(vault, "cat.md", "# 动物\n\n小猫很可爱\uff0c我爱小猫\n")
    put(vault, "queues.md", DOCS)
    ingestor = Ingestor(core, root=vault, vault="t", extract_enabled=False)
    await sync_vault(ingestor)
    assert await _labels(core, "seoul.md") == [("cjk", ["CJK"])]
    assert await _labels(core, "beijing.md") == [("cjk", ["CJK"])]
    assert await _labels(core, "queues.md") == [("en", ["English"])]
    assert await _top(core, "서울") == ["seoul.md"]  # "서울은": the city with its particle
    assert await _top(core, "수도는 어디입니까?") == ["seoul.md"]  # "수도입니다"
    assert await _top(core, "海淀区在哪里\uff1f") == ["beijing.md"]
    assert await _top(core, "大学") == ["beijing.md"]
    assert await _top(core, "猫") == ["cat.md"]  # no lone 猫: by 猫很 and 小猫
    assert await _top(core, "물") == []
    # English beside them is still searched in its own index.
    assert (await _top(core, "When does the worker retry a job?"))[:1] == ["queues.md"]
    assert await verify_vault(ingestor) == []


async def test_russian_and_arabic_notes_are_stemmed_and_their_letters_folded(
    core: Core, vault: Path
) -> None:
    """Russian and Arabic notes sit in their own indexes (chunk_text_ru, chunk_text_ar): a
    question finds them by another form of a word ("Москва" in "Москве"), Russian ye for
    yo, Arabic without its article or with another form of alef or ta marbuta."""
    put(vault, "moscow.md", "# Город\n\nВ Москве живёт ёжик, который любит яблоки.\n")  # noqa: RUF001
    put(vault, "cairo.md", "# المدينة\n\nذهب أحمد إلى المدرسة الكبيرة في القاهرة.\n")  # noqa: RUF001
    put(vault, "queues.md", DOCS)
    ingestor = Ingestor(core, root=vault, vault="t", extract_enabled=False)
    await sync_vault(ingestor)
    assert await _labels(core, "moscow.md") == [("ru", ["Russian"])]
    assert await _labels(core, "cairo.md") == [("ar", ["Arabic"])]
    assert await _top(core, "Москва") == ["moscow.md"]
    assert await _top(core, "Где живет ежик?") == ["moscow.md"]
    assert await _top(core, "مدرسة") == ["cairo.md"]  # "المدرسة": the article stripped
    assert await _top(core, "احمد") == ["cairo.md"]  # "أحمد": alef with hamza folded
    assert (await _top(core, "When does the worker retry a job?"))[:1] == ["queues.md"]
    assert await verify_vault(ingestor) == []
    # A graph written before these indexes held them in the default language's index: the next
    # sync rewrites them (FACTS_RULES 24), which moves them.
    await ad_hoc(
        core,
        "MATCH (n:Note {vault: 't'})-[:HAS_CHUNK]->(c:Chunk) WHERE c.language IN ['ru', 'ar'] "
        "SET n.facts_version = $rule_23, c.language = 'en' REMOVE c:Russian:Arabic SET c:English",
        {"rule_23": FACTS_VERSION - 100},
        write=True,
    )
    assert await _top(core, "Москва") == []  # the English index has "Москве" only
    assert (await sync_vault(ingestor)).written == 2
    assert await _labels(core, "moscow.md") == [("ru", ["Russian"])]
    assert await _top(core, "Москва") == ["moscow.md"]
    assert await verify_vault(ingestor) == []


async def test_a_cjk_note_indexed_by_an_earlier_version_moves_on_the_next_sync(
    core: Core, vault: Path
) -> None:
    """Before the `cjk` index a Korean note sat in the default language's index: the next sync
    rewrites it (FACTS_RULES 17), which moves its chunks to the `cjk` index."""
    put(vault, "seoul.md", "# 도시\n\n서울은 한국의 수도입니다\n")
    ingestor = Ingestor(core, root=vault, vault="t", extract_enabled=False)
    await sync_vault(ingestor)
    await ad_hoc(
        core,
        "MATCH (n:Note {vault: 't'})-[:HAS_CHUNK]->(c:Chunk) "
        "SET n.facts_version = $rule_16, c.language = 'en' REMOVE c:CJK SET c:English",
        {"rule_16": FACTS_VERSION - 100},
        write=True,
    )
    assert await _top(core, "서울") == []  # the English index has the run "서울은" only
    assert (await sync_vault(ingestor)).written == 1
    assert await _labels(core, "seoul.md") == [("cjk", ["CJK"])]
    assert await _top(core, "서울") == ["seoul.md"]
    assert await verify_vault(ingestor) == []
