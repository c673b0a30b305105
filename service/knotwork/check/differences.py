"""What verify found, note by note and in words: each note the folder and the graph disagree on
(changed, not in the graph, in the graph but not in the folder) with what differs — its text,
title, tags…, its chunks, its facts — and each unresolved link. verify.py compares canonical
lines; a note is said here exactly when one of its lines differs, so the words and the lines
(``verify --json``) never disagree."""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Literal

from knotwork.graph.queries.admin import DumpChunkFieldsRow, DumpNoteFieldsRow
from knotwork.plural import counted

Status = Literal[
    "changed",
    "not in the graph",
    "in the graph but not in the folder",
    "in the graph, unreadable in the folder",
    "in the graph only",  # an unresolved link no note makes now
]
FACTS_LISTED = 4  # fact groups named per note before "… N more"
UNRESOLVED = "unresolved:"
# A note's fields as its canonical line holds them, and the word that names each.
NOTE_WORDS = {
    "content_hash": "text",
    "title": "title",
    "stem": "name",
    "lpath": "name",
    "aliases": "aliases",
    "tags": "tags",
    "dates": "dates",
    "frontmatter_error": "frontmatter",
}
# A chunk's parsed line: [at, heading_path, line_start, line_end, hash, language].
CHUNK_WORDS = {1: "heading", 2: "lines", 3: "lines", 4: "text", 5: "language"}
# A structural fact's line after its source: relation, subject, object, extractor, line, predicate…
# (a path or a name may hold "|": the extractor and the line number after the object end it).
_FACT = re.compile(
    r"(?P<relation>[A-Z_]+)\|(?P<subject>(?:note|entity|unresolved):.*?)\|"
    r"(?P<object>(?:note|entity|unresolved):.*?)\|"
    r"(?P<extractor>wikilink|frontmatter|alias|tag|mention|llm)"
    r"\|-?\d*\|(?P<predicate>[^|]*)\|"
)


@dataclass
class Side:
    """One side of the comparison (the folder's fresh parse, or the graph): each note's
    canonical line and fields by path, each chunk's parsed line and fields by note path and
    position, the structural facts' lines, the unresolved links' lines."""

    notes: dict[str, tuple[str, DumpNoteFieldsRow]] = field(default_factory=dict)
    chunks: dict[tuple[str, int], tuple[str, DumpChunkFieldsRow]] = field(default_factory=dict)
    facts: set[str] = field(default_factory=set)
    unresolved: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class NoteDifference:
    """A note, or an unresolved link ("unresolved link [[name]]"), the folder and the graph
    disagree on, and what differs in words."""

    path: str
    status: Status
    what: tuple[str, ...] = ()

    def __str__(self) -> str:
        said = f" ({'; '.join(self.what)})" if self.what else ""
        return f"{self.status}: {self.path}{said}"


def note_differences(
    fresh: Side, graph: Side, kept: Collection[str]
) -> tuple[list[NoteDifference], list[NoteDifference]]:
    """The notes that differ, by path, and the unresolved links that do, by name.
    ``kept``: the notes the fresh parse kept at their last version (``SyncReport.kept``), the
    folder holding them but unable to read them or list their folder: each is said unreadable
    in the folder, not gone from it."""
    chunks = _chunks_by_note(fresh), _chunks_by_note(graph)
    paths = {*fresh.notes, *graph.notes, *chunks[0], *chunks[1]}
    facts_of = _facts_by_note(fresh.facts ^ graph.facts, paths)
    notes = []
    for path in sorted(paths | set(facts_of)):
        new, old = fresh.notes.get(path), graph.notes.get(path)
        what = []
        if new is not None and old is not None and new[0] != old[0]:
            what += _note_words(new[1], old[1])
        what += _chunk_words(chunks[0].get(path, {}), chunks[1].get(path, {}))
        if facts := facts_of.get(path):
            what.append(_fact_words(path, facts, fresh.facts))
        if not what and (new is None) == (old is None):
            continue
        if new is not None and old is None:
            notes.append(NoteDifference(path, "not in the graph"))
        elif new is None and old is not None:
            status: Status = (
                "in the graph, unreadable in the folder"
                if path in kept
                else "in the graph but not in the folder"
            )
            notes.append(NoteDifference(path, status))
        else:
            notes.append(NoteDifference(path, "changed", tuple(what)))
    return notes, _link_differences(fresh.unresolved, graph.unresolved)


def _note_words(new: DumpNoteFieldsRow, old: DumpNoteFieldsRow) -> list[str]:
    fields: tuple[Mapping[str, object], Mapping[str, object]] = (new, old)
    words = [w for key, w in NOTE_WORDS.items() if fields[0][key] != fields[1][key]]
    if new["mentioned_by"] != old["mentioned_by"]:
        words.append(
            f"mentioned by {counted(new['mentioned_by'], 'note')}, the graph says "
            f"{old['mentioned_by']}"
        )
    return list(dict.fromkeys(words)) or ["fields"]


def _chunks_by_note(side: Side) -> dict[str, dict[int, list[object]]]:
    """Each note's chunks: position → parsed line's fields."""
    out: dict[str, dict[int, list[object]]] = {}
    for (path, position), (line, _) in side.chunks.items():
        out.setdefault(path, {})[position] = json.loads(line)
    return out


def _chunk_words(new: dict[int, list[object]], old: dict[int, list[object]]) -> list[str]:
    """A note's chunks whose parsed lines differ, and how: "2 chunks (lines, text)"."""
    differ = sorted(o for o in {*new, *old} if new.get(o) != old.get(o))
    if not differ:
        return []
    kinds: list[str] = []
    for o in differ:
        if o not in old:
            kinds.append("new in the folder")
        elif o not in new:
            kinds.append("gone from the folder")
        else:
            kinds += [w for i, w in CHUNK_WORDS.items() if new[o][i] != old[o][i]]
    return [f"{counted(len(differ), 'chunk')} ({', '.join(dict.fromkeys(kinds))})"]


def _facts_by_note(lines: set[str], paths: set[str]) -> dict[str, list[str]]:
    """Fact lines by the note that asserts them, their source: the longest note path the line
    starts with before a "|" (a path may hold "|"), else its first field."""
    out: dict[str, list[str]] = {}
    for line in sorted(lines):
        out.setdefault(fact_source(line, paths), []).append(line)
    return out


def fact_source(line: str, paths: set[str]) -> str:
    """The note that asserts a fact line: the longest of ``paths`` it starts with before a "|"
    (a path may hold "|"), else its first field."""
    cuts = [i for i, c in enumerate(line) if c == "|"]
    return next((line[:i] for i in reversed(cuts) if line[:i] in paths), line.split("|", 1)[0])


def fact_object(line: str, source: str) -> tuple[str, str, str] | None:
    """A fact line's relation, object ("note:a.md", "unresolved:key"…) and extractor; None if
    it cannot be read."""
    found = _FACT.match(line.removeprefix(f"{source}|"))
    return None if found is None else (found["relation"], found["object"], found["extractor"])


def _fact_words(source: str, lines: list[str], fresh: set[str]) -> str:
    """A note's facts that differ, grouped: "facts: +1 SEE_ALSO → bus.md, -1 LINKS_TO → x.md,
    ~2 HAS_TAG → y"; + the folder's, not yet in the graph; - the graph's only; ~ the same fact
    standing elsewhere in its note (another line or chunk, another spelling of the link)."""
    groups: dict[str, list[int]] = {}
    for line in lines:
        counts = groups.setdefault(_fact_named(line.removeprefix(f"{source}|")), [0, 0])
        counts[0 if line in fresh else 1] += 1  # added, removed
    said = []
    for named, (added, removed) in groups.items():
        same = min(added, removed)
        for sign, n in (("~", same), ("+", added - same), ("-", removed - same)):
            if n:
                said.append(f"{sign}{n} {named}")
    more = f", … {len(said) - FACTS_LISTED} more" if len(said) > FACTS_LISTED else ""
    return f"facts: {', '.join(said[:FACTS_LISTED])}{more}"


def _fact_named(fact: str) -> str:
    """A fact line less its source as "RELATION predicate → object" (an object note by its
    path, an entity by its key, an unresolved link as "[[key]]"); as it is if it cannot be
    read."""
    found = _FACT.match(fact)
    if found is None:
        return fact
    kind, _, name = found["object"].partition(":")
    target = f"[[{name}]]" if kind == "unresolved" else name
    predicate = f" {found['predicate']}" if found["predicate"] else ""
    return f"{found['relation']}{predicate} → {target}"


def _link_differences(fresh: set[str], graph: set[str]) -> list[NoteDifference]:
    """Unresolved links (placeholder lines "unresolved:key|name") by key: one the folder links
    that the graph lacks, one the graph keeps that nothing links now, one named otherwise."""
    new, old = _placeholders(fresh - graph), _placeholders(graph - fresh)
    out = []
    for key in sorted({*new, *old}):
        link = f"unresolved link [[{(new.get(key) or old.get(key)) or key}]]"
        if key not in old:
            out.append(NoteDifference(link, "not in the graph"))
        elif key not in new:
            out.append(NoteDifference(link, "in the graph only", ("no note makes it now",)))
        else:
            out.append(NoteDifference(link, "changed", (f"named {old[key]!r} in the graph",)))
    return out


def _placeholders(lines: set[str]) -> dict[str, str]:
    """key → name of unresolved placeholder lines ("unresolved:key|name"; a link's key holds
    no "|", which ends a wikilink's target)."""
    out = {}
    for line in lines:
        key, _, name = line.removeprefix(UNRESOLVED).partition("|")
        out[key] = name
    return out
