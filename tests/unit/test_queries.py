"""Every named query has one typed constant, and its row TypedDict is its file's contract.

A ``Query`` constant of ``knotwork.graph.queries`` names a ``cypher/<name>.cypher`` file and
the TypedDict its rows are cast to (graph/rows.py ``typed``). Nothing checks the rows at run
time, so here the TypedDict's keys are held to the columns the file's ``// Returns:`` header
declares and to the columns its final RETURN clause makes; a column renamed on one side only
fails.
The Python types are held roughly to the header's (int, str, float, bool, list, map,
datetime, and "or null"): a header that names no type, or an element id, says too little to
check more.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
import types
import typing
from pathlib import Path
from typing import Any

import pytest
from neo4j.time import DateTime

import knotwork.graph.queries as queries_package
from knotwork.graph.queries import NoRow, Query
from tests.conftest import REPO
from tests.unit import source_calls


def constants() -> dict[str, Query[Any]]:
    """Every ``Query`` constant of the package's modules, by constant name."""
    found: dict[str, Query[Any]] = {}
    for info in pkgutil.iter_modules(queries_package.__path__):
        module = importlib.import_module(f"{queries_package.__name__}.{info.name}")
        for attr, value in vars(module).items():
            if isinstance(value, Query):
                assert attr not in found, f"{attr} is defined twice"
                found[attr] = value
    return found


QUERIES = constants()


def statement_files() -> set[str]:
    """Files the store runs statement by statement (``cypher.statements("…")``): no constant."""
    source = (REPO / "service/knotwork/graph/store.py").read_text()
    return set(re.findall(r'cypher\.statements\("([a-z_]+)"\)', source))


def header(name: str) -> list[str]:
    """The opening comment lines of a query file, without their ``//``."""
    lines = (REPO / "cypher" / f"{name}.cypher").read_text().splitlines()
    out = []
    for line in lines:
        if not line.startswith("//"):
            break
        out.append(line[2:])
    return out


def _split_top(text: str, sep: str = ",") -> list[str]:
    """``text`` split at ``sep`` outside brackets."""
    parts, depth, current = [], 0, []
    for ch in text:
        depth += ch in "([{"
        depth -= ch in ")]}"
        assert depth >= 0, f"unbalanced brackets in {text!r}"
        if ch == sep and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    assert depth == 0, f"unbalanced brackets in {text!r}"
    parts.append("".join(current))
    return parts


_COLUMN = re.compile(r"^([a-z_][a-z0-9_]*)(?:\s*\((.*)\))?$", re.DOTALL)


def declared_columns(name: str) -> dict[str, str]:
    """Column → its parenthesised description, as the ``Returns:`` header lists them: the
    ``Returns:`` line and its indented continuation lines, an optional ``one row:``, then
    ``column (description)`` items separated by commas; prose after a ``;`` ends the list.
    ``Returns: nothing`` declares none."""
    lines = header(name)
    start = next(i for i, ln in enumerate(lines) if ln.lstrip().startswith("Returns:"))
    block = [lines[start].split("Returns:", 1)[1]]
    for line in lines[start + 1 :]:
        if not line.startswith("   "):
            break
        block.append(line)
    text = " ".join(" ".join(block).split())
    text = text.removeprefix("one row:").strip()
    if re.match(r"nothing\b", text):
        return {}
    listed = _split_top(text, ";")[0]
    columns: dict[str, str] = {}
    for item in _split_top(listed):
        match = _COLUMN.match(item.strip())
        assert match, f"{name}: {item.strip()!r} is not 'column (description)'"
        columns[match.group(1)] = match.group(2) or ""
    return columns


def returned_columns(name: str) -> list[str] | None:
    """The column names of the query's final RETURN (outside subqueries), or None without."""
    body = "\n".join(
        ln
        for ln in (REPO / "cypher" / f"{name}.cypher").read_text().splitlines()
        if not ln.lstrip().startswith("//")
    )
    depth, last = 0, None
    for match in re.finditer(r"[{}]|\bRETURN\b", body):
        token = match.group()
        if token == "{":
            depth += 1
        elif token == "}":
            depth -= 1
        elif depth == 0:
            last = match.end()
    if last is None:
        return None
    clause = re.split(r"\b(?:ORDER BY|SKIP|LIMIT|UNION)\b", body[last:])[0]
    clause = re.sub(r"^\s*DISTINCT\b", "", clause)
    columns = []
    for item in _split_top(clause):
        item = " ".join(item.split())
        alias = re.search(r"\bAS\s+`?(\w+)`?$", item)
        columns.append(alias.group(1) if alias else item)
    return columns


def keys_of(row: type) -> set[str]:
    assert typing.is_typeddict(row), f"{row} is not a TypedDict"
    assert not row.__optional_keys__, f"{row.__name__}: every column is always returned"
    return set(row.__required_keys__)


def test_every_query_file_has_exactly_one_constant() -> None:
    files = {p.stem for p in (REPO / "cypher").glob("*.cypher")}
    statements = statement_files()
    assert statements and statements <= files
    names = [q.name for q in QUERIES.values()]
    assert len(names) == len(set(names)), "two constants name the same file"
    assert sorted(names) == sorted(files - statements)


@pytest.mark.parametrize("constant", sorted(QUERIES))
def test_constant_is_named_after_its_file(constant: str) -> None:
    query = QUERIES[constant]
    assert constant == query.name.upper()
    assert (REPO / "cypher" / f"{query.name}.cypher").is_file()


@pytest.mark.parametrize("constant", sorted(QUERIES))
def test_row_keys_are_the_declared_and_returned_columns(constant: str) -> None:
    query = QUERIES[constant]
    declared = declared_columns(query.name)
    assert keys_of(query.row) == set(declared), "the TypedDict and the Returns: header differ"
    returned = returned_columns(query.name)
    if not declared:
        assert query.row is NoRow and returned is None
    else:
        assert returned is not None and set(returned) == set(declared), "RETURN and header differ"
        assert len(returned) == len(set(returned))


_KINDS: list[tuple[str, type]] = [
    ("int", int),
    ("float", float),
    ("bool", bool),
    ("str", str),
    ("list", list),
    ("map", dict),
    ("datetime", DateTime),
]


def _origins(annotation: Any) -> tuple[set[type], bool]:
    """The runtime classes an annotation allows (a TypedDict counts as dict), and whether it
    allows None."""
    args = (
        typing.get_args(annotation)
        if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union
        else (annotation,)
    )
    classes = set()
    for arg in args:
        if arg is type(None):
            continue
        origin = typing.get_origin(arg) or arg
        classes.add(dict if typing.is_typeddict(origin) else origin)
    return classes, type(None) in args


@pytest.mark.parametrize("constant", sorted(QUERIES))
def test_row_types_agree_with_the_header(constant: str) -> None:
    query = QUERIES[constant]
    hints = typing.get_type_hints(query.row)
    for column, description in declared_columns(query.name).items():
        allowed, nullable = _origins(hints[column])
        text = description.lower()
        if "or null" in text or text.startswith("null"):
            assert nullable, f"{column}: the header says it may be null"
        kind = next((k for word, k in _KINDS if re.match(rf"{word}\b", text)), None)
        if kind is not None:
            assert allowed == {kind}, f"{column}: {hints[column]} where the header says {text!r}"


def test_a_renamed_column_fails(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The check above has teeth: a header naming another column than the TypedDict fails."""
    original = (REPO / "cypher" / "vault_notes.cypher").read_text()
    assert "notes (int)" in original
    (tmp_path / "cypher").mkdir()
    (tmp_path / "cypher" / "vault_notes.cypher").write_text(
        original.replace("notes (int)", "note_count (int)").replace("AS notes", "AS note_count")
    )
    monkeypatch.setattr(f"{__name__}.REPO", tmp_path)
    with pytest.raises(AssertionError, match="header differ"):
        test_row_keys_are_the_declared_and_returned_columns("VAULT_NOTES")


def test_no_call_names_a_query_by_string() -> None:
    """Every call of read, write and run_query passes a constant (mypy holds the service to
    it; the tests and benchmarks are not type-checked, so they are scanned)."""
    files = {p.stem for p in (REPO / "cypher").glob("*.cypher")}
    wrong = []
    for source, node, attr in source_calls.calls():
        if attr not in ("read", "write", "run_query"):
            continue
        for arg in node.args[:2]:
            if isinstance(arg, ast.Constant) and arg.value in files:
                wrong.append(f"{source.relative_to(REPO)}:{node.lineno} {arg.value}")
    assert wrong == []
