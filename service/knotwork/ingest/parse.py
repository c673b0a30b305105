"""Turn one vault file into a ParsedNote: frontmatter, links, tags, headings and dates.

Pure and total, so one odd file never stops an ingest: broken or hostile YAML becomes
``frontmatter_error`` and the body is still parsed. Regexes are linear (1 MB in well under 1 s).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import math
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import unquote

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from knotwork.models import FrontmatterValue, Heading, Link, LinkKind, ParsedNote
from knotwork.text import markdown
from knotwork.text.dates import iso_date, text_dates

MAX_ALIASES = 50  # YAML alias uses allowed in one frontmatter block
MAX_DEPTH = 20  # nesting allowed in the loaded frontmatter
MAX_NODES = 10_000  # values allowed in the loaded frontmatter, aliases expanded
MAX_FRONTMATTER_CHARS = 200_000  # the pure-Python YAML loader is slow beyond this

_NEWLINE = re.compile(r"(\r\n|\r|\n)")
_TICKS = re.compile(r"`+")
_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*)$")
_TAG = re.compile(r"(?<!\S)#([\w/-]+)")
_WORDY = re.compile(r"[^\d/-]")  # a tag needs more than digits, dashes and slashes
_WIKILINK = re.compile(r"(!?)\[\[([^\[\]]+)\]\]")
_MDLINK = re.compile(
    r"(!?)\[([^\[\]]*)\]\(\s*(<[^<>\n]*>|[^\s()<>]+)(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)"
)
_SCHEME = re.compile(r"^(?:[A-Za-z][A-Za-z0-9+.-]*:|//)")
_DAILY = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
_YEAR = re.compile(r"\d{4}")


class _TooComplexError(ValueError):
    """The frontmatter is too large, deep or alias-heavy to load safely."""


def _check(aliases: int = 0, values: int = 0, depth: int = 0) -> None:
    """Raise once a YAML block passes one of the limits that stop alias bombs."""
    for count, limit, what in (
        (aliases, MAX_ALIASES, "YAML aliases"),
        (values, MAX_NODES, "values"),
        (depth, MAX_DEPTH, "levels of nesting"),
    ):
        if count > limit:
            raise _TooComplexError(f"frontmatter refused: more than {limit} {what}")


class _BoundedLoader(yaml.SafeLoader):
    """SafeLoader that counts aliases, nodes and depth while composing, and keeps bad dates."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._aliases = self._nodes = self._depth = 0

    def compose_node(self, parent: Node | None, index: int) -> Node | None:
        self._aliases += self.check_event(yaml.AliasEvent)
        self._nodes += 1
        self._depth += 1
        try:
            _check(self._aliases, self._nodes, self._depth - 1)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_yaml_timestamp(self, node: ScalarNode) -> Any:
        """``date: 2024-02-30`` stays a string instead of failing the whole block."""
        try:
            return super().construct_yaml_timestamp(node)
        except (ValueError, AttributeError):  # impossible date, or `!!timestamp` on non-dates
            return self.construct_scalar(node)


_TIMESTAMP = "tag:yaml.org,2002:timestamp"
_BoundedLoader.add_constructor(_TIMESTAMP, _BoundedLoader.construct_yaml_timestamp)


def _jsonable(obj: Any, depth: int, budget: list[int]) -> Any:
    """A JSON-safe copy of loaded YAML, counting values so expanded aliases stay bounded."""
    budget[0] += 1
    _check(values=budget[0], depth=depth)
    if isinstance(obj, dict):
        return {str(k): _jsonable(v, depth + 1, budget) for k, v in obj.items()}
    if isinstance(obj, list | tuple | set | frozenset):
        items = sorted(obj, key=str) if isinstance(obj, set | frozenset) else obj
        return [_jsonable(v, depth + 1, budget) for v in items]
    if isinstance(obj, dt.date):  # datetimes too
        return obj.isoformat()
    if isinstance(obj, bytes):  # !!binary
        return obj.decode("utf-8", "replace")
    plain = (
        obj is None or isinstance(obj, str | int) or (isinstance(obj, float) and math.isfinite(obj))
    )
    return obj if plain else str(obj)  # inf, nan and anything else: as text


def _node_values(node: Node, key: str, line: int, depth: int = 0) -> Iterator[FrontmatterValue]:
    """Every scalar under ``node`` as written, lists item by item, mappings as ``key.sub``."""
    if depth > MAX_DEPTH:
        return
    inner = node.value[0] if isinstance(node, SequenceNode) and len(node.value) == 1 else None
    if isinstance(inner, SequenceNode) and [type(n) for n in inner.value] == [ScalarNode]:
        # `parent: [[X]]` unquoted loads as a nested list: read it back as the link meant
        yield FrontmatterValue(key, f"[[{inner.value[0].value}]]", line)
    elif isinstance(node, ScalarNode):
        if node.tag != "tag:yaml.org,2002:null" and str(node.value).strip():
            yield FrontmatterValue(key, str(node.value), line)
    elif isinstance(node, SequenceNode):
        for item in node.value:
            yield from _node_values(item, key, line, depth + 1)
    elif isinstance(node, MappingNode):
        for knode, vnode in node.value:
            name = str(knode.value) if isinstance(knode, ScalarNode) else "?"
            sub = f"{key}.{name}" if key else name
            yield from _node_values(vnode, sub, knode.start_mark.line + 2, depth + 1)


def _load_frontmatter(source: str) -> tuple[dict[str, Any], list[FrontmatterValue], str | None]:
    """Load a frontmatter block; on any failure return ({}, [], a short reason)."""
    if len(source) > MAX_FRONTMATTER_CHARS:
        return {}, [], f"frontmatter longer than {MAX_FRONTMATTER_CHARS} characters"
    try:
        loader = _BoundedLoader(source)
        try:
            node = loader.get_single_node()
            data = loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()
        if data is None:
            return {}, [], None
        if not isinstance(data, dict):
            return {}, [], f"frontmatter is a {type(data).__name__}, not a mapping"
        loaded = _jsonable(data, 0, [0])
        return loaded, list(_node_values(node, "", 0)) if node else [], None
    except _TooComplexError as exc:
        return {}, [], str(exc)
    except yaml.MarkedYAMLError as exc:
        where = f" at line {exc.problem_mark.line + 2}" if exc.problem_mark else ""
        return {}, [], f"invalid YAML{where}: {exc.problem or exc.context or 'syntax error'}"
    except Exception as exc:  # PyYAML on hostile input can fail in many ways; none may escape
        return {}, [], f"invalid YAML: {type(exc).__name__}: {exc}"[:200]


def _mask_code_spans(line: str) -> str:
    """Blank inline code spans (same length, so offsets hold) in linear time."""
    if "`" not in line:
        return line
    runs = [m.span() for m in _TICKS.finditer(line)]
    # run length -> starts of the runs of that length not yet passed, nearest last
    later: dict[int, list[int]] = {}
    for start, end in reversed(runs):
        later.setdefault(end - start, []).append(start)
    chars, pos = list(line), 0
    for start, end in runs:
        same = later[end - start]
        same.pop()  # this run itself
        if start >= pos and same:  # a backtick run is closed by the next run of the same length
            pos = same[-1] + end - start
            chars[start:pos] = "\x00" * (pos - start)
    return "".join(chars)


def _heading_text(text: str) -> str:
    """ATX heading text without an optional closing run of '#' (done here, not by regex)."""
    text = text.strip()
    bare = text.rstrip("#")
    return (bare.rstrip() if bare != text and (not bare or bare[-1] in " \t") else text).strip()


def _strip_md(target: str) -> str:
    return target[:-3] if target.lower().endswith(".md") else target


def _wikilink(inner: str) -> tuple[str, str | None, str | None, str | None]:
    """(target, heading, block, alias) of the text between ``[[`` and ``]]``."""
    ref, bar, alias = inner.replace("\\|", "|").partition("|")
    target, _, frag = ref.partition("#")
    frag = frag.strip()
    block = frag[1:].strip() or None if frag.startswith("^") else None
    heading = frag if frag and not frag.startswith("^") else None
    return _strip_md(target.strip()), heading, block, (alias.strip() or None) if bar else None


def _line_links(raw: str, masked: str, line: int) -> list[Link]:
    links = []
    for m in _WIKILINK.finditer(masked):
        target, heading, block, alias = _wikilink(raw[m.start(2) : m.end(2)])
        if target or heading or block:
            kind: LinkKind = "embed" if m.group(1) else "wikilink"
            links.append(Link(target, kind, line, raw, m.start(), m.end(), heading, block, alias))
    for m in _MDLINK.finditer(masked) if "](" in masked else ():
        dest = raw[m.start(3) : m.end(3)]
        dest = dest[1:-1].strip() if dest.startswith("<") else dest
        path, _, frag = dest.partition("#")
        path = unquote(path)
        if _SCHEME.match(path) or not path.lower().endswith(".md"):
            continue
        md_kind: LinkKind = "embed" if m.group(1) else "markdown"
        text = raw[m.start(2) : m.end(2)].strip() or None
        heading = unquote(frag).strip() or None
        links.append(Link(_strip_md(path.strip()), md_kind, line, raw, m.start(), m.end(),
                          heading, None, text))  # fmt: skip
    return sorted(links, key=lambda link: link.col) if "](" in masked else links


def _unique(items: list[str], fold: bool = False) -> list[str]:
    """Non-empty items, first spelling kept, order kept."""
    seen: dict[str, str] = {}
    for item in items:
        seen.setdefault(item.casefold() if fold else item, item)
    return [item for item in seen.values() if item]


def _fm_list(frontmatter: dict[str, Any], names: tuple[str, ...], split: bool = False) -> list[str]:
    """A frontmatter key (any case) as texts; a string is one item, or split on commas/spaces."""
    value = next((v for k, v in frontmatter.items() if k.lower() in names), None)
    if isinstance(value, str):
        value = re.split(r"[,\s]+", value) if split else [value]
    items = value if isinstance(value, list) else [value]
    return [str(v).strip() for v in items if v is not None and not isinstance(v, dict | list)]


def parse_note(path: str, text: str) -> ParsedNote:
    """Parse one note's text; ``path`` is vault-relative POSIX and only names the note."""
    parts = _NEWLINE.split(text)
    lines = parts[0::2]  # parts alternates line, line break, line, ...; lines[0] loses its BOM
    bom = 1 if lines[0].startswith("\ufeff") else 0
    lines[0] = lines[0][bom:]
    fenced = lines[0].rstrip() == "---"
    ends = (i for i in range(1, len(lines) if fenced else 0) if lines[i].rstrip() in ("---", "..."))
    close = next(ends, 0)  # the closing fence's index, 0 when there is none
    frontmatter, values, error = (
        _load_frontmatter("\n".join(lines[1:close]))
        if close
        else ({}, [], "unterminated frontmatter: no closing '---' line" if fenced else None)
    )
    first = close + 1 if close else 0  # index of the first body line
    offset = sum(map(len, parts[: 2 * first])) if first else bom
    stem = path.rsplit("/", 1)[-1]
    stem = stem[:-3] if stem.lower().endswith(".md") else stem
    title = frontmatter.get("title")
    aliases = _unique(_fm_list(frontmatter, ("aliases", "alias")))
    tags = [t.lstrip("#").strip() for t in _fm_list(frontmatter, ("tags", "tag"), split=True)]

    links: list[Link] = []
    dates: list[str | None] = []
    for v in values:
        context = lines[v.line - 1] if 0 < v.line <= len(lines) else ""
        for m in _WIKILINK.finditer(v.value):
            target, heading, block, alias = _wikilink(m.group(2))
            col = context.find(m.group(0))
            end = col + len(m.group(0)) if col >= 0 else 0
            links.append(Link(target, "frontmatter", v.line, context, max(col, 0), end,
                              heading, block, alias, v.key))  # fmt: skip
        dates.extend(text_dates(v.value) if _YEAR.search(v.value) else ())
    daily = _DAILY.match(stem)
    if daily:
        dates.append(iso_date(*daily.groups()))
    else:  # "2024-03-12 Standup", "Riunione 5 marzo 2024"
        dates.extend(text_dates(stem) if _YEAR.search(stem) else ())

    headings: list[Heading] = []
    fence = ""  # the opening run of the fenced code block we are in
    for idx in range(first, len(lines)):
        raw = lines[idx]
        code, fence = markdown.step(fence, raw)
        if code:
            continue
        masked = _mask_code_spans(raw)
        atx = _HEADING.match(masked) if masked.lstrip(" ").startswith("#") else None
        if atx and (heading_text := _heading_text(raw[atx.start(2) :])):
            headings.append(Heading(len(atx.group(1)), heading_text, idx + 1))
        if "#" in masked:
            tags += [tag for t in _TAG.findall(masked) if _WORDY.search(tag := t.rstrip("/"))]
        if "[" in masked:
            links += _line_links(raw, masked, idx + 1)

    return ParsedNote(
        path=path,
        title=title.strip() if isinstance(title, str) and title.strip() else stem,
        text=text,
        body=text[offset:],
        body_line=first + 1,
        content_hash=hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest(),
        aliases=aliases,
        tags=_unique(tags, fold=True),
        frontmatter=frontmatter,
        frontmatter_values=values,
        frontmatter_error=error,
        headings=headings,
        links=links,
        dates=sorted({d for d in dates if d}),
    )
