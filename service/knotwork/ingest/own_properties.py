"""The frontmatter keys that name the note itself — title, aliases, tags — read as Obsidian
reads them; pure. A value that cannot be one (a list for a title, a mapping or a boolean for an
alias, an empty or nested item, a tag with a space) is never dropped or mangled silently: each
gives a warning naming the key, its line and what was done with it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from knotwork.models import FrontmatterValue
from knotwork.text.keys import nfc

ALIAS_KEYS = ("aliases", "alias")
TAG_KEYS = ("tags", "tag")
# Obsidian splits a string of tags at commas and spaces; no tag holds either.
_TAG_SPLIT = re.compile(r"[,\s]+")
_SHOWN_CHARS = 60  # of a value quoted in a warning


@dataclass
class OwnProperties:
    title: str | None = None  # None: the file name is the title
    aliases: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)  # without "#", composed (NFC)
    warnings: list[str] = field(default_factory=list)


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _shown(value: Any) -> str:
    """A value as YAML-ish text for a warning: ``["y"]``, ``{"z": 1}``, ``true``."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= _SHOWN_CHARS else text[: _SHOWN_CHARS - 1] + "…"


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "a yes/no value"
    return "a list" if isinstance(value, list) else "a mapping"


def _numbers_as_written(value: Any, values: list[FrontmatterValue], key: str) -> list[str] | None:
    """A name key's items as the file writes them when YAML read one as a number (`1984`,
    `0123`, `3.10` are names here, not 1984, 83 and 3.1); None when none is a number."""
    items = value if isinstance(value, list) else [value]
    if not any(_number(i) for i in items) or any(isinstance(i, list | dict) for i in items):
        return None  # nested values: the loaded ones stand (their spellings do not line up)
    kept = [i for i in items if i is not None and str(i).strip()]
    written = [v.value for v in values if v.key == key]  # a scalar each, null and "" left out
    if len(written) != len(kept):
        return None
    return [w if _number(i) else i for i, w in zip(kept, written, strict=True)]


def _title(frontmatter: dict[str, Any], values: list[FrontmatterValue], line: int) -> OwnProperties:
    title = frontmatter.get("title")
    if _number(title):  # `title: 1984`
        title = (_numbers_as_written(title, values, "title") or [str(title)])[0]
    if title is None or isinstance(title, str):
        return OwnProperties(title=title.strip() or None if title else None)
    said = f"frontmatter 'title' at line {line} is {_kind(title)} ({_shown(title)}), not a text"
    return OwnProperties(warnings=[f"{said}: the file name is the title"])


def _items(
    frontmatter: dict[str, Any],
    values: list[FrontmatterValue],
    key_lines: dict[str, int],
    names: tuple[str, ...],
    what: str,
) -> tuple[list[Any], str, list[str]]:
    """(the key's items as loaded, numbers as written, or a string whole; the key as written;
    warnings for a value that is no list of texts)."""
    key = next((k for k in frontmatter if k.lower() in names), None)
    if key is None or frontmatter[key] is None:
        return [], "", []
    value, line = frontmatter[key], key_lines.get(key, 1)
    if isinstance(value, dict):
        said = f"frontmatter {key!r} at line {line} is a mapping ({_shown(value)}), not {what}"
        return [], key, [f"{said}: ignored"]
    if isinstance(value, str):
        return [value], key, []
    items = _numbers_as_written(value, values, key) or (
        value if isinstance(value, list) else [value]
    )
    warnings = []
    if isinstance(value, list) and (empty := sum(map(_empty, value))):
        warnings.append(f"frontmatter {key!r} at line {line}: {empty} empty {_item(empty)} ignored")
    for item in items:
        if isinstance(item, bool | list | dict):
            warnings.append(
                f"frontmatter {key!r} at line {line}: {_shown(item)} is {_kind(item)}, "
                f"not {what}: ignored"
            )
    kept = [i for i in items if not _empty(i) and not isinstance(i, bool | list | dict)]
    return [str(i) for i in kept], key, warnings


def _empty(item: Any) -> bool:
    return item is None or (isinstance(item, str) and not item.strip())


def _item(count: int) -> str:
    return "item" if count == 1 else "items"


def own_properties(
    frontmatter: dict[str, Any], values: list[FrontmatterValue], key_lines: dict[str, int]
) -> OwnProperties:
    """The note's title, aliases and tags as its frontmatter gives them, with a warning for
    every value left out or changed. A string of aliases is split at its commas, a string of
    tags at commas and spaces, as Obsidian splits them; a tag item that holds a space or a
    comma is split there too (an inline ``#a b`` is the tag ``a`` then a word: no tag holds a
    space), with a warning."""
    own = _title(frontmatter, values, key_lines.get("title", 1))
    items, key, said = _items(frontmatter, values, key_lines, ALIAS_KEYS, "an alias")
    if len(items) == 1 and isinstance(frontmatter.get(key), str):
        items = items[0].split(",")
    own.aliases = [a.strip() for a in items if a.strip()]
    own.warnings += said
    items, key, said = _items(frontmatter, values, key_lines, TAG_KEYS, "a tag")
    own.warnings += said
    whole = isinstance(frontmatter.get(key), str)
    for item in items:
        tags = [t for t in _TAG_SPLIT.split(item.strip()) if t.lstrip("#")]
        if len(tags) > 1 and not whole:
            line = key_lines.get(key, 1)
            own.warnings.append(
                f"frontmatter {key!r} at line {line}: {_shown(item)} holds a space or a comma, "
                f"which no tag may: read as the tags {', '.join(t.lstrip('#') for t in tags)}"
            )
        own.tags += [nfc(t.lstrip("#").strip()) for t in tags]
    return own
