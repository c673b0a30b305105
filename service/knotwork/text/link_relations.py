"""What the words around a note's links say each link means: a relation of the note's when a
cue phrase before the link has the note for its subject and the link for its object, else
LINKS_TO, a plain link.

A false fact is worse than a plain link: the graph and the answers take a relation as the
note's word. So a cue counts only where it reads as the note's: right before its link (an
article, a possessive or an abbreviation between: "works at the [[Acme]]"), its clause naming
no other subject ("Dana reports to [[Bob]]" in a meeting's note is Dana's, not the meeting's).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from knotwork.text.link_grammar import BETWEEN_WORDS, DEMONSTRATIVES, SUBJECT_WORDS
from knotwork.text.vocab import LINKS_TO, only_separators, phrase_at, tokens

SEE_ALSO = "SEE_ALSO"

# Where a clause ends: a sentence's end or a semicolon, followed by a space (CJK marks need
# none). A period after a word of one or two letters ("e.g.", "cf.", "Dr.") or after a title
# ("Prof.", "Sig.") ends nothing.
_CLAUSE_END = re.compile(r"(\w*)\.(?=\s)|[!?;](?=\s)|[\u3002\uff01\uff1f\uff1b]")
_SENTENCE_END = re.compile(r"(\w*)\.(?=\s|$)|[!?](?=\s|$)|[\u3002\uff01\uff1f]")
_TITLES = frozenset({"mrs", "prof", "sig", "sigg", "dott", "ing", "avv", "frl", "mme", "mlle",
                     "sra", "srta"})  # fmt: skip
_SUBJECT = frozenset(SUBJECT_WORDS)
_DEMONSTRATIVE = frozenset(DEMONSTRATIVES)
# Articles (the separators' words) and possessives may stand between a cue and its link.
_BETWEEN = frozenset(BETWEEN_WORDS) | frozenset(
    w for w in ("the", "a", "an", "il", "lo", "la", "i", "gli", "le", "l'", "der", "die",
                "das", "den", "dem", "des", "les", "el", "los", "las", "o", "os", "as")
)  # fmt: skip
# Where the words a cue's subject is read from start: a list marker, a label's colon, a
# scene set off by a comma ("At Acme, works with [[Bob]]").
_CUTS = frozenset({",", ":", "-", "\u2013", "\u2014", "|", "*", "+", ">"})


def _ends(pattern: re.Pattern[str], text: str) -> list[int]:
    return [
        m.end()
        for m in pattern.finditer(text)
        if not m.group(1) or (len(m.group(1)) > 2 and m.group(1).casefold() not in _TITLES)
    ]


def own_clause(segment: str) -> str:
    """The part of ``segment`` (the words before a link) in the link's own clause: a cue in an
    earlier sentence ("Beacon uses Atlas. Owner: [[Dieter]]") says nothing of the link."""
    ends = _ends(_CLAUSE_END, segment)
    return segment[ends[-1] :] if ends else segment


def _between(words: Sequence[str], i: int) -> bool:
    """Whether ``words[i]`` may stand between a cue and its link."""
    word = words[i]
    if not word[0].isalnum():
        return True  # punctuation, emphasis: "reports to: [[Bob]]", "uses **[[Git]]**"
    if word in _BETWEEN:
        return True
    dotted = i + 1 < len(words) and words[i + 1] == "."
    return dotted and (len(word) <= 2 or word in _TITLES)  # "Dr.", "e.g.", "Dott."


def cue(clause: str) -> tuple[str, list[str]] | None:
    """(relation, the clause's words before its first cue) of the phrase that ends right
    before the link, only articles, possessives, abbreviations and punctuation between; None
    when the clause ends in other words ("works with Dana on the [[Budget]]": Dana is the
    cue's object)."""
    words = tokens(clause)
    end = len(words)
    while (found := phrase_at(words, end)) is None:
        if end == 0 or not _between(words, end - 1):
            return None
        end -= 1
    return found[0], words[: _first_cue(words, found[1])]


def _first_cue(words: Sequence[str], end: int) -> int:
    """Where the clause's first cue starts, ``end`` at most: the subject of "He reports to
    the team and works with [[X]]" is read before "reports to", not before "works with"."""
    starts = (found[1] for i in range(1, end + 1) if (found := phrase_at(words, i)))
    return min(starts, default=end)


def _names(names: Iterable[str]) -> frozenset[str]:
    return frozenset(w for name in names for w in tokens(name) if w[0].isalnum())


def other_subject(before: Sequence[str], own_names: frozenset[str] = frozenset()) -> bool:
    """Whether the words before a cue, from its subject's start, name a subject other than
    the note: any word but a pronoun, an adverb, an auxiliary, a number or the note's own
    name; a demonstrative and one word are the note's ("This project uses")."""
    start = max((i + 1 for i, w in enumerate(before) if w in _CUTS), default=0)
    rest = [
        w
        for w in before[start:]
        if w[0].isalnum() and w not in _SUBJECT and w not in own_names and not w.isdigit()
    ]
    if not rest:
        return False
    return not (rest[0] in _DEMONSTRATIVE and len(rest) <= 2)


def infer_relations(
    line: str,
    spans: list[tuple[int, int]],
    own: Sequence[bool] = (),
    names: Iterable[str] = (),
) -> list[str]:
    """One relation per link span on ``line``, read from the words just before each link, in
    the link's own clause, when the note is the cue's subject; ``names``: the note's own
    (its file name, title, aliases), which may stand as that subject ("Alice works with" in
    Alice's note).

    A link with no phrase of its own inherits the previous link's relation when only
    separators stand between them ("works with [[A]] and [[B]]"), not across a sentence's end;
    otherwise it is LINKS_TO. A link that opens its clause (nothing but separators before it
    in the clause, or listed right after one that does) and has no phrase of its own is the
    subject of a cue that follows it directly ("[[Dana]] reports to [[Bob]]": Dana reports to
    Bob, not the note), and of the clause's later cues, so the links those cues precede are
    LINKS_TO; so is a subject in words ("Dana reports to [[Bob]]"). A link that sets the scene
    ("At [[Acme]], works with [[Bob]]", "[[Project X]]: reports to [[Bob]]"), an object of a
    cue ("worked with [[Bob]] and reported to [[Carol]]") and a link to the note itself
    (``own[i]``) are no subject.
    """
    own_names = _names(names)
    out: list[str] = []
    prev_end = 0
    subject = False  # the current clause's cues have another subject than the note
    opener = False  # the previous link opens its clause: the subject of a cue right after it
    for i, (start, end) in enumerate(spans):
        segment = line[prev_end:start] if start > prev_end else ""
        ended = bool(_ends(_CLAUSE_END, segment))
        if ended:
            subject = opener = False
        clause = own_clause(segment)
        found = cue(clause)
        if found is None:
            inherits = out and only_separators(segment) and not _ends(_SENTENCE_END, segment)
            relation = out[-1] if inherits else LINKS_TO
            self_link = i < len(own) and own[i]
            listed = opener and only_separators(segment)  # "[[Dana]] and [[Eve]] report to"
            opens = (i == 0 or ended) and only_separators(clause)
            opener = relation == LINKS_TO and not self_link and (opens or listed)
        else:
            relation, before = found
            # The cue right after the opener ("[[Dana]] reports to"), not after a comma or a
            # colon, nor after another word that is its subject.
            subject = subject or (opener and _follows(segment)) or other_subject(before, own_names)
            opener = False
            if subject and relation != SEE_ALSO:  # "see also", "vedi": the reader's, anywhere
                relation = LINKS_TO
        out.append(relation)
        prev_end = max(prev_end, end)
    return out


def _follows(segment: str) -> bool:
    """Whether the words after a link continue it directly: a space, then a word."""
    rest = segment.lstrip()
    return len(rest) < len(segment) and rest[:1].isalpha()
