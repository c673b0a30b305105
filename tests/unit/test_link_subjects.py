"""Whose verb a link phrase is: the note's, unless a link opening its clause stands right
before it as the verb's subject ("[[Dana]] reports to [[Bob]]": Dana reports to Bob, not the
note). A link that only sets the scene leaves the verb to the note."""

from __future__ import annotations

import re

import pytest

from knotwork.ingest.chunk import chunk_note
from knotwork.ingest.facts import structural_facts
from knotwork.ingest.parse import parse_note
from knotwork.text.link_relations import infer_relations

_LINK = re.compile(r"!?\[\[[^\]]*\]\]")


def _links(line: str, names: tuple[str, ...] = ("Beacon",)) -> list[str]:
    """The relations of a line's links, in the note ``names`` name (Beacon.md)."""
    return infer_relations(line, [m.span() for m in _LINK.finditer(line)], names=names)


def _facts(text: str, path: str = "N.md") -> list[tuple[str, str]]:
    """(relation, target) of the note's link facts, in the order written."""
    note = parse_note(path, text)
    facts = structural_facts(note, chunk_note(note, "v", 1200))
    return [(f.relation, f.object) for f in facts if f.extractor in ("wikilink", "frontmatter")]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("[[Dana]] reports to [[Bob]] since May.", ["LINKS_TO", "LINKS_TO"]),
        ("[[Erin]] manages [[Acme Corp]] budget.", ["LINKS_TO", "LINKS_TO"]),
        ("- [[Erin]] manages [[Acme Corp]]", ["LINKS_TO", "LINKS_TO"]),
        ("[[Alice]] leads it, with [[people/Bob]].", ["LINKS_TO", "LINKS_TO"]),
        ("[[A]] and [[B]] work with [[C]]", ["LINKS_TO"] * 3),
        # the subject's verbs and their lists, all of the clause
        ("[[Dana]] works with [[A]] and reports to [[B]]", ["LINKS_TO"] * 3),
        ("[[Dana]] works with [[A]] and [[B]]", ["LINKS_TO"] * 3),
        # other languages alike
        ("[[Luca]] lavora con [[Anna]]", ["LINKS_TO", "LINKS_TO"]),
        ("[[Jonas]] berichtet an [[Eva]]", ["LINKS_TO", "LINKS_TO"]),
        ("[[Paul]] travaille avec [[Marie]]", ["LINKS_TO", "LINKS_TO"]),
        ("[[Ana]] trabaja con [[Pedro]]", ["LINKS_TO", "LINKS_TO"]),
        ("[[Rui]] trabalha com [[João]]", ["LINKS_TO", "LINKS_TO"]),
    ],
)  # fmt: skip
def test_a_link_before_the_cue_is_its_subject(line: str, expected: list[str]) -> None:
    assert _links(line) == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("Beacon uses [[Atlas]]", ["USES"]),
        ("Beacon uses [[Atlas]] and [[Zeta]]", ["USES", "USES"]),
        ("uses [[Atlas]], [[Zeta]] & [[Omega]]", ["USES"] * 3),
        # an object of the note's verb is no subject of the next one
        ("She worked with [[Bob]] and reported to [[Carol]]", ["WORKS_WITH", "REPORTS_TO"]),
        ("Son of [[Ann]], married to [[Ben]]", ["CHILD_OF", "MARRIED_TO"]),
        # a new clause has the note for its subject again
        ("[[Dana]] reports to [[Bob]]. Works with [[Carol]]", ["LINKS_TO", "LINKS_TO",
                                                               "WORKS_WITH"]),
        ("Met [[Dana]]; reports to [[Bob]]", ["LINKS_TO", "REPORTS_TO"]),
        ("This replaces [[Old]]; see also [[New]]", ["SUPERSEDES", "SEE_ALSO"]),
    ],
)  # fmt: skip
def test_the_note_stays_the_subject_of_its_own_cues(line: str, expected: list[str]) -> None:
    assert _links(line) == expected


def test_a_link_to_the_note_itself_is_the_note() -> None:
    line = "[[Beacon]] uses [[Atlas]]"
    spans = [m.span() for m in _LINK.finditer(line)]
    assert infer_relations(line, spans, [True, False]) == ["LINKS_TO", "USES"]
    assert infer_relations(line, spans) == ["LINKS_TO", "LINKS_TO"]


def test_meeting_note_facts() -> None:
    """The note as a user wrote it: no edge says the meeting reports to Bob or manages Acme."""
    text = (
        "# Meeting\n\n[[Dana]] reports to [[Bob]] since May.\n"
        "[[Erin]] manages [[Acme Corp]] budget.\n"
    )
    assert _facts(text, "Meeting.md") == [
        ("LINKS_TO", "Dana"),
        ("LINKS_TO", "Bob"),
        ("LINKS_TO", "Erin"),
        ("LINKS_TO", "Acme Corp"),
    ]


def test_embeds_and_self_links_in_the_facts() -> None:
    # An embedded note before the cue is its subject; its own fact stays EMBEDS.
    assert _facts("![[Dana]] reports to [[Bob]]\n") == [("EMBEDS", "Dana"), ("LINKS_TO", "Bob")]
    assert _facts("Uses ![[Atlas]] and [[Zeta]]\n") == [("EMBEDS", "Atlas"), ("USES", "Zeta")]
    # An embedded picture is none.
    assert _facts("![[logo.png]] Acme uses [[Zeta]]\n", "Acme.md")[-1] == ("USES", "Zeta")
    # A link to the note itself, by any of its path's keys, or to one of its own headings.
    assert _facts("[[Beacon]] uses [[Atlas]]\n", "p/Beacon.md") == [
        ("LINKS_TO", "Beacon"),
        ("USES", "Atlas"),
    ]
    assert _facts("[[p/Beacon]] uses [[Atlas]]\n", "p/Beacon.md")[1] == ("USES", "Atlas")
    assert _facts("[[#Scope]] uses [[Atlas]]\n", "p/Beacon.md") == [("USES", "Atlas")]
    # Frontmatter values and a cue in another clause are as before.
    text = '---\nowner: "[[Dieter]]"\n---\nBeacon uses Atlas. Owner: [[Dieter]].\n'
    assert _facts(text, "Beacon.md") == [("HAS_OWNER", "Dieter"), ("LINKS_TO", "Dieter")]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("At [[Acme]], works with [[Bob]]", ["LINKS_TO", "WORKS_WITH"]),
        ("Since [[Acme]] I work with [[Bob]]", ["LINKS_TO", "WORKS_WITH"]),
        ("[[Project X]]: reports to [[Bob]]", ["LINKS_TO", "REPORTS_TO"]),
        ("Tags: [[Project X]] - reports to [[Bob]]", ["LINKS_TO", "REPORTS_TO"]),
        # Known limit, kept as before: a subject inside the clause is not told from a scene.
        ("We decided [[Erin]] manages [[Acme Corp]] budget.", ["LINKS_TO", "MANAGES"]),
    ],
)
def test_a_link_that_sets_the_scene_leaves_the_verb_to_the_note(
    line: str, expected: list[str]
) -> None:
    assert _links(line) == expected


@pytest.mark.parametrize(
    ("line", "names", "expected"),
    [
        # a subject in words is another's than the note's, unless it is the note's own name
        ("Dana reports to [[Bob]]", ("Meeting",), ["LINKS_TO"]),
        ("Dana reports to [[Bob]]", ("Dana",), ["REPORTS_TO"]),
        ("Dana Rossi reports to [[Bob]]", ("Dana Rossi", "Dana"), ["REPORTS_TO"]),
        ("The intern reports to [[Bob]]", ("Meeting",), ["LINKS_TO"]),
        ("Dana works with [[Alice]] and reports to [[Bob]]", ("Meeting",), ["LINKS_TO"] * 2),
        ("Marco lavora con [[Anna]]", ("Riunione",), ["LINKS_TO"]),
        ("Jonas arbeitet mit [[Eva]]", ("Treffen",), ["LINKS_TO"]),
        # "who" is the link before it, not the note
        ("Works with [[Bob]], who reports to [[Carol]]", ("Ann",), ["WORKS_WITH", "LINKS_TO"]),
        # a negation is no fact
        ("Never worked with [[Bob]]", ("Ann",), ["LINKS_TO"]),
        ("Does not work with [[Bob]]", ("Ann",), ["LINKS_TO"]),
        # pronouns, adverbs, auxiliaries, numbers and a scene set off leave the note the subject
        ("She has also worked with [[Bob]]", ("Ann",), ["WORKS_WITH"]),
        ("Since 2020 works at [[Acme]]", ("Ann",), ["WORKS_AT"]),
        ("In 2020, Dana's team: reports to [[Bob]]", ("Ann",), ["REPORTS_TO"]),
        ("Er arbeitet mit [[Eva]]", ("Jonas",), ["WORKS_WITH"]),
        ("Lavora con [[Anna]]", ("Marco",), ["WORKS_WITH"]),
        ("This project uses [[Atlas]]", ("Beacon",), ["USES"]),
        # a word between the cue and the link is the cue's object; articles, possessives,
        # abbreviations and emphasis are not
        ("Works with Dana on the [[Budget]]", ("Ann",), ["LINKS_TO"]),
        ("Uses Python for the [[Pipeline]]", ("Ann",), ["LINKS_TO"]),
        ("Works at the [[Acme]]", ("Ann",), ["WORKS_AT"]),
        ("Reports to our [[CTO]]", ("Ann",), ["REPORTS_TO"]),
        ("Reports to: **[[Bob]]**", ("Ann",), ["REPORTS_TO"]),
        ("Lavora con la Dott. [[Rossi]]", ("Marco",), ["WORKS_WITH"]),
        ("Il codice di Hamming utilizza più [[bit di parità]]", ("codice di Hamming",), ["USES"]),
        # a pointer for the reader is the note's, whoever the clause is about
        ("Ogni funzione non è numerabile (vedi: [[Insieme]])", ("Funzione",), ["SEE_ALSO"]),
    ],
)  # fmt: skip
def test_a_cue_is_the_notes_only_where_it_reads_as_the_notes(
    line: str, names: tuple[str, ...], expected: list[str]
) -> None:
    assert _links(line, names) == expected


def test_a_subject_in_words_is_told_by_the_notes_own_names() -> None:
    # The carried-over false fact: "Meeting REPORTS_TO Bob" from a line about Dana.
    assert _facts("Dana reports to [[Bob]]\n", "Meeting.md") == [("LINKS_TO", "Bob")]
    assert _facts("Dana reports to [[Bob]]\n", "people/Dana.md") == [("REPORTS_TO", "Bob")]
    aliased = "---\naliases: [Dee]\n---\nDee reports to [[Bob]]\n"
    assert _facts(aliased, "people/Dana.md") == [("REPORTS_TO", "Bob")]
    # a title heading names the note too: a note renamed keeps its facts
    assert _facts("# Ann\n\nAnn works with [[Ben]]\n", "Anna.md") == [("WORKS_WITH", "Ben")]
    assert _facts("## Ann\n\nAnn works with [[Ben]]\n", "Anna.md") == [("LINKS_TO", "Ben")]


# (line, note, expected): "L" a plain link (another subject's, or no cue), "K" the cue's
# relation kept, one letter per link.
@pytest.mark.parametrize(
    ("text", "path", "expected"),
    [
        # should be LINKS_TO (foreign) in Meeting.md
        ("**Dana** reports to [[Bob]].","Meeting.md","L"),
        ("*Dana* reports to [[Bob]].","Meeting.md","L"),
        ("__Dana__ reports to [[Bob]].","Meeting.md","L"),
        ("Dana, the new PM, reports to [[Bob]].","Meeting.md","L"),
        ("Our new PM, Dana, reports to [[Bob]].","Meeting.md","L"),
        ("Dana \u2013 our PM \u2013 reports to [[Bob]].", "Meeting.md", "L"),
        ("Marco, il nuovo PM, lavora con [[Anna]]","Riunione.md","L"),
        ("Max, der neue PM, arbeitet mit [[Eva]]","Treffen.md","L"),
        ("Pierre, le nouveau PM, travaille avec [[Eva]]","Reunion.md","L"),
        ("Juan, el nuevo PM, trabaja con [[Eva]]","Reunion.md","L"),
        ("Pedro, o novo PM, trabalha com [[Eva]]","Reuniao.md","L"),
        ("1. [[Dana]] reports to [[Bob]]","Meeting.md","LL"),
        ("- [x] [[Dana]] reports to [[Bob]]","Meeting.md","LL"),
        ("> [[Dana]] reports to [[Bob]]","Meeting.md","LL"),
        ("## [[Dana]] reports to [[Bob]]","Meeting.md","LL"),
        ("**[[Dana]]** reports to [[Bob]]","Meeting.md","LL"),
        ("- **[[Dana]]** reports to [[Bob]]","Meeting.md","LL"),
        ("[[Dana]], our PM, reports to [[Bob]]","Meeting.md","LL"),
        ("Dana reports to [[Bob]].","Call with Dana.md","L"),
        ("Dana reports to [[Bob]].","1-1 with Dana.md","L"),
        ("# Weekly sync with Dana\n\nDana reports to [[Bob]].","Weekly.md","L"),
        ("Eve works with [[Bob]]","Meeting with Dana and Eve.md","L"),
        ("The intern reports to [[Bob]]","Meeting.md","L"),
        ("In Berlin Dana works with [[Bob]]","Meeting.md","L"),
        ("June reports to [[Bob]]","Meeting.md","L"),
        # "team" is no word for a note's own kind: the team is another subject
        ("The team reports to [[Bob]]","Meeting.md","L"),
        ("The team reports to [[Bob]]","Ann.md","L"),
        # German verb second: a name after the verb is the subject, a scene first or not
        ("In Berlin arbeitet Dana mit [[Bob]]","Meeting.md","L"),
        ("Seit 2020 arbeitet Dana bei [[Acme]]","Treffen.md","L"),
        ("In Berlin arbeitet **Dana** mit [[Bob]]","Meeting.md","L"),
        # ... and before the verb, with the pronoun its object
        ("Dana berichtet es an [[Bob]]","Meeting.md","L"),
        ("Mit Dana arbeitet sie an [[Plan]]","Ann.md","L"),  # no scene: not told, no fact
        ("In Berlin arbeitet sie nicht mit [[Bob]]","Ann.md","L"),
        # "Sie" after the verb is the formal "you": the reader, not the note
        ("Ab Montag arbeiten Sie mit [[Bob]]","Ann.md","L"),
        # Dutch has no cue words: a plain link
        ("In Berlijn werkt zij met [[Dana]]","Ann.md","L"),
        # should keep the relation (note's)
        ("She's working with [[Bob]]","Ann.md","K"),
        ("He's reporting to [[Bob]]","Ann.md","K"),
        ("They've worked with [[Bob]]","Ann.md","K"),
        ("She can work with [[Bob]]","Ann.md","K"),
        ("J'ai travaillé avec [[Bob]]","Ann.md","K"),
        ("Nous avons travaillé avec [[Bob]]","Ann.md","K"),
        ("Abbiamo lavorato con [[Bob]]","Ann.md","K"),
        ("Hemos trabajado con [[Bob]]","Ann.md","K"),
        ("Tenho trabalhado com [[Bob]]","Ann.md","K"),
        ("Ele também trabalha com [[João]]","Ann.md","K"),
        ("The project uses [[Atlas]]","Beacon.md","K"),
        ("Il progetto usa [[Atlas]]","Beacon.md","K"),
        ("The service depends on [[Atlas]]","Beacon.md","K"),
        ("In 2020 she joined [[Acme]]","Ann.md","K"),
        ("Since January she works at [[Acme]]","Ann.md","K"),
        ("Nel 2020 ha lavorato con [[Bob]]","Ann.md","K"),
        # German verb second: a scene, the verb, the subject pronoun
        ("Sie arbeitet mit [[Dana]]","Ann.md","K"),
        ("In Berlin arbeitet sie mit [[Dana]]","Ann.md","K"),
        ("Seit 2020 arbeitet er bei [[Acme]]","Ann.md","K"),
        ("Heute arbeitet sie zusammen mit [[Bob]]","Ann.md","K"),
        ("Bei Acme leitet sie [[Atlas]]","Ann.md","K"),
        ("- **Im Mai** arbeitet sie mit [[Bob]] und [[Carol]]","Ann.md","KK"),
        ("As of 2024 it uses [[Atlas]]","Beacon.md","K"),
        ("She is the manager of [[Acme]]","Ann.md","K"),
        ("She works with both [[Bob]] and [[Carol]]","Ann.md","KK"),
        ("Alice reports to [[Bob]]","Alice Smith.md","K"),
        ("At Acme, works with [[Bob]]","Ann.md","K"),
        ("Yesterday, she worked with [[Bob]]","Ann.md","K"),
        ("- Reports to [[Bob]]","Ann.md","K"),
        ("* Works with [[Bob]]","Ann.md","K"),
        ("**Reports to:** [[Bob]]","Ann.md","K"),
        ("Works at **[[Acme]]**","Ann.md","K"),
    ],
)  # fmt: skip
def test_subjects_in_emphasis_asides_markers_and_names(text: str, path: str, expected: str) -> None:
    got = "".join("L" if r == "LINKS_TO" else "K" for r, _ in _facts(text + "\n", path))
    assert got[-len(expected) :] == expected and ("K" not in got or "K" in expected), got
