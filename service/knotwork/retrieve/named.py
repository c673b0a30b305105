"""The notes a question names: by file name, title or alias written out in it (loosely too),
each with its chunks nearest the question and how specific the name is in the vault; and what
the question asks beyond those names."""

from __future__ import annotations

import math
import time
from collections.abc import Awaitable
from dataclasses import dataclass

from knotwork.graph.queries.reads import NOTES_NAMED, VAULT_NOTES
from knotwork.graph.store import GraphStore
from knotwork.text.keys import (
    BREAK,
    content_words,
    loose_grams,
    spaceless,
    words,
)
from knotwork.text.names_found import chunk_grams, question_names
from knotwork.text.stopwords import STOPWORDS

MAX_NAMED = 10  # notes the question names, longest names first
NAMED_CHUNKS = 40  # chunks read of each named note, nearest the question first
FEW = 2  # a name written out by this many notes or fewer is specific in a vault of any size
SIZE_TTL_S = 60.0  # how long a vault's note count is reused


def beyond_names(question: str, names: list[str]) -> str | None:
    """The question without the words of ``names`` (mention keys of the notes it names), or
    None when it names nothing or nothing but stop words would be left. A name in Han, kana
    or Hangul goes where it is written whole; the characters left next to each other stay a
    run, as the full-text index has them (lucene_query splits Han and hiragana again)."""
    if not names:
        return None
    asked = words(question)
    drop = {w for n in names for w in n.split() if not spaceless(w)}
    gone = [w in drop for w in asked]
    for name in (n.split() for n in names if any(spaceless(w) for w in n.split())):
        for i in range(len(asked) - len(name) + 1):
            if asked[i : i + len(name)] == name:
                gone[i : i + len(name)] = [True] * len(name)
    pieces: list[str] = []
    for i, word in enumerate(asked):
        if gone[i] or word == BREAK:
            continue
        joined = i > 0 and not gone[i - 1] and spaceless(word) and spaceless(asked[i - 1])
        if joined:
            pieces[-1] += word
        else:
            pieces.append(word)
    if all(w in STOPWORDS for w in pieces):
        return None
    return " ".join(pieces)


@dataclass(frozen=True)
class NamedNote:
    key: str  # the name as matched
    path: str
    node: str  # element id
    chunk_ids: tuple[str, ...]  # nearest the question first
    specificity: float = 1.0  # 1: no other note writes the name out; 0: every note does
    lead: str | None = None  # the note's first chunk (its opening); None: a bare heading


def in_turns(named: list[NamedNote]) -> list[tuple[str, int]]:
    """The named notes' chunks in turns — each note's first, then each note's second, … — each
    with the index of its note in ``named``: a question naming two notes asks about both, so
    the second note's best chunk ranks beside the first note's best, not after all of its
    chunks."""
    turns = [(j, i, c) for i, note in enumerate(named) for j, c in enumerate(note.chunk_ids)]
    return [(c, i) for _, i, c in sorted(turns, key=lambda t: (t[0], t[1]))]


def named_share(question: str, named: list[NamedNote]) -> float:
    """The share of the question's content words (stop words aside) that the named notes'
    names hold: how much the question is about what it names, not merely mentions. Letters
    split off by an apostrophe ("Claude's", "c'è") are no words."""
    asked = [
        w
        for w in words(question)
        if w not in STOPWORDS and (len(w) > 1 or w.isdigit() or spaceless(w))
    ]
    names = {w for n in named for w in n.key.split()}
    return sum(w in names for w in asked) / len(asked) if asked else 0.0


def specificity(mentioned_by: int, notes: int) -> float:
    """How much naming a note says, as an inverse document frequency in [0, 1]: the share of
    the vault's notes that write the name out, on a log scale. A name that only a few notes
    write out is specific whatever the vault's size (in a small vault any share is large)."""
    if mentioned_by <= FEW or notes <= 1:
        return 1.0
    return max(0.0, 1.0 - math.log1p(mentioned_by) / math.log1p(notes))


def max_mentioned_by(notes: int, least: float) -> int:
    """The most notes that may write a name out for it to keep ``specificity >= least``."""
    bound: float = (1.0 + notes) ** (1.0 - least) - 1.0
    return max(FEW, math.floor(bound + 1e-9))


async def vault_notes(
    store: GraphStore, vault: str, memo: dict[str, tuple[float, int]] | None = None
) -> int:
    """How many notes the vault holds. Counting scans the vault's notes, so with ``memo`` a
    count is reused for ``SIZE_TTL_S``: specificity is a logarithm of it, and a minute-old
    count moves it by nothing that matters."""
    now = time.monotonic()
    if memo is not None and vault in memo and now - memo[vault][0] < SIZE_TTL_S:
        return memo[vault][1]
    rows = await store.read(VAULT_NOTES, vault=vault)
    notes = int(rows[0]["notes"]) if rows else 0
    if memo is not None:
        memo[vault] = (now, notes)
    return notes


async def named_notes(
    store: GraphStore,
    vault: str,
    question: str,
    notes: int | Awaitable[int],
    embedding: list[float] | None = None,
) -> list[NamedNote]:
    """Notes whose file name, title or alias, or the other name a parenthesis of its title or
    file name gives ("flip-flop SR master-slave" of "master-slave latch (o flip-flop SR
    master-slave)": text.keys.paren_key), the question writes out, longest names first,
    with their chunks nearest the question (``embedding``) and how specific the name is among
    the vault's ``notes`` (awaited only once the query is back: the query does not need it).

    Loosely too (text.keys.loose_key): "half adder e full adder" names "half adder (HA)".
    A name inside a longer matched name ("Rossi" in "Marco Rossi"), compared by content
    words, does not count on its own. A name's specificity is that of its commonest bearer:
    mentions resolve to one note per name, so the others that share it look rarer than the
    name is.
    """
    keys = set(chunk_grams(question, (1,)))
    if not keys:
        return []
    loose = sorted(loose_grams(question))
    rows = await store.read(
        NOTES_NAMED,
        vault=vault,
        keys=sorted(keys),
        loose=loose,
        chunks=NAMED_CHUNKS,
        embedding=embedding,
    )
    if not isinstance(notes, int):
        notes = await notes
    # A name overlapping a name written before it in Han, kana or Thai is no name there
    # ("京都" in "東京都庁": text/names_found.py); loose keys no exact run holds stay.
    found = question_names(question, {row["key"] for row in rows})
    rows = [row for row in rows if row["key"] in found or row["key"] not in keys]
    used: dict[str, int] = {}
    for row in rows:
        used[row["key"]] = max(used.get(row["key"], 0), int(row["mentioned_by"]))
    out: list[NamedNote] = []
    taken: list[str] = []
    for row in rows:
        key = row["key"]
        words = f" {content_words(key)} "
        if any(words in f" {content_words(longer)} " for longer in taken if longer != key):
            continue
        if any(n.path == row["path"] for n in out):
            continue
        taken.append(key)
        rarity = specificity(used[key], notes)
        out.append(
            NamedNote(key, row["path"], row["note"], tuple(row["chunk_ids"]), rarity, row["lead"])
        )
        if len(out) == MAX_NAMED:
            break
    return out
