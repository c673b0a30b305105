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

from knotwork.text.link_grammar import (
    BETWEEN_WORDS,
    DEMONSTRATIVES,
    INVERTED_PRONOUNS,
    SCENE_WORDS,
    SELF_NOUNS,
    SUBJECT_WORDS,
)
from knotwork.text.vocab import LINKS_TO, MONTHS, only_separators, phrase_at, tokens

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

_ARTICLES = frozenset(
    ("the", "a", "an", "il", "lo", "la", "i", "gli", "le", "l'", "der", "die", "das", "den",
     "dem", "des", "les", "el", "los", "las", "o", "os", "as")
)  # fmt: skip
_SELF_NOUN = frozenset(SELF_NOUNS)
_BETWEEN = frozenset(BETWEEN_WORDS) | _ARTICLES
_SCENE = frozenset(SCENE_WORDS)
_INVERTED = frozenset(INVERTED_PRONOUNS)
# Where the words before a cue split into parts: asides and scenes ("Dana, our PM, reports
# to", "At Acme, works with"), list markers.
_PARTS = frozenset({",", "-", "\u2013", "\u2014", "|", "(", ")", "+", ">"})
_EMPHASIS = "*_~="
# A line's Markdown marks before its text: quote, heading, list item, task box.
_LINE_MARK = re.compile(r"^\s*(?:>\s*)*(?:#{1,6}\s+|(?:[-*+]|\d+[.)])\s+(?:\[.\]\s+)?)?")


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
    if found := _last_cue(words):
        return found[0], words[: _first_cue(words, found[1])]
    return _inverted_cue(words, tokens(clause, fold=False))


def _last_cue(words: Sequence[str]) -> tuple[str, int] | None:
    """(relation, first word's index) of the phrase ending right before the link."""
    end = len(words)
    while (found := phrase_at(words, end)) is None:
        if end == 0 or not _between(words, end - 1):
            return None
        end -= 1
    return found


def _inverted_cue(words: Sequence[str], written: Sequence[str]) -> tuple[str, list[str]] | None:
    """The cue of a German verb-second clause, a scene first and the subject pronoun after
    the verb ("In Berlin arbeitet sie mit", "Seit 2020 leitet er"): (relation, the pronoun),
    or the words before the verb with it when they are no scene ("Dana berichtet es an":
    "es" is the object there, Dana the subject). None without a pronoun right after the
    cue's first word: a name there ("In Berlin arbeitet Dana mit") is another subject, and
    so is "Sie" as ``written`` there, the formal "you" ("Ab Montag arbeiten Sie mit")."""
    for i in range(len(words) - 1, 1, -1):
        if words[i] not in _INVERTED or written[i] == "Sie":
            continue
        found = _last_cue([*words[:i], *words[i + 1 :]])
        if found is None or found[1] != i - 1:
            continue
        fronted = list(words[: i - 1])
        return found[0], [words[i]] if _scene(fronted) else [*fronted, words[i]]
    return None


def _scene(words: Sequence[str]) -> bool:
    """Whether the words before a verb-second clause's verb only set the scene: each part
    opens with a scene word ("In Berlin", "Bei Acme") or is neutral ("Heute", "2020")."""
    parts = _parts(words)
    return any(parts) and all(not p or p[0] in _SCENE or _neutral(p) for p in parts)


def _first_cue(words: Sequence[str], end: int) -> int:
    """Where the clause's first cue starts, ``end`` at most: the subject of "He reports to
    the team and works with [[X]]" is read before "reports to", not before "works with"."""
    starts = (found[1] for i in range(1, end + 1) if (found := phrase_at(words, i)))
    return min(starts, default=end)


def _own_runs(names: Iterable[str]) -> list[tuple[str, ...]]:
    """The word runs that name the note: each of its names whole ("Call with Dana", not
    "Dana"), and a person's first name ("Alice" of "Alice Smith": two capitalised words)."""
    runs: set[tuple[str, ...]] = set()
    for name in names:
        words = tuple(w for w in tokens(name) if w[0].isalnum())
        if words:
            runs.add(words)
        written = name.split()
        if len(words) == 2 and len(written) == 2 and all(w[:1].isupper() for w in written):
            runs.add(words[:1])
    return sorted(runs, key=len, reverse=True)


def _without(words: Sequence[str], runs: Sequence[tuple[str, ...]]) -> list[str]:
    out, i = [], 0
    while i < len(words):
        run = next((r for r in runs if tuple(words[i : i + len(r)]) == r), None)
        if run is None:
            out.append(words[i])
        i += len(run) if run else 1
    return out


def _neutral(words: Sequence[str], scene: bool = False) -> bool:
    """Whether a part's words leave the note the subject: pronouns, adverbs, auxiliaries,
    numbers (and months after a scene word: "In June she", but "June reports to"); a
    demonstrative and one word ("This project"); an article and a word for the note's kind
    ("The project"); an article right before the cue ("is the manager")."""
    rest = [
        w for w in words if w not in _SUBJECT and not w.isdigit() and not (scene and w in MONTHS)
    ]
    while rest and rest[-1] in _ARTICLES and words and words[-1] == rest[-1]:
        rest.pop()
    if not rest:
        return True
    if rest[0] in _DEMONSTRATIVE and len(rest) <= 2:
        return True
    # An article and a word for the note's kind: "The project", "Il progetto" (where "il",
    # French "he", was taken for a subject word and left the noun alone).
    if rest[0] in _ARTICLES:
        rest = rest[1:]
    if len(rest) != 1 or rest[0] not in _SELF_NOUN:
        return False
    at = words.index(rest[0])
    return at > 0 and words[at - 1] in _ARTICLES


def _parts(before: Sequence[str], runs: Sequence[tuple[str, ...]] = ()) -> list[list[str]]:
    """The words after a label's colon, without the note's own names, split at commas,
    dashes and brackets; emphasis and other marks are no words."""
    words = list(before)
    if ":" in words:
        words = words[len(words) - words[::-1].index(":") :]
    parts: list[list[str]] = [[]]
    for w in _without(words, runs):
        if w in _PARTS:
            parts.append([])
        elif (w := w.strip("_")) and w[0].isalnum():
            parts[-1].append(w)
    return parts


def other_subject(before: Sequence[str], runs: Sequence[tuple[str, ...]] = ()) -> bool:
    """Whether the words before a clause's first cue name a subject other than the note.

    What stands before a label's colon names none ("Dana: reports to"); the rest, split at
    commas, dashes and brackets, must be neutral (``_neutral``) once the note's own names
    are left out, except a part that opens a scene and is set off ("At Acme, works with");
    the part right before the cue may open with a scene word ("In 2020 she joined")."""
    parts = _parts(before, runs)
    for k, part in enumerate(parts):
        scene = bool(part) and part[0] in _SCENE
        if scene and k < len(parts) - 1:
            continue  # a scene set off
        while scene and part and part[0] in _SCENE:  # "As of 2024 it uses"
            part = part[1:]
        if not _neutral(part, scene):
            return True
    return False


def _opens(clause: str) -> bool:
    """Whether only a line's Markdown marks (list, task, quote, heading, emphasis) and
    separators stand before a link: it opens its clause ("1. [[Dana]] reports to")."""
    rest = _LINE_MARK.sub("", clause, count=1).strip(_EMPHASIS + " ")
    return only_separators(rest)


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
    runs = _own_runs(names)
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
            opens = (i == 0 or ended) and _opens(clause)
            opener = relation == LINKS_TO and not self_link and (opens or listed)
        else:
            relation, before = found
            # The cue right after the opener ("[[Dana]] reports to"), not after a comma or a
            # colon, nor after another word that is its subject.
            subject = subject or (opener and _follows(segment)) or other_subject(before, runs)
            opener = False
            if subject and relation != SEE_ALSO:  # "see also", "vedi": the reader's, anywhere
                relation = LINKS_TO
        out.append(relation)
        prev_end = max(prev_end, end)
    return out


def _follows(segment: str) -> bool:
    """Whether the words after a link continue it directly: a space, then a word (its
    emphasis closed first: "**[[Dana]]** reports to")."""
    segment = segment.lstrip(_EMPHASIS)
    rest = segment.lstrip()
    return len(rest) < len(segment) and rest[:1].isalpha()
