"""The relevance scale: a calibrated floor lands on the threshold; coverage counts a word the
hits are about in full, one only in their text by how far the cosine clears the probes or by
how much of the question the hits hold."""

from __future__ import annotations

import statistics

import pytest

from knotwork.retrieve.probes import PROBES
from knotwork.retrieve.relevance import Scale, floor_of, mean_of, relevance, rescale
from knotwork.retrieve.types import Hit
from knotwork.text.language import LANGUAGES


def _hit(cosine: float, text: str = "unrelated words", title: str = "n", heading: str = "") -> Hit:
    return Hit("c", "n.md", title, heading, 1, 1, text, 0.1, {"vector": (1 + cosine) / 2})


def test_the_floor_maps_to_the_threshold_and_one_to_one() -> None:
    assert rescale(0.5, 0.5, 0.29) == 0.29
    assert rescale(1.0, 0.5, 0.29) == 1.0
    assert rescale(0.45, 0.5, 0.29) < 0.29 < rescale(0.55, 0.5, 0.29)
    assert rescale(0.4, None, 0.29) == 0.4  # uncalibrated: the cosine itself


def test_an_off_topic_cosine_of_a_generous_model_is_refused_once_calibrated() -> None:
    # A model under which unrelated Italian questions score 0.5 against the notes.
    question = "Qual è la capitale della Francia?"
    hits = [_hit(0.52)]
    assert relevance(question, hits, None, 0.29) >= 0.29  # uncalibrated: let through
    assert relevance(question, hits, Scale(floor_of([0.45, 0.5, 0.52, 0.55]), None), 0.29) < 0.29
    # Words of the question in the evidence still count in full.
    worded = [_hit(0.52, "Parigi è la capitale della Francia.")]
    assert relevance(question, worded, Scale(0.6, None), 0.29) == 1.0


def test_the_floor_stands_above_most_probes_not_all() -> None:
    cosines = [0.2 + i / 100 for i in range(20)] + [0.9]  # one probe the vault answers
    assert 0.38 < floor_of(cosines) < 0.5


# The best cosines of the 16 Italian probes against vault-it-sapienza under USE multilingual
# (bench/RESULTS.md), and two off-topic questions of bench/data/it-sapienza that score towards
# the top of that spread ("Qual è la montagna più alta d'Europa?", "Qual è la capitale della
# Francia?").
USE_IT_PROBES = [0.101, 0.112, 0.117, 0.138, 0.141, 0.15, 0.16, 0.161, 0.163, 0.169, 0.169]
USE_IT_PROBES += [0.177, 0.184, 0.186, 0.194, 0.203]
USE_IT_OFF_TOPIC = [0.21, 0.22]


def test_the_floor_stands_above_the_probes_by_their_spread() -> None:
    narrow = [0.30] * 8 + [0.31] * 6 + [0.40, 0.41]
    wide = [0.10, 0.15, 0.20, 0.22, 0.25, 0.27, 0.28, 0.29, 0.30, 0.30, 0.31] + [0.31] * 3
    wide += [0.40, 0.41]
    q90 = statistics.quantiles(narrow, n=100, method="inclusive")[89]
    assert q90 == statistics.quantiles(wide, n=100, method="inclusive")[89]
    # The same 90th percentile; the probes that spread wider put the floor higher.
    assert floor_of(wide) > floor_of(narrow) + 0.05
    # Under a model that spreads unrelated cosines, off-topic questions a little nearer the
    # vault than the probes stay under the floor: they are refused once calibrated.
    floor = floor_of(USE_IT_PROBES)
    assert floor > max(USE_IT_PROBES)
    for cosine in USE_IT_OFF_TOPIC:
        assert rescale(cosine, floor, 0.29) < 0.29
    # A floor never falls below the probes' trimmed mean plus the margin.
    assert floor_of([0.2] * 16) == pytest.approx(0.22)


def test_every_language_has_its_probes() -> None:
    assert sorted(PROBES) == sorted(LANGUAGES)
    assert all(len(set(qs)) == 16 for qs in PROBES.values())


# USE multilingual's calibration of vault-it-sapienza (bench/RESULTS.md): its probes average
# 0.155, the floor is 0.224.
USE_IT = Scale(floor_of(USE_IT_PROBES), mean_of(USE_IT_PROBES))


def test_the_probes_mean_is_their_trimmed_mean_under_the_floor() -> None:
    assert USE_IT.probe_mean == pytest.approx(0.155, abs=0.001)
    assert USE_IT.probe_mean < USE_IT.floor
    assert mean_of([0.2] * 16) == pytest.approx(0.2) and mean_of([0.3]) == pytest.approx(0.3)
    assert mean_of([]) == 0.0


def test_a_word_the_notes_hold_by_chance_does_not_pass_an_off_topic_question() -> None:
    # The Italian course notes say "avendo cura di mantenere la validità" in the section on
    # Boolean algebra; the question shares that one word of two, and its cosine is the
    # probes' average: off-topic by meaning. Coverage alone (one of two words) let it through.
    question = "Come si cura un raffreddore?"
    text = "ma sempre avendo cura di mantenere la validità e la consistenza degli assiomi."
    hits = [_hit(0.15, text, title="algebra di Boole")]
    assert relevance(question, hits, USE_IT, 0.29) == 0.25  # one word of two, counted by 1/2
    # Nearer the floor the same word counts in part, at the floor in full.
    assert relevance(question, [_hit(0.19, text, "algebra di Boole")], USE_IT, 0.29) < 0.29
    at_floor = _hit(USE_IT.floor, text, "algebra di Boole")
    assert relevance(question, [at_floor], USE_IT, 0.29) == 0.5
    # Two words held by chance, at a cosine between the mean and the floor, do not pass either.
    roma = "Se la Roma ha vinto la partita allora il Brescia retrocede; un secondo segnale."
    question = "In che anno è stata fondata Roma secondo la tradizione?"
    assert (
        relevance(question, [_hit(0.20, roma, "esempi con situazioni reali")], USE_IT, 0.29) < 0.29
    )


def test_a_word_the_hits_are_about_counts_in_full_below_the_floor() -> None:
    # A French bread vault: "levain" is in 5 of its 14 notes, common there, yet it is what the
    # question asks about, and it names the hit. The cosine (0.24) is under the floor (0.32).
    scale = Scale(0.3236, 0.12)
    question = "Comment entretient-on un levain ?"
    hit = _hit(0.24, "On le nourrit chaque jour de farine et d'eau.", title="Levain")
    assert relevance(question, [hit], scale, 0.29) == 0.5
    # In a heading as in a title.
    hit = _hit(0.24, "On le nourrit de farine et d'eau.", title="Pain", heading="Le levain")
    assert relevance(question, [hit], scale, 0.29) == 0.5


def test_most_of_a_question_held_in_the_text_passes_at_a_probes_cosine() -> None:
    # Under a lexical embedder (the hashing stand-in) an answerable question's cosine may sit
    # at the probes' level; three of its four words in the hits' text are no chance.
    scale = Scale(0.39, 0.26)
    question = "Wie halten sich die Bienen bei Frost warm?"
    text = "Bei Frost bilden die Bienen eine Traube und halten sich durch Zittern warm."
    assert relevance(question, [_hit(0.26, text, title="Überwinterung")], scale, 0.29) == 1.0
    # Three of four: each counts 3/4, 0.5625 in all; two of four: 0.25, refused.
    text = "Bei Frost halten sich die Bienen in einer Traube."
    assert relevance(question, [_hit(0.26, text, title="Überwinterung")], scale, 0.29) == 0.5625
    text = "Bei Frost bilden die Bienen eine Traube."
    assert relevance(question, [_hit(0.26, text, title="Überwinterung")], scale, 0.29) == 0.25


def test_text_words_count_in_full_when_the_mean_or_the_cosine_is_not_known() -> None:
    question = "Come si cura un raffreddore?"
    text = "avendo cura di mantenere la validità"
    # Uncalibrated, or calibrated before the probes' mean was stored.
    assert relevance(question, [_hit(0.15, text)], None, 0.29) == 0.5
    assert relevance(question, [_hit(0.15, text)], Scale(USE_IT.floor, None), 0.29) == 0.5
    # No top hit came with a cosine (found by full text and the graph only).
    lexical = Hit("c", "n.md", "n", "", 1, 1, text, 0.1, {"fulltext": 3.0})
    assert relevance(question, [lexical], USE_IT, 0.29) == 0.5


def test_spaceless_text_counts_by_pairs_of_characters() -> None:
    """A Chinese question and a passage that answers it share words only as characters: each
    neighbouring pair is a term, as a CJK full-text analyzer indexes them."""
    from knotwork.retrieve.rank import terms

    asked = set(terms("北京大学在哪里"))
    held = set(terms("北京大学位于海淀区。"))
    assert {"北京", "京大", "大学"} <= asked & held
    assert "在哪" in asked and "在哪" not in held
    assert set(terms("Node.js 北")) == {"node", "js"}  # one character alone is no term


def test_an_alias_names_the_hit_as_its_title_does() -> None:
    """The note's alias "Ally" names it: a question naming it is about the note, and the word
    counts in full, as a title's would; the same word only in the text counts by the cosine."""
    text = "She bakes sourdough bread every Sunday."
    aliased = Hit(
        "c", "Alice Baker.md", "Alice Baker", "", 1, 1, text, 0.1, {"vector": 0.6}, ("Ally",)
    )
    plain = Hit("c", "Alice Baker.md", "Alice Baker", "", 1, 1, text, 0.1, {"vector": 0.6})
    scale = Scale(0.33, 0.13)
    assert relevance("What does Ally bake?", [aliased], scale, 0.29) == 0.5
    assert relevance("What does Ally bake?", [plain], scale, 0.29) < 0.29


def test_a_question_of_no_letter_or_digit_is_about_nothing() -> None:
    """Its embedding is some vector all the same (the hashing embedder's is one axis), whose
    cosine may clear any floor."""
    hits = [_hit(0.9, "The tomatoes ripen in August.")]
    for question in ("???", "🤔🤔?", "…", "-- ! --"):
        assert relevance(question, hits, None, 0.29) == 0.0, question
    assert relevance("Ⅻ?", hits, None, 0.29) > 0  # a numeral is a word


@pytest.mark.parametrize(
    ("question", "about"),
    [
        ("When was the meeting?", ["meeting"]),
        ("When did the meeting take place?", ["meeting"]),
        ("Where was the concert held?", ["concert"]),
        ("Wann war das Treffen?", ["treffen"]),
        ("Wann fand das Treffen mit dem Vorstand statt?", ["treffen", "vorstand"]),
        ("Wann ist das Treffen gewesen?", ["treffen"]),
        ("Wann hat das Treffen stattgefunden?", ["treffen"]),
        ("Wozu dient Propolis im Bienenvolk?", ["dient", "propolis", "bienenvolk"]),
        ("Wer hat die Sprache entschlüsselt und welchen Preis bekam er?",
         ["sprache", "entschlüsselt", "preis", "bekam"]),
        ("Quando si è svolta la riunione?", ["riunione"]),
        ("Quando è stata la riunione?", ["riunione"]),
        ("Qual è lo stato iniziale?", ["stato", "iniziale"]),  # "stato" a noun, no auxiliary
        ("Quand a eu lieu la réunion ?", ["réunion"]),
        ("Quand s'est passée la réunion ?", ["réunion"]),
        ("¿Cuándo tuvo lugar la reunión?", ["reunión"]),
        ("Quando aconteceu a reunião?", ["reunião"]),
        # Where to look is not what to find: every note is one of "my notes".
        ("What is in my notes about volcanoes?", ["volcanoes"]),
        ("What do my notes say about the Moon landing?", ["say", "moon", "landing"]),
        ("Cosa c'è nei miei appunti sui vulcani della Sicilia?", ["vulcani", "sicilia"]),
        ("Che cosa dicono le mie note sui vulcani?", ["dicono", "vulcani"]),
        ("Was steht in meinen Notizen über Vulkane?", ["steht", "vulkane"]),
        ("Que disent mes notes sur les volcans ?", ["disent", "volcans"]),
        ("Which release notes mention the fix?", ["release", "notes", "mention", "fix"]),
        # A word a language asks with is another language's noun: it counts as that.
        ("Wie macht man Brot?", ["macht", "brot"]),
        ("Who is the man in the car?", ["man", "car"]),
        # No function word, or one of another language beside the question's own: no table
        # drops a content word ("car" is French, "man" German, "sea" Spanish, "sue" Italian).
        ("car insurance renewal?", ["car", "insurance", "renewal"]),
        ("sue landlord deadline", ["sue", "landlord", "deadline"]),
        ("How did the man die?", ["man"]),
        ("Did my son swim in the sea?", ["swim", "sea"]),
    ],
)  # fmt: skip
def test_a_question_asks_the_notes_only_for_what_it_is_about(
    question: str, about: list[str]
) -> None:
    """Question words, pronouns, auxiliaries and the verbs that ask whether or when something
    happened are the question's, in every language, not words a note that answers it writes."""
    from knotwork.retrieve.rank import asked

    assert asked(question) == about


def _dated(cosine: float, text: str = "Fixed the bike chain.") -> Hit:
    """A hit of a note the temporal retriever found dated in the question's time."""
    return Hit(
        "d", "Journal/d.md", "d", "", 1, 1, text, 0.1, {"vector": (1 + cosine) / 2, "temporal": 1}
    )


@pytest.mark.parametrize(
    "question",
    ["What did I do yesterday?", "What happened last week?", "Was habe ich gestern gemacht?",
     "Cosa ho fatto ieri?", "¿Qué hice ayer?", "O que fiz ontem?", "yesterday"],
)  # fmt: skip
def test_a_relative_time_alone_is_answered_by_a_note_dated_then(question: str) -> None:
    scale = Scale(0.6, 0.4)
    assert relevance(question, [_dated(0.1)], scale, 0.29) == 1.0
    # The same note, not found by its date: the cosine alone, as ever.
    assert relevance(question, [_hit(0.1, "Fixed the bike chain.")], scale, 0.29) < 0.29


def test_a_dated_note_does_not_answer_what_else_a_question_asks() -> None:
    scale = Scale(0.6, 0.4)
    for question in ("What is the capital of Peru, yesterday?", "What is the capital of Peru?"):
        assert relevance(question, [_dated(0.1)], scale, 0.29) < 0.29, question
    # Nor does a note dated then answer a question that names no time.
    assert relevance("What did I do?", [_dated(0.1)], scale, 0.29) < 0.29
    # A dated note below the top hits is not what the gate reads.
    hits = [_hit(0.1), _hit(0.1), _hit(0.1), _dated(0.1)]
    assert relevance("What did I do yesterday?", hits, scale, 0.29) < 0.29
