"""Turn one vault file into a ParsedNote: frontmatter, links, tags, headings and dates.

Pure and total, so one odd file never stops an ingest: broken or hostile YAML becomes
``frontmatter_error`` and the body is still parsed. Regexes are linear (1 MB in well under 1 s).
"""

from __future__ import annotations

import posixpath
import re
from urllib.parse import unquote

import regex

from knotwork.ingest.caps import capped
from knotwork.ingest.frontmatter import Loaded, load_frontmatter
from knotwork.ingest.own_properties import own_properties
from knotwork.models import Heading, Link, LinkKind, ParsedNote
from knotwork.text import markdown
from knotwork.text.dates import iso_date, text_dates
from knotwork.text.digest import text_hash
from knotwork.text.keys import nfc

_NEWLINE = re.compile(r"(\r\n|\r|\n)")
# A tag, as Obsidian reads one: up to the first space, ASCII punctuation but "_", "-" and "/"
# (nesting), or general or supplemental punctuation (U+2000 to U+206F, U+2E00 to U+2E7F: a
# curly quote, "…"): a deny-list, so letters of every script with their marks ("#भारत",
# "#שָׁלוֹם", a decomposed "#été") and emoji ("#📚") are tag text. The zero-width (non-)joiners
# of that range join inside a word (Persian; "#🏃‍♀️" is one emoji), so they do not end one;
# controls do (masked code and comments).
_TAG = regex.compile(
    r"(?<!\S)#((?:[^\s\p{Cc}\u2000-\u206f\u2e00-\u2e7f!\"#$%&'()*+,.:;<=>?@\[\\\]^`{|}~]"
    r"|[\u200c\u200d])+)"
)
# A tag needs more than digits (with their marks), dashes and slashes.
_WORDY = regex.compile(r"[^\d\p{M}/-]")
# Not after a backslash (but after an escaped one): "\[[x]]" is text, "\![[x]]" a link (its
# "!" escaped), "\\[[x]]" a link after a backslash, as in CommonMark.
_WIKILINK = re.compile(r"(?:(?<!\\)|(?<=\\\\))(!?)(?:(?<!\\)|(?<=\\\\))\[\[([^\[\]]+)\]\]")
# [text](dest "title"): the destination in <>, or without spaces, one level of balanced
# parentheses allowed ("Meeting%20(2024).md", as Obsidian writes a file "Meeting (2024).md").
_MDLINK = re.compile(
    r"(!?)\[([^\[\]]*)\]\(\s*(<[^<>\n]*>|(?:[^\s()<>]|\([^\s()<>]*\))+)"
    r"(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)"
)
# Links to these are attachments, not notes: kept as facts about a file entity. Every format
# Obsidian opens itself (Bases, canvases, pictures, sound, video, PDF), and the files a vault
# holds beside them (a phone's HEIC photos, scans, office documents).
ATTACHMENT = re.compile(
    r"\.(png|jpe?g|gif|svg|webp|bmp|avif|heic|heif|tiff?|pdf|mp3|mp4|m4v|wav|ogg|ogv|3gp|"
    r"m4a|flac|webm|mov|mkv|avi|canvas|base|excalidraw|drawio|csv|xlsx?|docx?|pptx?|od[tsp]|"
    r"rtf|epub|zip|txt|json|html?)$",
    re.IGNORECASE,
)
# A file name's extension: "Node.js" has one, "Dr. Who" and "v1.2" none.
_EXT = re.compile(r"\.[A-Za-z0-9]*[A-Za-z][A-Za-z0-9]*$")
_SCHEME = re.compile(r"^(?:[A-Za-z][A-Za-z0-9+.-]*:|//)")
_DAILY = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
_YEAR = re.compile(r"\d{4}")


def _strip_md(target: str) -> str:
    return target[:-3] if target.lower().endswith(".md") else target


def _internal(path: str) -> bool:
    """Whether a Markdown link's destination (no scheme) is a note or an attachment, as
    Obsidian reads ``[t](Note.md)``, ``[t](Note)`` and ``![](photo.png)``; a file of another
    kind (``app.js``, ``www.example.com``) is no link here."""
    name = path.rstrip().rsplit("/", 1)[-1]
    if not name or name in (".", ".."):
        return False
    return name.lower().endswith(".md") or bool(ATTACHMENT.search(name)) or not _EXT.search(name)


def attachment_name(target: str) -> str:
    """The file an attachment link names: its last path component. Obsidian finds
    ``![[photo.png]]`` by file name anywhere in the vault, so ``attachments/photo.png``,
    ``./photo.png`` and ``../img/photo.png`` name one file entity (its key case-folds the name,
    as a case-insensitive disk does). Taken from the note's text alone, so a graph synced note
    by note equals one built afresh; ``Link.target`` has no size (``|300``), fragment
    (``#page=3``) or percent-encoding left."""
    return target.replace("\\", "/").rsplit("/", 1)[-1].strip()


def _wikilink(inner: str) -> tuple[str, str | None, str | None, str | None]:
    """(target, heading, block, alias) of the text between ``[[`` and ``]]``."""
    ref, bar, alias = inner.replace("\\|", "|").partition("|")
    target, _, frag = ref.partition("#")
    frag = frag.strip()
    block = frag[1:].strip() or None if frag.startswith("^") else None
    heading = frag if frag and not frag.startswith("^") else None
    return _strip_md(target.strip()), heading, block, (alias.strip() or None) if bar else None


def _relative(folder: str, path: str) -> tuple[str, str | None]:
    """(a link's path as the vault names it, the path as written when that differs): ``./``
    and ``../`` (Obsidian's "relative path" links, Markdown or wikilinks) start from the
    linking note's folder; one that climbs out stays as written. The written path is kept as
    the link's ``target_text``, what the note shows of its link."""
    if not path.startswith(("./", "../")) or posixpath.basename(path) in ("", ".", ".."):
        return path, None  # a bare name, or no name at all (``[[./]]``): as written
    joined = posixpath.normpath(posixpath.join(folder, path))
    return (path, None) if joined == ".." or joined.startswith("../") else (joined, path)


def _line_links(raw: str, masked: str, line: int, folder: str = "") -> list[Link]:
    links = []
    for m in _WIKILINK.finditer(masked):
        target, heading, block, alias = _wikilink(raw[m.start(2) : m.end(2)])
        target, written = _relative(folder, target)
        if target or heading or block:
            kind: LinkKind = "embed" if m.group(1) else "wikilink"
            links.append(Link(target, kind, line, raw, m.start(), m.end(), heading, block, alias,
                              written=written))  # fmt: skip
    for m in _MDLINK.finditer(masked) if "](" in masked else ():
        dest = raw[m.start(3) : m.end(3)]
        dest = dest[1:-1].strip() if dest.startswith("<") else dest
        path, _, frag = dest.partition("#")
        path = unquote(path.partition("?")[0])  # a query names no file: "Note?x=1" is Note
        if _SCHEME.match(path) or not _internal(path):
            continue
        path, written = _relative(folder, path.strip().replace("\\", "/"))
        written = _strip_md(written) if written else None
        md_kind: LinkKind = "embed" if m.group(1) else "markdown"
        text = raw[m.start(2) : m.end(2)].strip() or None
        heading = unquote(frag).strip() or None
        links.append(Link(_strip_md(path.strip()), md_kind, line, raw, m.start(), m.end(),
                          heading, None, text, written=written))  # fmt: skip
    return sorted(links, key=lambda link: link.col) if "](" in masked else links


def _unique(items: list[str], fold: bool = False) -> list[str]:
    """Non-empty items, first spelling kept, order kept."""
    seen: dict[str, str] = {}
    for item in items:
        seen.setdefault(item.casefold() if fold else item, item)
    return [item for item in seen.values() if item]


def _closing(lines: list[str], fence: str) -> int:
    """The index of the first line after the first that is ``fence``; 0 when there is none."""
    return next((i for i in range(1, len(lines)) if lines[i].rstrip() == fence), 0)


def parse_note(path: str, text: str) -> ParsedNote:
    """Parse one note's text; ``path`` is vault-relative POSIX and only names the note."""
    parts = _NEWLINE.split(text)
    lines = parts[0::2]  # parts alternates line, line break, line, ...; lines[0] loses its BOM
    bom = 1 if lines[0].startswith("\ufeff") else 0
    lines[0] = lines[0][bom:]
    fenced = lines[0].rstrip() == "---"
    close = _closing(lines, "---") if fenced else 0  # the closing fence's index, 0: none
    fm = (
        load_frontmatter("\n".join(lines[1:close]))
        if close
        else Loaded(error="unterminated frontmatter: no closing '---' line")
        if fenced
        else Loaded()
    )
    # YAML's own end marker "..." (Pandoc's) closes it when it comes first and what it closes
    # is a mapping: "...", a line of a note's text, must not swallow the lines above.
    dots = _closing(lines, "...") if fenced else 0
    if dots and (not close or dots < close):
        loaded = load_frontmatter("\n".join(lines[1:dots]))
        if loaded.error is None:
            close, fm = dots, loaded
    frontmatter, values, error = fm.data, fm.values, fm.error
    first = close + 1 if close else 0  # index of the first body line
    offset = sum(map(len, parts[: 2 * first])) if first else bom
    stem = path.rsplit("/", 1)[-1]
    stem = stem[:-3] if stem.lower().endswith(".md") else stem
    # Tags composed (NFC), as they are stored: a decomposed "#été" is the tag "été".
    own = own_properties(frontmatter, values, fm.key_lines)
    aliases, tags = _unique(own.aliases), list(own.tags)

    folder = path.rsplit("/", 1)[0] if "/" in path else ""  # relative links start here
    links: list[Link] = []
    dates: list[str | None] = []
    for v in values:
        context = lines[v.line - 1] if 0 < v.line <= len(lines) else ""
        for m in _WIKILINK.finditer(v.value):
            target, heading, block, alias = _wikilink(m.group(2))
            target, written = _relative(folder, target)
            col = context.find(m.group(0))
            end = col + len(m.group(0)) if col >= 0 else 0
            links.append(Link(target, "frontmatter", v.line, context, max(col, 0), end,
                              heading, block, alias, v.key, written))  # fmt: skip
        dates.extend(text_dates(v.value) if _YEAR.search(v.value) else ())
    daily = _DAILY.match(stem)
    if daily:
        dates.append(iso_date(*daily.groups()))
    else:  # "2024-03-12 Standup", "Riunione 5 marzo 2024"
        dates.extend(text_dates(stem) if _YEAR.search(stem) else ())

    headings: list[Heading] = []
    tag_lines: dict[str, int] = {}  # a body tag's first line outside code, by folded name
    fence = ""  # the opening run of the fenced code block we are in
    comment, opened = False, 0  # inside a %%comment%% that runs over lines; its first line
    for idx in range(first, len(lines)):
        raw = lines[idx]
        code, fence = markdown.step(fence, raw)
        if code:
            continue
        hidden, shown = comment, markdown.visible(raw, comment)[0]
        spans = markdown.mask_code_spans(raw)
        masked, comment = markdown.mask_comments(spans, comment)
        if comment and (not hidden or "%%" in spans):  # one opened on this line (or reopened)
            opened = idx + 1
        if not hidden and (atx := markdown.shown_heading(raw, shown)):
            headings.append(Heading(atx[0], atx[1], idx + 1))
        if "#" in masked:
            found = [nfc(tag) for t in _TAG.findall(masked) if _WORDY.search(tag := t.rstrip("/"))]
            tags += found
            for tag in found:
                tag_lines.setdefault(tag.casefold(), idx + 1)
        if "[" in masked:
            links += _line_links(raw, masked, idx + 1, folder)

    warnings = [*fm.warnings, *own.warnings]
    if comment:
        warnings.append(
            f"`%%` at line {opened} opens a comment never closed: as Obsidian, no link, tag or "
            "heading after it is read"
        )
    return capped(
        ParsedNote(
            path=path,
            title=own.title or stem,
            text=text,
            body=text[offset:],
            body_line=first + 1,
            content_hash=text_hash(text),
            aliases=aliases,
            tags=_unique(tags, fold=True),
            tag_lines=tag_lines,
            frontmatter=frontmatter,
            frontmatter_values=values,
            frontmatter_error=error,
            warnings=warnings,
            headings=headings,
            links=links,
            dates=sorted({d for d in dates if d}),
        )
    )
