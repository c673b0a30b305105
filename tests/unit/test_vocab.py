"""The relation vocabulary: closed set, safe mapping, link phrases and frontmatter keys."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from knotwork.text import vocab
from knotwork.text.link_relations import infer_relations
from knotwork.text.vocab import (
    GENERIC,
    LINK_PHRASES,
    MONTHS,
    RELATIONS,
    frontmatter_relation,
    phrase_relation,
    safe_relation,
)

REQUIRED = [
    "LINKS_TO", "EMBEDS", "MENTIONS", "HAS_ALIAS", "HAS_TAG", "RELATED_TO", "HAS_PROPERTY",
    "WORKS_WITH", "WORKS_AT", "WORKS_ON", "REPORTS_TO", "MANAGES", "MEMBER_OF", "PART_OF",
    "BELONGS_TO", "HAS_PARENT", "HAS_ROLE", "HAS_STATUS", "HAS_PARTICIPANT", "HAS_RESPONSIBLE",
    "HAS_LICENSE", "LOCATED_IN", "HAS_DATE", "HAS_BUDGET", "HAS_DURATION", "HAS_AUTHOR",
    "CREATED_BY", "DEPENDS_ON", "USES", "KNOWS", "FRIEND_OF", "MARRIED_TO", "CHILD_OF",
    "PARENT_OF", "BORN_IN", "DIED_IN", "STUDIED_AT", "FOUNDED", "LEADS", "SUPERSEDES", "SEE_ALSO",
    "HAS_CATEGORY", "HAS_TYPE", "HAS_PRIORITY", "HAS_CLIENT", "HAS_OWNER",
]  # fmt: skip

# Relations the brief asks every language to express through link phrases.
PHRASE_RELATIONS = [
    "WORKS_WITH", "REPORTS_TO", "MANAGES", "PART_OF", "MEMBER_OF", "LOCATED_IN", "WORKS_AT",
    "WORKS_ON", "DEPENDS_ON", "USES", "HAS_AUTHOR", "CREATED_BY", "MARRIED_TO", "CHILD_OF",
    "BORN_IN", "STUDIED_AT", "FOUNDED", "LEADS", "SUPERSEDES", "SEE_ALSO", "BELONGS_TO", "KNOWS",
    "FRIEND_OF",
]  # fmt: skip


# The subjects named in the lines below, each read as a line of its own note ("Alice works
# with [[Bob]]" in Alice.md): in another note they name another subject than the note's.
_OWN_NAMES = ("Alice", "Maria", "Ana", "Eve")


def _links(line: str) -> list[str]:
    """The relations inferred for every [[link]] on a line."""
    spans = [m.span() for m in re.finditer(r"!?\[\[[^\]]*\]\]", line)]
    return infer_relations(line, spans, names=_OWN_NAMES)


def test_relations_are_closed_and_valid_type_names() -> None:
    assert set(REQUIRED) <= RELATIONS
    assert GENERIC == "RELATED_TO" and GENERIC in RELATIONS
    assert all(re.fullmatch(r"[A-Z][A-Z0-9_]{0,49}", r) for r in RELATIONS)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("WORKS_WITH", "WORKS_WITH"),
        ("works with", "WORKS_WITH"),
        ("works-with", "WORKS_WITH"),
        ("  Reports To ", "REPORTS_TO"),
        ("made_up_relation", GENERIC),
        ("", GENERIC),
        ("KNOWS]->(x) DETACH DELETE x //", GENERIC),
    ],
)
def test_safe_relation(name: str, expected: str) -> None:
    assert safe_relation(name) == expected


@given(st.text())
def test_safe_relation_never_leaves_the_vocabulary(name: str) -> None:
    assert safe_relation(name) in RELATIONS


def test_phrase_tables_cover_every_language_and_do_not_conflict() -> None:
    assert set(LINK_PHRASES) == {"en", "it", "de", "fr", "es", "pt"}
    for lang, table in LINK_PHRASES.items():
        assert set(PHRASE_RELATIONS) <= set(table), lang
        assert set(table) <= RELATIONS, lang
        for relation, phrases in table.items():
            for phrase in phrases:  # each phrase, alone, reads as its own relation
                assert phrase_relation(phrase) == relation, (lang, phrase)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        # English, with inflections
        ("Alice works with [[Bob]]", ["WORKS_WITH"]),
        ("She worked with [[Bob]] and reported to [[Carol]]", ["WORKS_WITH", "REPORTS_TO"]),
        ("Working at [[Acme]], based in [[Berlin]]", ["WORKS_AT", "LOCATED_IN"]),
        ("Son of [[Ann]], married to [[Ben]], studied at [[MIT]]", ["CHILD_OF", "MARRIED_TO",
                                                                     "STUDIED_AT"]),
        ("This replaces [[Old Spec]]; see also [[Notes]]", ["SUPERSEDES", "SEE_ALSO"]),
        ("Written by [[Ann]], depends on [[Lib]] and uses [[Tool]]", ["HAS_AUTHOR", "DEPENDS_ON",
                                                                      "USES"]),
        # Italian
        ("Maria lavora con [[Luca]]", ["WORKS_WITH"]),
        ("Lavorava con [[Luca]], riporta a [[Anna]]", ["WORKS_WITH", "REPORTS_TO"]),
        ("Lavorano presso [[Acme]] e fa parte del [[Team]]", ["WORKS_AT", "PART_OF"]),
        ("Nato a [[Roma]], figlio di [[Pietro]], sposato con [[Giulia]]", ["BORN_IN", "CHILD_OF",
                                                                          "MARRIED_TO"]),
        ("È membro dell'[[Associazione]], vedi anche [[Storia]]", ["MEMBER_OF", "SEE_ALSO"]),
        # German
        ("Sie arbeitet mit [[Jonas]]", ["WORKS_WITH"]),
        ("Er arbeitete mit [[Jonas]] und berichtet an [[Eva]]", ["WORKS_WITH", "REPORTS_TO"]),
        ("Arbeitet bei der [[Firma]], wohnt in [[Berlin]]", ["WORKS_AT", "LOCATED_IN"]),
        ("Geboren in [[Wien]], studierte an der [[TU]], verheiratet mit [[Ida]]",
         ["BORN_IN", "STUDIED_AT", "MARRIED_TO"]),
        ("Ist Teil des [[Projekts]], gehört zu [[Gruppe]]", ["PART_OF", "BELONGS_TO"]),
        # French
        ("Elle travaille avec [[Paul]]", ["WORKS_WITH"]),
        ("Il travaillait avec [[Paul]] et travaille chez [[Acme]]", ["WORKS_WITH", "WORKS_AT"]),
        ("Fait partie de l'[[Équipe]], membre du [[Club]]", ["PART_OF", "MEMBER_OF"]),
        ("Née à [[Lyon]], fille de [[Marie]], mariée avec [[Luc]]", ["BORN_IN", "CHILD_OF",
                                                                     "MARRIED_TO"]),
        ("Dépend de [[Lib]], voir aussi [[Doc]]", ["DEPENDS_ON", "SEE_ALSO"]),
        # Spanish
        ("Ana trabaja con [[Pedro]]", ["WORKS_WITH"]),
        ("Trabajaba con [[Pedro]] y reporta a [[Luis]]", ["WORKS_WITH", "REPORTS_TO"]),
        ("Trabaja en [[Acme]] y vive en [[Madrid]]", ["WORKS_AT", "LOCATED_IN"]),
        ("Trabaja en el proyecto [[Atlas]]", ["WORKS_ON"]),
        ("Hijo de [[Juan]], casado con [[Rosa]], estudió en la [[UNAM]]", ["CHILD_OF", "MARRIED_TO",
                                                                           "STUDIED_AT"]),
        # Portuguese
        ("Ela trabalha com [[João]]", ["WORKS_WITH"]),
        ("Trabalhava com [[João]] e trabalha na [[Empresa]]", ["WORKS_WITH", "WORKS_AT"]),
        ("Mora no [[Rio]], faz parte da [[Equipe]]", ["LOCATED_IN", "PART_OF"]),
        ("Nasceu em [[Lisboa]], filha de [[Ana]], casada com [[Rui]]", ["BORN_IN", "CHILD_OF",
                                                                         "MARRIED_TO"]),
        ("Fundou a [[Startup]] e conhece [[Pedro]]", ["FOUNDED", "KNOWS"]),
    ],
)  # fmt: skip
def test_link_phrases_in_six_languages(line: str, expected: list[str]) -> None:
    assert _links(line) == expected


def test_brief_example_and_inheritance() -> None:
    assert _links("Alice works with [[Bob]] and reports to [[Carol]]") == [
        "WORKS_WITH",
        "REPORTS_TO",
    ]
    assert _links("works with [[A]] and [[B]]") == ["WORKS_WITH", "WORKS_WITH"]
    assert _links("works with [[A]], [[B]] & [[C]] or [[D]]") == ["WORKS_WITH"] * 4
    assert _links("lavora con [[A]], [[B]] e [[C]]") == ["WORKS_WITH"] * 3
    assert _links("arbeitet mit [[A]] und [[B]] oder [[C]]") == ["WORKS_WITH"] * 3
    assert _links("travaille avec [[A]] et [[B]] ou [[C]]") == ["WORKS_WITH"] * 3
    assert _links("trabaja con [[A]] y [[B]] o [[C]]") == ["WORKS_WITH"] * 3
    assert _links("trabalha com [[A]] e [[B]] ou [[C]]") == ["WORKS_WITH"] * 3
    assert _links("works with [[A]][[B]]") == ["WORKS_WITH", "WORKS_WITH"]


def test_no_inheritance_across_other_words() -> None:
    assert _links("works with [[A]], who once met [[B]]") == ["WORKS_WITH", "LINKS_TO"]
    assert _links("works with [[A]] near [[B]]") == ["WORKS_WITH", "LINKS_TO"]
    assert _links("[[A]] and [[B]]") == ["LINKS_TO", "LINKS_TO"]
    assert _links("Just a mention of [[A]]") == ["LINKS_TO"]


def test_a_cue_in_an_earlier_clause_says_nothing_of_the_link() -> None:
    assert _links("Beacon uses Atlas. Owner: [[Dieter]].") == ["LINKS_TO"]
    assert _links("Ben reports to nobody; his cat is [[Whiskers]]") == ["LINKS_TO"]
    assert _links("Works with Ann! Later [[X]]") == ["LINKS_TO"]
    assert _links("Lavora con Anna。[[X]]") == ["LINKS_TO"]
    assert _links("works with [[A]]. [[B]]") == ["WORKS_WITH", "LINKS_TO"]  # not inherited
    assert _links("This replaces [[Old]]; see also [[New]]") == ["SUPERSEDES", "SEE_ALSO"]
    # a period after an abbreviation or a title ends no clause
    assert _links("works with Dr. [[Smith]]") == ["WORKS_WITH"]
    assert _links("She uses e.g. [[Git]]") == ["USES"]
    assert _links("lavora con il Dott. [[Rossi]]") == ["WORKS_WITH"]
    assert _links("works with [[A]]; [[B]]") == ["WORKS_WITH", "WORKS_WITH"]  # a list


def test_closest_match_wins() -> None:
    assert _links("He reports to the team and works with [[X]]") == ["WORKS_WITH"]
    assert _links("Works with Ann but reports to [[X]]") == ["REPORTS_TO"]
    # the longest phrase ending nearest the link beats a shorter one inside it
    assert _links("Alice is managed by [[Bob]]") == ["REPORTS_TO"]
    assert _links("Alice managed [[Bob]]") == ["MANAGES"]
    assert _links("This company was founded by [[Eve]]") == ["CREATED_BY"]
    assert _links("Eve founded [[Acme]]") == ["FOUNDED"]


def test_phrases_are_word_bounded_case_insensitive_and_unicode_aware() -> None:
    assert _links("reworks with [[A]]") == ["LINKS_TO"]
    assert _links("WORKS   WITH [[A]]") == ["WORKS_WITH"]
    assert _links("ARBEITET MIT [[A]]") == ["WORKS_WITH"]
    assert _links("Gehört zu [[A]]") == ["BELONGS_TO"]
    assert _links("NÉE À [[Paris]]") == ["BORN_IN"]
    assert _links("e\u0301tudie\u0301 a\u0300 [[Sorbonne]]") == ["STUDIED_AT"]  # decomposed
    assert _links("membro dell\u2019[[Ordine]]") == ["MEMBER_OF"]  # typographic apostrophe
    assert _links("cf. [[A]]") == ["SEE_ALSO"]


@given(st.text(max_size=200), st.lists(st.tuples(st.integers(-5, 250), st.integers(-5, 250))))
def test_infer_relations_is_total(line: str, spans: list[tuple[int, int]]) -> None:
    relations = infer_relations(line, spans)
    assert len(relations) == len(spans)
    assert set(relations) <= RELATIONS


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        ("role", "HAS_ROLE"), ("Ruolo", "HAS_ROLE"), ("Rolle", "HAS_ROLE"), ("rôle", "HAS_ROLE"),
        ("rol", "HAS_ROLE"), ("papel", "HAS_ROLE"),
        ("status", "HAS_STATUS"), ("stato", "HAS_STATUS"), ("Stand", "HAS_STATUS"),
        ("statut", "HAS_STATUS"), ("estado", "HAS_STATUS"),
        ("participants", "HAS_PARTICIPANT"), ("partecipanti", "HAS_PARTICIPANT"),
        ("Teilnehmer", "HAS_PARTICIPANT"), ("participantes", "HAS_PARTICIPANT"),
        ("responsible", "HAS_RESPONSIBLE"), ("responsabile", "HAS_RESPONSIBLE"),
        ("verantwortlich", "HAS_RESPONSIBLE"), ("responsable", "HAS_RESPONSIBLE"),
        ("responsável", "HAS_RESPONSIBLE"), ("responsavel", "HAS_RESPONSIBLE"),
        ("owner", "HAS_OWNER"),
        ("license", "HAS_LICENSE"), ("licence", "HAS_LICENSE"), ("licenza", "HAS_LICENSE"),
        ("Lizenz", "HAS_LICENSE"), ("licencia", "HAS_LICENSE"), ("licença", "HAS_LICENSE"),
        ("location", "LOCATED_IN"), ("luogo", "LOCATED_IN"), ("sede", "LOCATED_IN"),
        ("ort", "LOCATED_IN"), ("Standort", "LOCATED_IN"), ("lieu", "LOCATED_IN"),
        ("ubicación", "LOCATED_IN"), ("ubicacion", "LOCATED_IN"), ("localização", "LOCATED_IN"),
        ("local", "LOCATED_IN"),
        ("tags", "HAS_TAG"), ("tag", "HAS_TAG"),
        ("date", "HAS_DATE"), ("data", "HAS_DATE"), ("Datum", "HAS_DATE"), ("fecha", "HAS_DATE"),
        ("created", "HAS_DATE"), ("updated", "HAS_DATE"),
        ("budget", "HAS_BUDGET"), ("bilancio", "HAS_BUDGET"), ("presupuesto", "HAS_BUDGET"),
        ("orçamento", "HAS_BUDGET"),
        ("duration", "HAS_DURATION"), ("durata", "HAS_DURATION"), ("Dauer", "HAS_DURATION"),
        ("durée", "HAS_DURATION"), ("duración", "HAS_DURATION"), ("duração", "HAS_DURATION"),
        ("project", "WORKS_ON"), ("progetto", "WORKS_ON"), ("Projekt", "WORKS_ON"),
        ("projet", "WORKS_ON"), ("proyecto", "WORKS_ON"), ("projeto", "WORKS_ON"),
        ("belongs-to", "BELONGS_TO"), ("belongs_to", "BELONGS_TO"), ("Belongs To", "BELONGS_TO"),
        ("part-of", "BELONGS_TO"), ("appartiene", "BELONGS_TO"), ("gehört-zu", "BELONGS_TO"),
        ("fait-partie", "BELONGS_TO"), ("pertenece", "BELONGS_TO"),
        ("pertence", "BELONGS_TO"),
        ("parent", "HAS_PARENT"), ("up", "HAS_PARENT"), ("genitore", "HAS_PARENT"),
        ("author", "HAS_AUTHOR"), ("autore", "HAS_AUTHOR"), ("Autor", "HAS_AUTHOR"),
        ("auteur", "HAS_AUTHOR"),
        ("type", "HAS_TYPE"), ("tipo", "HAS_TYPE"), ("Typ", "HAS_TYPE"),
        ("category", "HAS_CATEGORY"), ("categoria", "HAS_CATEGORY"),
        ("Kategorie", "HAS_CATEGORY"), ("catégorie", "HAS_CATEGORY"),
        ("categoría", "HAS_CATEGORY"),
        ("priority", "HAS_PRIORITY"), ("priorità", "HAS_PRIORITY"), ("PRIORITA", "HAS_PRIORITY"),
        ("Priorität", "HAS_PRIORITY"), ("priorité", "HAS_PRIORITY"), ("prioridad", "HAS_PRIORITY"),
        ("prioridade", "HAS_PRIORITY"),
        ("client", "HAS_CLIENT"), ("cliente", "HAS_CLIENT"), ("Kunde", "HAS_CLIENT"),
        ("company", "WORKS_AT"), ("azienda", "WORKS_AT"), ("Firma", "WORKS_AT"),
        ("entreprise", "WORKS_AT"), ("empresa", "WORKS_AT"),
        ("manager", "REPORTS_TO"), ("reports-to", "REPORTS_TO"), ("reports_to", "REPORTS_TO"),
        ("team", "MEMBER_OF"), ("squadra", "MEMBER_OF"),
        ("related", "RELATED_TO"), ("correlati", "RELATED_TO"), ("verwandt", "RELATED_TO"),
        ("lié", "RELATED_TO"), ("LIÉS", "RELATED_TO"), ("relacionado", "RELATED_TO"),
        # not relations
        ("title", None), ("aliases", None), ("alias", None), ("cssclass", None),
        ("cssclasses", None), ("publish", None), ("permalink", None), ("Title", None),
        # unknown
        ("favourite_colour", None), ("", None), ("???", None),
    ],
)  # fmt: skip
def test_frontmatter_relation(key: str, expected: str | None) -> None:
    assert frontmatter_relation(key) == expected


def test_frontmatter_table_is_in_the_vocabulary_and_unambiguous() -> None:
    assert set(vocab.FRONTMATTER_KEYS) <= RELATIONS
    for relation, keys in vocab.FRONTMATTER_KEYS.items():
        for key in keys:
            assert frontmatter_relation(key) == relation, key
            assert frontmatter_relation(key.upper().replace("-", " ")) == relation, key


@pytest.mark.parametrize(
    ("name", "month"),
    [
        ("march", 3), ("mar", 3), ("marzo", 3), ("märz", 3), ("mars", 3), ("março", 3),
        ("février", 2), ("fevereiro", 2), ("febbraio", 2), ("feb", 2),
        ("septiembre", 9), ("sept", 9), ("settembre", 9), ("setembro", 9), ("sep", 9),
        ("genn", 1), ("gennaio", 1), ("janvier", 1), ("jänner", 1), ("enero", 1),
        ("août", 8), ("agosto", 8), ("dezember", 12), ("dicembre", 12), ("décembre", 12),
        ("mai", 5), ("maggio", 5), ("mayo", 5), ("maio", 5), ("okt", 10), ("out", 10),
    ],
)  # fmt: skip
def test_months(name: str, month: int) -> None:
    assert MONTHS[name] == month


def test_months_are_lower_case_and_valid() -> None:
    assert all(k == k.lower() and 1 <= v <= 12 for k, v in MONTHS.items())
