"""A note's YAML frontmatter, loaded safely: bounded against alias bombs and huge blocks, every
failure turned into a short reason, every scalar kept with the line it was written on.

Fast where PyYAML has libyaml: its C parser beneath PyYAML's own composer, which counts what it
composes; a block the C parser refuses is loaded again by PyYAML's pure-Python parser, whose
errors name the line where the block goes wrong.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import yaml
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from yaml.resolver import Resolver

from knotwork.models import FrontmatterValue

try:  # libyaml's parser, when PyYAML was built with it
    import yaml.cyaml

    _CParser: Any = vars(yaml.cyaml)["CParser"]
except (ImportError, KeyError):  # pragma: no cover - PyYAML without libyaml
    _CParser = None

MAX_ALIASES = 50  # YAML alias uses allowed in one frontmatter block
MAX_DEPTH = 20  # nesting allowed in the loaded frontmatter
MAX_NODES = 10_000  # values allowed in the loaded frontmatter, aliases expanded
MAX_FRONTMATTER_CHARS = 200_000  # the pure-Python YAML loader is slow beyond this


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


class _Bounded:
    """Loader part that counts aliases, nodes and depth while composing, and keeps bad dates."""

    _aliases = _nodes = _depth = 0

    def compose_node(self, parent: Node | None, index: int) -> Node | None:
        self._aliases += self.check_event(yaml.AliasEvent)  # type: ignore[attr-defined]
        self._nodes += 1
        self._depth += 1
        try:
            _check(self._aliases, self._nodes, self._depth - 1)
            return super().compose_node(parent, index)  # type: ignore[misc, no-any-return]
        finally:
            self._depth -= 1

    def construct_yaml_timestamp(self, node: ScalarNode) -> Any:
        """``date: 2024-02-30`` stays a string instead of failing the whole block."""
        try:
            return super().construct_yaml_timestamp(node)  # type: ignore[misc]
        except (ValueError, AttributeError):  # impossible date, or `!!timestamp` on non-dates
            return self.construct_scalar(node)  # type: ignore[attr-defined]


class _BoundedLoader(_Bounded, yaml.SafeLoader):
    """PyYAML's own safe loader, bounded: its errors name the line where a block goes wrong."""


_Loader: type = _BoundedLoader
if _CParser is not None:

    class _FastLoader(_Bounded, Composer, _CParser, SafeConstructor, Resolver):  # type: ignore[misc]
        """The same with libyaml's parser beneath PyYAML's composer (which counts): a third of
        the cost of a frontmatter block. Its errors point less well (an unclosed bracket at
        the block's end), so a block it refuses is loaded again by ``_BoundedLoader``."""

        def __init__(self, stream: str) -> None:
            _CParser.__init__(self, stream)
            Composer.__init__(self)
            SafeConstructor.__init__(self)
            Resolver.__init__(self)

    _Loader = _FastLoader

_TIMESTAMP = "tag:yaml.org,2002:timestamp"
for _cls in {_BoundedLoader, _Loader}:
    _cls.add_constructor(_TIMESTAMP, _Bounded.construct_yaml_timestamp)  # type: ignore[attr-defined]

# Plain scalars read as YAML 1.2 (and Obsidian's properties) read them, not as PyYAML's YAML 1.1:
# `NO`, `yes`, `on`, `off` are words (a country's alias, a tag), only true/false are booleans,
# and `12:30` is a time of day, not the number 750.
_BOOL, _INT, _FLOAT = (f"tag:yaml.org,2002:{kind}" for kind in ("bool", "int", "float"))
_YAML12 = {
    _BOOL: (re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), "tTfF"),
    _INT: (
        re.compile(
            r"^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+)$"
        ),
        "-+0123456789",
    ),
    _FLOAT: (
        re.compile(
            r"^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?|[-+]?[0-9][0-9_]*[eE][-+]?[0-9]+"
            r"|\.[0-9][0-9_]*(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
        ),
        "-+0123456789.",
    ),
}
for _cls in {_BoundedLoader, _Loader}:
    _cls.yaml_implicit_resolvers = {  # type: ignore[attr-defined]
        first: [(tag, rx) for tag, rx in rules if tag not in _YAML12]
        for first, rules in Resolver.yaml_implicit_resolvers.items()
    }
    for _tag, (_rx, _first) in _YAML12.items():
        _cls.add_implicit_resolver(_tag, _rx, list(_first))  # type: ignore[attr-defined]

# PyYAML (YAML 1.1) breaks lines at these as at LF, which YAML 1.2 and editors do not: one
# inside a value would end it early (an error, or every later line shifted). Read as spaces.
_SOFT_BREAKS = str.maketrans({"\u2028": " ", "\u2029": " ", "\x85": " "})


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


@dataclass(frozen=True)
class Loaded:
    """A frontmatter block loaded: its data, its values as written, why it was ignored (None:
    it was not) and what it holds that its writer may not mean (a key written twice)."""

    data: dict[str, Any] = field(default_factory=dict)
    values: list[FrontmatterValue] = field(default_factory=list)
    error: str | None = None
    warnings: list[str] = field(default_factory=list)
    key_lines: dict[str, int] = field(default_factory=dict)  # each top-level key's file line


def _line(node: Node) -> int:
    return int(node.start_mark.line) + 2  # the block starts on the file's second line


def _key_name(node: Node) -> str:
    return str(node.value) if isinstance(node, ScalarNode) else "?"


def _repeated_keys(node: Node, prefix: str, seen: set[int], out: list[str]) -> None:
    """A warning for each key a mapping writes twice, read before the constructor folds YAML
    merges (``<<: *base``, whose keys a mapping may override) into it: YAML loaders keep the
    last value, Obsidian refuses the whole block."""
    if id(node) in seen or len(seen) > MAX_NODES:  # an alias: its node was read already
        return
    seen.add(id(node))
    if isinstance(node, SequenceNode):
        for item in node.value:
            _repeated_keys(item, prefix, seen, out)
    if not isinstance(node, MappingNode):
        return
    lines: dict[str, list[int]] = {}
    for knode, _ in node.value:
        if isinstance(knode, ScalarNode) and knode.value != "<<":
            lines.setdefault(_key_name(knode), []).append(_line(knode))
    for name, at in lines.items():
        if len(at) > 1:
            written = ", ".join(map(str, at[:-1])) + f" and {at[-1]}"
            out.append(
                f"frontmatter key {prefix + name!r} written {len(at)} times, at lines {written}: "
                f"the last (line {at[-1]}) is kept, the others ignored; Obsidian refuses a "
                "repeated key"
            )
    for knode, vnode in node.value:
        _repeated_keys(vnode, f"{prefix}{_key_name(knode)}.", seen, out)


def _node_values(node: Node, key: str, depth: int = 0) -> Iterator[FrontmatterValue]:
    """Every scalar under ``node`` as written, lists item by item, mappings as ``key.sub``;
    each with the file line it is written on (an item of a block list: its own line). Of a
    key written twice only the last value is read, as the loaded mapping keeps it."""
    if depth > MAX_DEPTH:
        return
    line = node.start_mark.line + 2  # the block starts on the file's second line
    inner = node.value[0] if isinstance(node, SequenceNode) and len(node.value) == 1 else None
    if isinstance(inner, SequenceNode) and [type(n) for n in inner.value] == [ScalarNode]:
        # `parent: [[X]]` unquoted loads as a nested list: read it back as the link meant
        yield FrontmatterValue(key, f"[[{inner.value[0].value}]]", line)
    elif isinstance(node, ScalarNode):
        if node.tag != "tag:yaml.org,2002:null" and str(node.value).strip():
            yield FrontmatterValue(key, str(node.value), line)
    elif isinstance(node, SequenceNode):
        for item in node.value:
            yield from _node_values(item, key, depth + 1)
    elif isinstance(node, MappingNode):
        last = {_key_name(knode): i for i, (knode, _) in enumerate(node.value)}
        for i, (knode, vnode) in enumerate(node.value):
            name = _key_name(knode)
            if last[name] == i:  # an earlier value of a repeated key is overridden
                sub = f"{key}.{name}" if key else name
                yield from _node_values(vnode, sub, depth + 1)


def load_frontmatter(source: str) -> Loaded:
    """Load a frontmatter block; on any failure nothing but ``error``, a short reason."""
    if len(source) > MAX_FRONTMATTER_CHARS:
        return Loaded(error=f"frontmatter longer than {MAX_FRONTMATTER_CHARS} characters")
    if _Loader is not _BoundedLoader:
        with contextlib.suppress(Exception):  # _TooComplexError too: it is raised again below
            return _loaded(source, _Loader)
    try:
        return _loaded(source, _BoundedLoader)
    except _TooComplexError as exc:
        return Loaded(error=str(exc))
    except yaml.MarkedYAMLError as exc:
        where = f" at line {exc.problem_mark.line + 2}" if exc.problem_mark else ""
        return Loaded(error=f"invalid YAML{where}: {exc.problem or exc.context or 'syntax error'}")
    except Exception as exc:  # PyYAML on hostile input can fail in many ways; none may escape
        return Loaded(error=f"invalid YAML: {type(exc).__name__}: {exc}"[:200])


def _loaded(source: str, loader_class: type) -> Loaded:
    loader = loader_class(source.translate(_SOFT_BREAKS))
    repeated: list[str] = []
    try:
        node = loader.get_single_node()
        if node is not None:  # before construction folds merges into the mappings
            _repeated_keys(node, "", set(), repeated)
        data = loader.construct_document(node) if node is not None else None
    finally:
        loader.dispose()
    if data is None:
        return Loaded()
    if not isinstance(data, dict):
        return Loaded(error=f"frontmatter is a {type(data).__name__}, not a mapping")
    loaded = _jsonable(data, 0, [0])
    lines = {_key_name(k): _line(k) for k, _ in node.value} if node else {}
    values = list(_node_values(node, "")) if node else []
    return Loaded(loaded, values, warnings=repeated, key_lines=lines)
