"""Per-note caps on what a note asserts by its structure: tags, aliases, links and mentions.

Each tag and alias becomes an entity whose name is embedded and compared, and each link to no
note a placeholder, while the write holds the vault's lease; a note of 100,000 ``#tN`` words
held it for over 20 minutes. The caps are far above what a real note holds (a large map of
content links a few thousand notes): the first in the text are kept, the rest are said in one
warning a kind, and the rest of the note is written.
"""

from __future__ import annotations

import dataclasses

from knotwork.models import ParsedNote

MAX_NOTE_TAGS = 1_000  # distinct tags, frontmatter's first
MAX_NOTE_ALIASES = 1_000
MAX_NOTE_LINKS = 5_000  # wikilinks, Markdown links, embeds and frontmatter links
MAX_NOTE_PROPERTIES = 1_000  # frontmatter values that name an entity (ingest/facts.py)
# One MENTIONS fact per (chunk, note named): a long journal naming a few people a chunk stays
# well below; only a note written to name every note in every chunk reaches it.
MAX_NOTE_MENTIONS = 10_000


def said(total: int, cap: int, what: str, first: str) -> str:
    """The warning of a cap reached: how many, the cap, and the first left out."""
    return f"{total:,} {what}, more than the {cap:,} a note may hold: ignored from {first} on"


def capped(note: ParsedNote) -> ParsedNote:
    """``note`` with at most the caps' tags, aliases and links, the first in the text (the
    frontmatter's before the body's), and a warning in ``warnings`` for each cap reached."""
    warnings: list[str] = []
    tags, aliases, links = note.tags, note.aliases, note.links
    if len(tags) > MAX_NOTE_TAGS:
        tag = tags[MAX_NOTE_TAGS]
        line = note.tag_lines.get(tag.casefold())
        where = f" at line {line}" if line is not None else " in the frontmatter"
        warnings.append(said(len(tags), MAX_NOTE_TAGS, "tags", f"#{tag}{where}"))
        tags = tags[:MAX_NOTE_TAGS]
    if len(aliases) > MAX_NOTE_ALIASES:
        first = f"alias {aliases[MAX_NOTE_ALIASES]!r}"
        warnings.append(said(len(aliases), MAX_NOTE_ALIASES, "aliases", first))
        aliases = aliases[:MAX_NOTE_ALIASES]
    if len(links) > MAX_NOTE_LINKS:
        first = f"the link at line {links[MAX_NOTE_LINKS].line}"
        warnings.append(said(len(links), MAX_NOTE_LINKS, "links", first))
        links = links[:MAX_NOTE_LINKS]
    if not warnings:
        return note
    kept = {t.casefold() for t in tags}
    return dataclasses.replace(
        note,
        tags=tags,
        tag_lines={k: v for k, v in note.tag_lines.items() if k in kept},
        aliases=aliases,
        links=links,
        warnings=[*note.warnings, *warnings],
    )


def mentions_said(total: int, line: int) -> str:
    """The warning of a note whose mentions went past ``MAX_NOTE_MENTIONS``."""
    return said(total, MAX_NOTE_MENTIONS, "unlinked mentions", f"the mention at line {line}")
