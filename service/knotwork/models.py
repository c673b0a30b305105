"""The data that flows from a vault file to the graph: parsed notes, chunks and facts."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple, NotRequired, TypedDict

LinkKind = Literal["wikilink", "embed", "markdown", "frontmatter"]
Extractor = Literal["wikilink", "frontmatter", "alias", "tag", "mention", "llm"]


@dataclass(frozen=True)
class Heading:
    level: int  # 1-6
    text: str
    line: int  # 1-based line in the file


@dataclass(frozen=True)
class Link:
    """One link written in a note, as the author wrote it."""

    target: str  # the note part: "People/Alice" of [[People/Alice#Work|Al]]; "" for [[#h]]
    kind: LinkKind
    line: int  # 1-based line in the file
    context: str  # the whole line the link stands on (the frontmatter line for frontmatter)
    col: int = 0  # 0-based offset in `context` where the link starts ("![[", "[[" or "[")
    end_col: int = 0  # 0-based offset in `context` just after the link
    heading: str | None = None  # [[t#heading]]
    block: str | None = None  # [[t#^block]] → "block"
    alias: str | None = None  # [[t|alias]] or the text of [text](t.md)
    key: str | None = None  # the frontmatter key, for kind == "frontmatter"
    # The target as written when it is a ./ or ../ path, which ``target`` holds resolved from
    # the note's folder ("../People/Alice" of "Projects/X.md" → "People/Alice"); else None.
    written: str | None = None


@dataclass(frozen=True)
class FrontmatterValue:
    """One scalar value of a frontmatter key (a list gives one each)."""

    key: str  # the key as written
    value: str  # the value as text ("[[X]]" kept as written)
    line: int  # 1-based file line the value is written on


@dataclass
class ParsedNote:
    """A vault file after parsing; pure data, no I/O."""

    path: str  # vault-relative, POSIX separators, e.g. "People/Alice.md"
    title: str  # frontmatter `title:`, else the file stem
    text: str  # the whole file text as read
    body: str  # the text after the frontmatter block
    body_line: int  # 1-based file line where the body starts
    content_hash: str  # sha256 hex of the whole text
    aliases: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)  # without '#', nested kept: "a/b"
    # The file line of each body tag's first use outside code, by its case-folded name.
    tag_lines: dict[str, int] = field(default_factory=dict)
    frontmatter: dict[str, Any] = field(default_factory=dict)
    frontmatter_values: list[FrontmatterValue] = field(default_factory=list)
    frontmatter_error: str | None = None
    # What the note holds that its writer may not mean, each naming its line (a comment left
    # open hides the rest); the ingest reports them as it reports a frontmatter error.
    warnings: list[str] = field(default_factory=list)
    headings: list[Heading] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    # The note's own dates, ISO yyyy-mm-dd, sorted, unique: from its frontmatter and its file
    # name, never from its text (an article that cites a year is not dated by it).
    dates: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Chunk:
    id: str
    ord: int
    heading_path: str  # "Intro > Details"; "" before the first heading
    line_start: int
    line_end: int
    text: str
    hash: str  # sha256 hex of text
    # The file line of each line of ``text`` (paragraph breaks are collapsed in ``text``).
    line_map: tuple[int, ...] = ()
    # The code fence open where the chunk starts ("" when none): a long code block split over
    # chunks leaves its later parts inside a fence whose opening line they do not hold.
    fence: str = ""
    # What names the chunk's place: the note's title and aliases, then the heading path
    # ("Teorema de l'Hôpital (regola di de l'Hôpital) > Enunciato"). It is embedded with the
    # text and searched with it, so a section that never repeats its note's title is still
    # found by it.
    context: str = ""
    # sha256 hex of what is embedded (context + text): an embedding is reused by it, while
    # ``hash`` (heading path + text, what extraction reads) keeps extractions across a retitle.
    embed_hash: str = ""


@dataclass(frozen=True)
class Fact:
    """One assertion a note makes. The subject is the note itself unless ``subject`` is set."""

    relation: str  # from vocab.RELATIONS
    object: str  # a link key (see resolve.link_key) or an entity name
    object_kind: Literal["note", "entity"]
    extractor: Extractor
    line: int
    chunk_id: str | None = None
    predicate: str | None = None  # the original wording when relation is generic
    confidence: float = 1.0
    model: str | None = None
    subject: str | None = None  # an entity name (model-extracted facts)
    # A link's target as the note writes it when that is not ``object``: a ./ or ../ path,
    # which ``object`` holds resolved from the note's folder (Link.written); an attachment's
    # path, whose ``object`` is its file name (parse.attachment_name).
    written: str | None = None
    # A note link's section and wording: [[Plan#Budget]]'s heading "Budget", [[Plan#^b1]]'s
    # block "b1", [[Plan|the plan]]'s display "the plan" (None when absent or the target).
    heading: str | None = None
    block: str | None = None
    display: str | None = None


def link_anchor(heading: str | None, block: str | None) -> str:
    """The section part of a link as a fact key and ``note`` show it: ``#Budget``, ``#^b1``
    or ''. A link key never holds ``#`` (parse splits it off), so the anchor reads back."""
    return f"#{heading}" if heading else f"#^{block}" if block else ""


def fact_key(
    relation: str,
    subject: str | None,
    target: str,
    extractor: str,
    line: int | None,
    predicate: str | None,
    chunk_id: str | None,
    written: str | None = None,
    anchor: str = "",
) -> str:
    """A fact as revisions record it: ``relation|subject|target|extractor|line|predicate|
    chunk_id``. The one renderer: facts about to be written (rows.canonical, mentions.canonical)
    and facts read back from the graph (``stored_fact_key``) go through it, so they compare.
    ``written``: the target as the note writes it (a link's or an alias's ``target_text``).
    A frontmatter link's target is recorded as ``[[key]]``: under a key such as ``project`` a
    link and a plain value share a relation, and ``history`` shows a link as the note it names.
    An alias is recorded as written: its key is case-folded. A link's ``anchor``
    (``link_anchor``) follows its target: [[Plan#Budget]] and [[Plan#Risks]] are two facts,
    and an edit of the section alone removes the old one from the revision's view too."""
    target += anchor
    if written is not None and extractor == "frontmatter":
        target = f"[[{target}]]"
    elif written is not None and extractor == "alias":
        target = written
    fields = [relation, subject or "", target, extractor, str(line), predicate or ""]
    return "|".join([*fields, chunk_id or ""])


class FactKey(NamedTuple):
    """A revision's fact key read back into its fields (``fact_key``'s inverse; a target may
    hold ``|``, the other fields never do)."""

    relation: str
    subject: str
    target: str
    extractor: str
    line: str
    predicate: str
    chunk_id: str

    def __str__(self) -> str:
        return "|".join(self)


def read_fact_key(key: str) -> FactKey | None:
    """The fields of a key ``fact_key`` rendered; None for one of another shape."""
    parts = key.split("|")
    if len(parts) < 7:
        return None
    return FactKey(parts[0], parts[1], "|".join(parts[2:-4]), *parts[-4:])


class StoredFact(TypedDict):
    """A fact as notes_facts.cypher and mentions_delete.cypher return it."""

    relation: str
    subject: str | None
    target: str
    extractor: str
    line: int | None
    predicate: str | None
    chunk_id: str | None
    target_text: NotRequired[str | None]  # a link's or an alias's; a mention's is not read
    heading: NotRequired[str | None]  # a link's section (Fact.heading, Fact.block)
    block: NotRequired[str | None]


def stored_fact_key(row: StoredFact) -> str:
    """The key of a fact read back from the graph (``StoredFact``)."""
    return fact_key(
        row["relation"],
        row["subject"],
        row["target"],
        row["extractor"],
        row["line"],
        row["predicate"],
        row["chunk_id"],
        row.get("target_text"),
        link_anchor(row.get("heading"), row.get("block")),
    )


def embed_text(context: str, text: str) -> str:
    """What the embedding model sees: title, aliases and heading path give a section its
    context."""
    return f"{context}\n\n{text}" if context else text


def now_ms() -> int:
    """The clock of embedding refusals: what a refused chunk or entity name is stamped with and
    compared to (cypher/chunks_refused_stamp.cypher), milliseconds since the epoch, so every
    process writing the graph reads the same clock."""
    return int(time.time() * 1000)
