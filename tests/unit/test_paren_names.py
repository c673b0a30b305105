"""A note's other name in parentheses (text/keys.py ``paren_key``): "Kubernetes (K8s)" is
named by "K8s" as by an alias; "Roma (città)" is not named by "città"."""

from __future__ import annotations

import pytest

from knotwork.ingest.parse import parse_note
from knotwork.ingest.rows import note_props
from knotwork.text.keys import name_key, note_name_keys, paren_key
from knotwork.text.names_found import chunk_grams


@pytest.mark.parametrize(
    ("name", "key"),
    [
        # A leading connective is dropped, whatever the case of what follows it.
        ("master-slave latch (o flip-flop SR master-slave)", "flip flop sr master slave"),
        ("Kubernetes (aka container orchestrator)", "container orchestrator"),
        ("Kubernetes (a.k.a. kube)", "kube"),
        ("Wert (oder Größe)", "grösse"),  # case-folded, as every name key
        ("cuenta (o sea factura)", "factura"),  # "o sea" dropped whole, not its "o"
        ("réseau (ou maillage)", "maillage"),
        ("relazione (ovvero: corrispondenza)", "corrispondenza"),
        # No connective: written as an abbreviation or a code.
        ("Kubernetes (K8s)", "k8s"),
        ("Large language model (LLM)", "llm"),
        ("multiplexer (MUX)", "mux"),
        ("Mac operating system (macOS)", "macos"),
    ],
)
def test_a_parenthesis_that_is_another_name_names_the_note(name: str, key: str) -> None:
    assert paren_key(name) == key


@pytest.mark.parametrize(
    "name",
    [
        "Roma (città)",  # one plain word: a disambiguator
        "Paris (Texas)",
        "Python (programming language)",
        # An abbreviation, but of something else than the name: it tells notes apart.
        "Sherlock (TV series)",
        "Springfield (USA)",
        "Oasis (UK band)",
        "Apollo (NASA program)",
        "beta (GPU2)",
        "beta (beta (GPU2))",
        "sistema (macOS)",
        "Princess (2010 film)",
        "Evento (2019)",  # a year
        "Versione (1.2)",
        "flip-flop (JK)",  # shorter than any name matched
        "half adder (HA)",
        "nota (or)",  # a connective alone
        "lista (o il)",  # stop words only
        "nome (or one two three four five six seven)",  # longer than any name matched
        "master-slave latch",  # no parenthesis
    ],
)
def test_a_disambiguator_names_nothing(name: str) -> None:
    assert paren_key(name) is None


def test_the_title_s_parenthesis_comes_first_then_the_file_stem_s() -> None:
    assert paren_key("Roma (città) (aka Urbe)") == "urbe"  # the first that is a name
    assert paren_key("Kubernetes", "Kubernetes (K8s)") == "k8s"
    assert paren_key("Kubernetes (K8s)", "kube (aka kubernetes)") == "k8s"


def test_a_long_name_is_keyed_by_its_parenthesis_and_matched_as_an_alias_is() -> None:
    stem = "master-slave latch (o flip-flop SR master-slave)"
    assert name_key(stem) is None  # nine words: no exact key of its own
    assert note_name_keys(stem, stem, []) == ["flip flop sr master slave"]
    assert note_name_keys("Roma (città)", "Roma (città)", []) == ["roma città"]
    grams = chunk_grams("Come funziona il flip-flop SR master-slave?", (1,))
    assert "flip flop sr master slave" in grams


def test_a_notes_props_keep_its_parenthesis_s_name() -> None:
    props = note_props(parse_note("k/Kubernetes (K8s).md", "# Kubernetes\n"), None)
    assert props["mparen"] == "k8s"
    assert props["mkeys"] == ["k8s", "kubernetes k8s"]
    titled = "---\ntitle: Roma (città)\n---\nLa capitale.\n"
    assert note_props(parse_note("Roma.md", titled), None)["mparen"] is None
