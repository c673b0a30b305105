"""What the graph's side votes for when a question names notes: the named notes' chunks in
turns (retrieve/named.py ``in_turns``), and a walk's own seed text left to the names and
full text (retrieve/walk.py ``Walk.seed_stated``)."""

from __future__ import annotations

from knotwork.retrieve.search import NamedNote, in_turns, named_share
from knotwork.retrieve.walk import Walk


def _named(path: str, *chunks: str) -> NamedNote:
    return NamedNote(key=path, path=f"{path}.md", node=path, chunk_ids=chunks)


def test_two_named_notes_take_turns() -> None:
    """ "Che differenza c'è tra decodificatore e codificatore?" asks about both notes: the
    second note's opening ranks beside the first's, not after every chunk of the first."""
    named = [_named("dec", "d0", "d1", "d2"), _named("enc", "e0", "e1")]
    assert in_turns(named) == [("d0", 0), ("e0", 1), ("d1", 0), ("e1", 1), ("d2", 0)]
    assert in_turns([_named("dec", "d0", "d1")]) == [("d0", 0), ("d1", 0)]
    assert in_turns([]) == []


def _walk() -> Walk:
    """From the named note "espressioni booleane": its own chunk c-own links to "mappa di
    Karnaugh" (hop 1), and "criterio" links back to it (a backlink, walked against its
    direction); from Karnaugh, its chunk c-k links on to "NAND e NOR" (hop 2)."""
    walk = Walk(names={"seed": "note:espressioni booleane.md"}, depth={"seed": 0})
    steps = [
        ("seed", "kmap", "LINKS_TO", "c-own", 1),
        ("seed", "crit", "<-LINKS_TO", "c-crit", 1),
        ("kmap", "nand", "LINKS_TO", "c-k", 2),
    ]
    for start, node, relation, chunk, hop in steps:
        walk.names[node] = f"note:{node}.md"
        walk.depth[node] = hop
        walk.parent[node] = (start, relation, chunk)
        walk.asserting.append((chunk, node, hop))
    return walk


def test_a_seed_notes_own_linking_chunks_are_its_text() -> None:
    """Only the chunk the seed note states is its own: a neighbour's link back to it, and a
    link a neighbour states further on, are the neighbours' text and keep their vote."""
    assert _walk().seed_stated() == {"c-own"}


def test_an_entity_seed_states_no_note_text() -> None:
    walk = _walk()
    walk.names["seed"] = "entity:espressioni booleane"
    assert walk.seed_stated() == set()


def test_a_name_dropped_in_passing_is_a_small_share_of_the_question() -> None:
    """The share of the question's content words the names hold (stop words aside, in any of
    the six languages): the docs question that names `embeddings.md` in an example is one
    word in twelve about it; a question about a film is mostly its name."""
    passing = (
        "What are two interactive ways to learn how to use Claude's capabilities, such as "
        "uploading PDFs and generating embeddings?"
    )
    assert named_share(passing, [_named("embeddings")]) == 1 / 11
    about = "Who directed the film Blind Shaft?"
    assert named_share(about, [_named("blind shaft")]) == 2 / 4
    # differenza, decodificatore, codificatore: "c" of "c'è" is no word
    both = "Che differenza c'è tra decodificatore e codificatore?"
    assert named_share(both, [_named("decodificatore"), _named("codificatore")]) == 2 / 3
    assert named_share(about, []) == 0.0
    assert named_share("what is it?", [_named("blind shaft")]) == 0.0
