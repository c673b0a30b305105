"""Structural facts: what a note asserts through its links, frontmatter, aliases and tags.

No model is called. Each fact is one assertion with the line (and chunk) that made it. Links are
kept by *key* (see ``link_key``); the writer resolves keys to notes the way Obsidian does and
keeps an unresolved placeholder when no note matches.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable

from knotwork.ingest.caps import MAX_NOTE_PROPERTIES, said
from knotwork.ingest.chunk import chunk_for_line
from knotwork.ingest.parse import ATTACHMENT, attachment_name
from knotwork.models import Chunk, Fact, Link, ParsedNote
from knotwork.text import vocab
from knotwork.text.dates import impossible_date
from knotwork.text.keys import entity_key, link_key, nfc
from knotwork.text.link_relations import infer_relations

_WIKILINK = re.compile(r"!?\[\[[^\]]*\]\]")
MAX_VALUE_CHARS = 200
# Link and entity keys are index keys, which Neo4j limits in size (8 KB for a range index).
MAX_FACT_KEY_CHARS = 500


def note_keys(path: str) -> list[str]:
    """Every key that resolves to the note at ``path``: its path suffixes, shortest first."""
    parts = link_key(path).split("/")
    return ["/".join(parts[i:]) for i in range(len(parts) - 1, -1, -1)]


def changed_keys(old: Iterable[str], new: Iterable[str]) -> set[str]:
    """The mention keys a note that stays at its path gained or lost. Which note a name
    resolves to depends on the name and the bearers' paths only, so a name the note keeps
    resolves as before and other notes' mentions by it need no rewrite: adding an alias to a
    note named "Project" must not rewrite every note that writes "project"."""
    return set(old) ^ set(new)


def new_note_keys(paths: Iterable[str]) -> list[str]:
    """The keys of notes new to the graph: other notes' links to them may now resolve."""
    return sorted({k for path in paths for k in note_keys(path)})


def _link_relations(note: ParsedNote) -> dict[Link, str]:
    """The relation of each body link, inferred from the words before it on its line. An
    embedded note stands there as a link does (the subject of a cue after it: "![[Dana]]
    reports to [[Bob]]"), its own fact being EMBEDS; an embedded picture or file is no subject.
    A link to the note itself (or to one of its headings) is the note, every cue's subject
    anyway, as its names are in words (``Alice works with [[Bob]]`` in ``Alice.md``)."""
    by_line: dict[int, list[Link]] = defaultdict(list)
    files: dict[int, list[Link]] = defaultdict(list)  # embedded pictures, blanked out
    for link in note.links:
        if link.kind in ("wikilink", "markdown") or (
            link.kind == "embed" and not ATTACHMENT.search(link.target)
        ):
            by_line[link.line].append(link)
        elif link.kind == "embed":
            files[link.line].append(link)
    itself = {"", *note_keys(note.path)}
    # Its own names: file name, title, aliases and a title heading ("# Ann" in Anna.md).
    names = [note.path.rsplit("/", 1)[-1].removesuffix(".md"), note.title, *note.aliases]
    names += [h.text for h in note.headings[:1] if h.level == 1]
    out: dict[Link, str] = {}
    for line, on_line in by_line.items():
        on_line.sort(key=lambda link: link.col)
        spans = [(link.col, link.end_col) for link in on_line]
        own = [link_key(link.target) in itself for link in on_line]
        context = on_line[0].context
        for file in files.get(line, ()):  # a picture's name is no word of the sentence
            context = (
                context[: file.col] + " " * (file.end_col - file.col) + context[file.end_col :]
            )
        for link, relation in zip(
            on_line, infer_relations(context, spans, own, names), strict=True
        ):
            out[link] = vocab.safe_relation(relation)
    return out


def _link_facts(note: ParsedNote, chunks: list[Chunk]) -> list[Fact]:
    inferred = _link_relations(note)
    facts: list[Fact] = []
    for link in note.links:
        key = link_key(link.target)
        if not key:
            continue  # [[#heading]] points inside this note
        if link.kind == "embed":
            relation = "EMBEDS"
        elif link.kind == "frontmatter":
            relation = vocab.frontmatter_relation(link.key or "") or "LINKS_TO"
        else:
            relation = inferred.get(link, "LINKS_TO")
        attachment = bool(ATTACHMENT.search(key))
        facts.append(
            Fact(
                relation=vocab.safe_relation(relation),
                # A note's link as written (the writer matches by link_key), a file by name.
                object=attachment_name(link.target) if attachment else link.target.strip(),
                object_kind="entity" if attachment else "note",
                extractor="frontmatter" if link.kind == "frontmatter" else "wikilink",
                line=link.line,
                chunk_id=chunk_for_line(chunks, link.line),
                predicate=link.key if link.kind == "frontmatter" else None,
                written=link.written or (link.target.strip() if attachment else None),
                # The section it points at, as written: retrieval reads it, ``note`` shows it.
                heading=nfc(link.heading) if link.heading else None,
                block=link.block,
                display=_display(link),
            )
        )
    return facts


def _display(link: Link) -> str | None:
    """What the link reads as when that is not its target as written: [[Plan|the plan]]'s
    alias, [the plan](Plan.md)'s text."""
    shown = nfc(link.alias) if link.alias else None
    return shown if shown != nfc(link.written or link.target.strip()) else None


def _frontmatter_facts(note: ParsedNote) -> tuple[list[Fact], list[str]]:
    """(facts, warnings): a value too long to name an entity (a paragraph, not a property), or
    a date no calendar has under a date key, is left out, and said, naming its key and line,
    so nothing is dropped silently."""
    facts: list[Fact] = []
    warnings: list[str] = []
    for item in note.frontmatter_values:
        base = item.key.split(".")[0].strip().lower()
        value = item.value.strip()
        if vocab.describes_note(base) or not value or _WIKILINK.search(value):
            continue  # links in values are link facts already
        if len(value) > MAX_VALUE_CHARS:
            warnings.append(
                f"{note.path}:{item.line}: frontmatter value of {item.key!r} longer than "
                f"{MAX_VALUE_CHARS} characters ignored"
            )
            continue
        relation = vocab.frontmatter_relation(item.key) or vocab.frontmatter_relation(base)
        if relation == "HAS_DATE" and impossible_date(value):
            warnings.append(
                f"{note.path}:{item.line}: frontmatter value {value!r} of {item.key!r} is no "
                "real date: no date fact, and it does not date the note"
            )
            continue
        facts.append(
            Fact(
                relation=vocab.safe_relation(relation or "HAS_PROPERTY"),
                object=value,
                object_kind="entity",
                extractor="frontmatter",
                line=item.line,
                predicate=item.key,
            )
        )
    if len(facts) > MAX_NOTE_PROPERTIES:  # each an entity embedded within the write
        over = facts[MAX_NOTE_PROPERTIES]
        first = f"{over.predicate!r} at line {over.line}"
        warnings.append(
            f"{note.path}: " + said(len(facts), MAX_NOTE_PROPERTIES, "frontmatter values", first)
        )
        facts = facts[:MAX_NOTE_PROPERTIES]
    return facts, warnings


def frontmatter_warnings(note: ParsedNote) -> list[str]:
    """What ``structural_facts`` left out of the note's frontmatter, one warning a value."""
    return _frontmatter_facts(note)[1]


def _value_line(note: ParsedNote, keys: tuple[str, ...], value: str) -> int:
    """The frontmatter line holding ``value`` under one of ``keys`` (an item of a block list
    sits on its own), else the first such value's line, else the file's first line."""
    lines = [v for v in note.frontmatter_values if v.key.lower() in keys]
    wanted = nfc(value).lstrip("#").casefold()
    for item in lines:
        if nfc(item.value.strip()).lstrip("#").casefold() == wanted:
            return item.line
    return lines[0].line if lines else 1


def _tag_line(note: ParsedNote, tag: str) -> int:
    """Where the note uses the tag: its first use in the text (code aside), else the
    frontmatter line that holds it."""
    if (line := note.tag_lines.get(tag.casefold())) is not None:
        return line
    return _value_line(note, ("tags", "tag"), tag)


def structural_facts(note: ParsedNote, chunks: list[Chunk]) -> list[Fact]:
    """Every fact a note asserts without a model: links, frontmatter, aliases, tags."""
    facts = _link_facts(note, chunks) + _frontmatter_facts(note)[0]
    facts += [
        Fact(
            relation="HAS_ALIAS",
            object=alias,
            object_kind="entity",
            extractor="alias",
            line=_value_line(note, ("aliases", "alias"), alias),
        )
        for alias in note.aliases
        if alias.strip()
    ]
    for tag in note.tags:
        line = _tag_line(note, tag)
        facts.append(
            Fact(
                relation="HAS_TAG",
                object=f"#{tag}",
                object_kind="entity",
                extractor="tag",
                line=line,
                chunk_id=chunk_for_line(chunks, line),
            )
        )
    return facts


def split_oversized(facts: list[Fact]) -> tuple[list[Fact], list[Fact]]:
    """(kept, dropped): a fact whose target or subject key is too long to index is dropped."""
    kept: list[Fact] = []
    dropped: list[Fact] = []
    for fact in facts:
        target = link_key(fact.object) if fact.object_kind == "note" else entity_key(fact.object)
        subject = entity_key(fact.subject) if fact.subject else ""
        too_long = max(len(target), len(subject)) > MAX_FACT_KEY_CHARS
        (dropped if too_long else kept).append(fact)
    return kept, dropped
