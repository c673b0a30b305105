"""Which new note is a gone note moved: the rules a sync (ingest/plan.py) and the watcher
(ingest/moved.py) pair a note gone from the vault folder with a note new to the graph by.

First by content: the same content hash is the note moved. Then, for the notes left on both
sides, by file name and text: ``git mv a.md sub/a.md`` plus an edit in one pull, an Obsidian
move then an edit while the watcher was stopped. Paired, the note is renamed (its history and
identity kept) and its edit written, its unchanged chunks keeping their embeddings; unpaired,
it would be deleted and made new, embedded all again. Paired only when unambiguous: the file
name borne by exactly one gone note and one new note, and the new note holding at least
``SIMILAR`` of the gone note's chunks unchanged or, failing that (a one-chunk note edited, a
typo fixed in every section), its words alike to the gone note's stored text by ``ALIKE``
at least, measured both ways. Anything else stays a delete and a new note.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from itertools import pairwise

from knotwork.graph.queries.writes import NOTES_STATE, NOTES_TEXTS, NotesStateRow
from knotwork.graph.store import GraphStore
from knotwork.ingest import draft as drafting
from knotwork.ingest.changes import Upsert
from knotwork.ingest.chunk import chunk_note
from knotwork.models import Chunk
from knotwork.text.keys import BREAK, spaceless, words
from knotwork.text.stopwords import STOPWORDS
from knotwork.vault.files import fold

# The share of the gone note's chunks (by hash: heading path and text, what the graph keeps
# of each) the new note must hold unchanged. Half: an edit of one section of a note of a few
# keeps it; an edit touching most sections leaves it to the words (``ALIKE``).
SIMILAR = 0.5
# The share of terms (``_terms``: words counted with repeats, function words and numbers left
# out) the gone and the new note's texts share, over the larger of their counts: so measured
# both ways, a short note does not pair with a long one merely because the long one contains
# it. A typo fixed in each paragraph or a date changed keeps most (0.75 and more in a note of
# ten words); two different notes of one name share little but their title (1 of 7 words in
# two short notes headed "Lake", 0.5 were function words counted; under 0.1 for two Chinese
# diary entries by character pairs, 0.6 by characters; 5 of 12 for two notes of one meeting
# template). 0.6 keeps a margin both ways.
ALIKE = 0.6


def by_content(gone: Mapping[str, str | None], new: Mapping[str, str]) -> dict[str, str]:
    """New path → gone path for each new note whose content hash (``new``: path → hash) a
    gone note (``gone``: path → hash, None for a placeholder) holds; each gone note taken
    once, in path order on both sides."""
    by_hash: dict[str, list[str]] = {}
    for path, digest in sorted(gone.items()):
        if digest is not None:
            by_hash.setdefault(digest, []).append(path)
    return {path: by_hash[d].pop(0) for path, d in sorted(new.items()) if by_hash.get(d)}


def file_name(path: str) -> str:
    """A note's file name as the vault compares names (vault/files.py ``fold``): composed
    (NFC) and lower case, so a move onto another spelling of the name still pairs."""
    return fold(path.rsplit("/", 1)[-1])


def name_pairs(gone: Iterable[str], new: Iterable[str]) -> dict[str, str]:
    """New path → gone path for each file name exactly one gone note and exactly one new note
    bear (two ``a.md`` gone or new: which went where is a guess, so none is paired)."""
    gone_by, new_by = _unique(gone), _unique(new)
    return {path: gone_by[name] for name, path in sorted(new_by.items()) if name in gone_by}


def _unique(paths: Iterable[str]) -> dict[str, str]:
    listed = list(paths)
    counts = Counter(file_name(p) for p in listed)
    return {file_name(p): p for p in listed if counts[file_name(p)] == 1}


def similar(old: Sequence[str], new: Collection[str]) -> bool:
    """Whether the new note's chunk hashes (``new``) hold at least ``SIMILAR`` of the gone
    note's (``old``, repeated chunks counted each time); a gone note of no chunks is like
    none (its empty text says nothing of where it went)."""
    return bool(old) and sum(h in new for h in old) >= SIMILAR * len(old)


def alike(old: Iterable[str], new: Iterable[str]) -> float:
    """How alike two notes' chunk texts are by their terms (``_terms``): the terms both hold,
    counted with repeats, over the larger of the two counts; 0 when neither has any."""
    before, after = _terms(old), _terms(new)
    larger = max(before.total(), after.total())
    return (before & after).total() / larger if larger else 0.0


def _terms(texts: Iterable[str]) -> Counter[str]:
    """The words of ``texts`` (text/keys.py ``words``: case folded) that tell a note from
    another: no function word or number (any two notes of a language, or of one template's
    dates, share them), and in a script written without spaces each two characters that
    follow each other, not each character (two Chinese notes share most common characters)."""
    terms: Counter[str] = Counter()
    for text in texts:
        run: list[str] = []  # spaceless characters in a row
        for word in [*words(text), BREAK]:
            if word != BREAK and spaceless(word):
                run.append(word)
                continue
            terms.update([a + b for a, b in pairwise(run)] or run)
            run = []
            if word != BREAK and word not in STOPWORDS and not word.isnumeric():
                terms[word] += 1
    return terms


async def edited_moves(
    store: GraphStore, vault: str, gone: Iterable[str], new: Sequence[Upsert], chunk_size: int
) -> dict[str, NotesStateRow]:
    """Give each upsert of ``new`` (notes new to the graph, no source found by content) that
    is a note of ``gone`` moved and edited that note as ``renamed_from`` (parsing the upserts
    paired by name: their ``note`` set). Returns the states of the notes so taken, by path."""
    pairs = name_pairs(gone, [u.path for u in new])
    if not pairs:
        return {}
    rows = await store.read(NOTES_STATE, vault=vault, paths=sorted(set(pairs.values())))
    states = {r["path"]: r for r in rows if r["content_hash"] is not None}
    named = [u for u in new if u.path in pairs]

    def chunked() -> dict[str, list[Chunk]]:  # chunked as the write will: the same hashes
        out = {}
        for u in named:
            note = u.note = u.note or drafting.parse(u.path, u.text)
            out[u.path] = chunk_note(note, vault, chunk_size)
        return out

    chunks = await asyncio.to_thread(chunked)
    taken: dict[str, NotesStateRow] = {}
    unsure: dict[str, Upsert] = {}  # gone path → its name's new note, not paired by hashes
    for u in named:
        state = states.get(pairs[u.path])
        if state and similar(
            [c["hash"] for c in state["chunks"]], {c.hash for c in chunks[u.path]}
        ):
            u.renamed_from = state["path"]
            taken[state["path"]] = state
        elif state:
            unsure[state["path"]] = u
    if unsure:  # their texts read for these few alone: notes_state carries none
        texts = await store.read(NOTES_TEXTS, vault=vault, paths=sorted(unsure))

        def compared() -> set[str]:
            return {
                r["path"]
                for r in texts
                if alike(r["texts"], [c.text for c in chunks[unsure[r["path"]].path]]) >= ALIKE
            }

        for path in sorted(await asyncio.to_thread(compared)):
            unsure[path].renamed_from = path
            taken[path] = states[path]
    return taken
