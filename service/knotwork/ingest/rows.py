"""Rows for the writer's queries: facts and notes turned into parameter maps."""

from __future__ import annotations

import json
from typing import Any

from knotwork.errors import KnotworkError
from knotwork.ingest.chunk import CHUNKER_VERSION
from knotwork.models import Fact, ParsedNote, fact_key, link_anchor
from knotwork.text.keys import (
    entity_key,
    folded,
    link_key,
    loose_key,
    name_key,
    nfc,
    note_name_keys,
    paren_key,
)
from knotwork.text.vocab import RELATIONS


def canonical(fact: Fact) -> str:
    """A fact's key (models.fact_key), so revisions can diff old against new. A note link's
    section (heading or block) is part of it: two links to one note's sections on one line are
    two facts, and an edit of the section alone removes the old fact from the revision too. Its
    display is not: rewording [[Plan|the plan]] changes how it reads, not what it asserts (the
    relationship is written anew either way, as every fact of a note written is)."""
    return fact_key(
        fact.relation,
        entity_key(fact.subject) if fact.subject else None,
        _target(fact),
        fact.extractor,
        fact.line,
        fact.predicate,
        fact.chunk_id,
        _spelling(fact),
        link_anchor(fact.heading, fact.block) if fact.object_kind == "note" else "",
    )


def _target(fact: Fact) -> str:
    return link_key(fact.object) if fact.object_kind == "note" else entity_key(fact.object)


def _spelling(fact: Fact) -> str | None:
    """The target as the note writes it, kept as the fact's ``target_text``: a link's (what
    the note shows, whatever the placeholder is named; a relative one as written, not as the
    path it names), an attachment's (the path the note gives the file, whose entity is keyed
    by its name) and an alias's (``history`` shows it as written, not as its case-folded key);
    None for any other fact."""
    if fact.object_kind == "note":
        return fact.written or fact.object
    return nfc(fact.object) if fact.extractor == "alias" else fact.written


def _props(fact: Fact, path: str) -> dict[str, Any]:
    return {
        "source": path,
        "chunk_id": fact.chunk_id,
        "line": fact.line,
        "extractor": fact.extractor,
        "model": fact.model,
        "confidence": fact.confidence,
        "predicate": fact.predicate,
        "target": _target(fact),
        "subject": entity_key(fact.subject) if fact.subject else None,
    }


def fact_rows(facts: list[Fact], path: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(link rows, entity rows) for the writer's queries. A relation outside the fixed
    vocabulary is refused here, at the write boundary, whoever made the fact: the queries
    write it as the relationship's type (``$(f.relation)``)."""
    links, entities = [], []
    for fact in facts:
        if fact.relation not in RELATIONS:
            # A KnotworkError: a sync records it against the note and goes on.
            raise KnotworkError(f"{path}: relation {fact.relation!r} is not in the vocabulary")
        props = _props(fact, path)
        if (spelling := _spelling(fact)) is not None:
            props["target_text"] = spelling
        if fact.object_kind == "note" and fact.written is not None:
            # A missing note's placeholder is named by the path the link names, as from any
            # folder: "../People/Zed" names "People/Zed" from one folder only (and would sort
            # before every other spelling of it). Other links name it by target_text.
            props["target_name"] = fact.object
        if fact.object_kind == "note":
            # Only what the link holds: a property written null would be no property anyway.
            anchors = {"heading": fact.heading, "block": fact.block, "display": fact.display}
            props.update((k, v) for k, v in anchors.items() if v is not None)
            links.append({"relation": fact.relation, "props": props})
        else:
            entities.append(
                {
                    "relation": fact.relation,
                    # Names stored composed, as the full-text index is searched (keys.nfc).
                    "object_name": nfc(fact.object),
                    "object_mkey": name_key(fact.object),
                    "subject_name": nfc(fact.subject) if fact.subject else fact.subject,
                    "props": props,
                }
            )
    return links, entities


# Bump when the facts derived from unchanged text change (new extractor, new rule). 3: link
# facts keep their spelling (target_text) and placeholders are named from it; a name of stop
# words only is never mentioned. 4: a note is dated by its frontmatter and file name only, and
# keeps how many notes mention it (mentioned_by; a note without one, on a graph written before,
# is counted whole when a mention of it is next written or deleted). 5: a note keeps the key
# a question names it by loosely (mloose).
# 6: ./ and ../ Markdown links resolved from the note's folder; tags placed outside code;
# frontmatter read as YAML 1.2 reads plain words (`NO` an alias, not False); list-item fences.
# 7: a fence opened on a list item ends with the item (its links and tags after it are read).
# 8: Markdown links whose destination holds parentheses; "\[[x]]" no link; frontmatter closed by
# "---" (or a mapping's "..."); no mentions inside double-backtick code, URLs of any case, "www."
# or e-mail; a title or alias written as a number keeps its spelling; a fence opened in a
# blockquote ends with the quote.
# 9: Han, kana and Hangul matched a character at a time (a name inside a run of them is a
# mention); words keep their combining marks (Devanagari, Hebrew points).
# 10: a backslash before a backtick read as CommonMark reads it ("\`x" opens no code span).
# 11: Thai, Lao, Khmer and Myanmar matched a letter (with its marks) at a time; Thai notes
# indexed in Thai.
# 12: a note's title, aliases, tags and headings and the entities' names stored NFC (keys.nfc), so
# a file named or titled decomposed (macOS) is found by a composed search and the reverse.
# 13: ./ and ../ wikilinks (in the text and in frontmatter values) resolved from the note's
# folder, as Markdown links are since 6.
# 14: a link's relation read from its own clause only ("Beacon uses Atlas. Owner: [[Dieter]]"
# asserts no USES of Dieter), and not inherited across a sentence's end; a frontmatter value's
# fact on the line the value is written on (an item of a block list: its own), not its key's.
# 15: inline tags keep their combining marks (#भारत, #שָׁלוֹם) and are composed (a decomposed
# #été); a note keeps its names and tags case-folded (fnames, ftags) for notes_search.cypher.
# 16: an alias's fact keeps the alias as written (target_text), for its revision's key.
# 17: a note is named by the other name its title or file name gives in parentheses (mparen,
# mkeys: "master-slave latch (o flip-flop SR master-slave)", "Kubernetes (K8s)";
# keys.paren_key); Chinese, Japanese and Korean notes indexed in `cjk` (chunk_text_cjk), not the
# default language.
# 18: a ./ or ../ link keeps the link as written (target_text) and the path it names
# (target_name, which names a missing note's placeholder).
# 19: a link after a cue that a link opening its clause stands right before, as its subject, is
# LINKS_TO ("[[Dana]] reports to [[Bob]]" asserts no REPORTS_TO of Bob); a note's own names in
# its own text mention no namesake ("# Alice" in people/Alice.md, of people/dup/Alice.md).
# 20: no link or tag inside a %%comment%%; links to HEIC, TIFF, Bases, OGV, office files and
# the like are attachments, not notes; Markdown links to attachments and to notes written
# without ".md" are links; a string of aliases is split at its commas.
# 21: a note link keeps its section (heading, block) and its display text on its relationship;
# the section is part of the fact's key.
# 22: a link to an attachment is keyed by its file name (keys.entity_key of its last path
# component): ![[photo.png]] and ![](img/photo.png) name one entity; the link keeps its path as
# written (target_text).
# 23: a link's cue is the note's only right before the link and with no other subject in its
# clause ("Dana reports to [[Bob]]" in Meeting.md is a plain link; text/link_relations.py).
# 24: Russian (Cyrillic) and Arabic notes indexed in their own languages (chunk_text_ru,
# chunk_text_ar), not the default one.
# 25: a frontmatter key written twice asserts its last value only; an impossible date under a
# date key (`date: 2025-02-30`) asserts no HAS_DATE; an empty, boolean or nested alias or tag is
# left out, a tag item holding a space or comma split, a number tag kept as written (warned).
# 26: an inline tag ends where Obsidian ends it (a space or punctuation): emoji tags are read.
FACTS_RULES = 26
# What a stored note was derived with: a new facts rule or a new chunker (CHUNKER_VERSION) makes
# the next sync rewrite every note once instead of skipping it as unchanged.
FACTS_VERSION = FACTS_RULES * 100 + CHUNKER_VERSION


def note_props(note: ParsedNote, mtime: float | None) -> dict[str, Any]:
    lpath = link_key(note.path)
    stem = lpath.rsplit("/", 1)[-1]
    file_stem = note.path.rsplit("/", 1)[-1]
    file_stem = file_stem[:-3] if file_stem.lower().endswith(".md") else file_stem
    # Search-facing names composed (keys.nfc): the full-text index and notes_search.cypher
    # compare them to composed questions. The path stays the file's: it is the note's identity.
    title = nfc(note.title)
    return {
        "title": title,
        "name": title,
        "stem": stem,
        "lpath": lpath,
        "aliases": list(dict.fromkeys(map(nfc, note.aliases))),  # one per composed spelling
        "tags": list(dict.fromkeys(map(nfc, note.tags))),
        # What a search by name or tag compares (notes_search.cypher): Cypher's toLower keeps
        # "ß" where a search for "GRÖSSE" folds it to "ss".
        "fnames": sorted({folded(n) for n in [file_stem, note.title, *note.aliases]}),
        "ftags": sorted({folded(t) for t in note.tags}),
        "content_hash": note.content_hash,
        "mtime": mtime,
        "dates": note.dates,
        "frontmatter": json.dumps(note.frontmatter, default=str, ensure_ascii=False),
        "frontmatter_error": note.frontmatter_error,
        "headings": [nfc(h.text) for h in note.headings],
        # What unlinked mentions of this note are matched by (see mentions.py).
        "mkey": name_key(file_stem),
        "mtitle": name_key(note.title),
        "mkeys": note_name_keys(file_stem, note.title, note.aliases),
        # The other name its parentheses give, which a question names it by (retrieve/named.py).
        "mparen": paren_key(note.title, file_stem),
        # What a question names it by loosely: its title's content words (retrieve/named.py).
        "mloose": loose_key(note.title),
        "facts_version": FACTS_VERSION,
    }
