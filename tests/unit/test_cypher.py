"""Every named query is documented, parameterised, and loads by name."""

from __future__ import annotations

import ast
import re
import zipfile
from pathlib import Path

import pytest

from knotwork.errors import QueryNotFoundError
from knotwork.graph import cypher
from knotwork.graph.store import EXPECTED_INDEXES
from tests.conftest import REPO
from tests.unit import source_calls
from tests.unit.test_queries import QUERIES

FILES = sorted((REPO / "cypher").glob("*.cypher"))


def test_there_are_queries() -> None:
    assert len(FILES) >= 10
    assert cypher.cypher_dir() == REPO / "cypher"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_header_names_parameters_and_returns(path: Path) -> None:
    text = path.read_text()
    header = "\n".join(line for line in text.splitlines() if line.startswith("//"))
    assert text.startswith("//"), "a query file opens with its header comment"
    assert "Parameters:" in header and "Returns:" in header
    body = "\n".join(line for line in text.splitlines() if not line.startswith("//"))
    for param in set(re.findall(r"\$([A-Za-z_][A-Za-z0-9_]*)", body)):
        assert f"${param}" in header, f"${param} is used but not documented"


def test_load_and_statements() -> None:
    assert cypher.load("manifest_get").startswith("MATCH (m:Manifest")
    schema = cypher.statements("schema")
    assert len(schema) == len(EXPECTED_INDEXES) and all(s.startswith("CREATE") for s in schema)
    # Indexes earlier versions made are dropped, idempotently, and never expected.
    retired = cypher.statements("schema_retired")
    assert [s.split()[2] for s in retired] == ["chunk_text", "chunk_mtext", "note_vault"]
    assert all(s.startswith("DROP INDEX") and s.endswith("IF EXISTS") for s in retired)
    assert not {"chunk_text", "chunk_mtext", "note_vault"} & set(EXPECTED_INDEXES)
    with pytest.raises(QueryNotFoundError, match="statements"):
        cypher.load("schema")


@pytest.mark.parametrize("name", ["nope", "../etc/passwd", "Schema", ""])
def test_unknown_names_fail_loudly(name: str) -> None:
    with pytest.raises(QueryNotFoundError):
        cypher.load(name)


def test_no_cypher_is_built_from_strings_in_the_service() -> None:
    """Queries travel as files and parameters; no f-string or format() builds Cypher."""
    suspicious = re.compile(
        r"""(execute_query|\.run)\(\s*f["']|(MATCH|MERGE|CREATE)[^"']*["']\s*(%|\.format)"""
    )
    for source in (REPO / "service" / "knotwork").rglob("*.py"):
        assert not suspicious.search(source.read_text()), source


def test_wheel_contains_the_cypher_files(tmp_path: Path) -> None:
    from hatchling.builders.wheel import WheelBuilder

    wheel = Path(
        next(WheelBuilder(str(REPO)).build(directory=str(tmp_path), versions=["standard"]))
    )
    names = set(zipfile.ZipFile(wheel).namelist())
    for path in FILES:
        assert f"knotwork/cypher/{path.name}" in names
    assert "knotwork/cli/__init__.py" in names


def test_the_test_reset_drops_every_schema_object() -> None:
    """A leftover index (e.g. a vector index of another dimension) would leak between tests."""
    reset = (REPO / "tests/integration/reset.cypher").read_text()
    created = re.findall(
        r"(?:INDEX|CONSTRAINT) (\w+) IF NOT EXISTS", "\n".join(cypher.statements("schema"))
    )
    assert sorted(created) == sorted(EXPECTED_INDEXES)
    for name in created:
        assert re.search(rf"DROP (?:INDEX|CONSTRAINT) {name} IF EXISTS", reset), name


def _declared(name: str) -> set[str]:
    """The parameters a query's header declares (between "Parameters:" and "Returns:")."""
    header = [ln[2:] for ln in (REPO / "cypher" / f"{name}.cypher").read_text().splitlines()]
    text = "\n".join(header)
    block = text[text.index("Parameters:") : text.index("Returns:")]
    return set(re.findall(r"\$([A-Za-z_][A-Za-z0-9_]*)", block))


Call = tuple[str, int, str, set[str] | None, bool]


def _constant(node: ast.expr) -> str | None:
    """The query file a ``Query`` constant argument names (``VAULT_NOTES`` or
    ``queries.VAULT_NOTES``), else None."""
    name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", None)
    query = QUERIES.get(name) if isinstance(name, str) else None
    return query.name if query is not None else None


def _named_calls() -> list[Call]:
    """(file, line, query name, keyword names or None when ``**`` passes more, whether the call
    runs the query itself) of every call passing a ``Query`` constant, in the service, the tests
    and the benchmarks: ``….read(Q, …)``, ``….write(Q, …)`` and the in-transaction
    ``run_query(tx, Q, …)`` run it; a helper (``_touched(tx, Q, …)``) passes it on with
    some of its parameters."""
    found = []
    for source, node, attr in source_calls.calls():
        position = {"read": 0, "write": 0, "run_query": 1, "read_within": 1}.get(attr)
        named = [(i, q) for i, a in enumerate(node.args) if (q := _constant(a))]
        if not named:
            continue
        index, name = named[0]
        keys = {k.arg for k in node.keywords}
        rel = str(source.relative_to(REPO))
        runs = index == position
        found.append((rel, node.lineno, name, None if None in keys else keys, runs))
    return found


def test_every_call_passes_exactly_the_parameters_its_query_declares() -> None:
    """A query's header is its contract: a call with a missing or an extra parameter (which
    Neo4j would take as null, or ignore) fails here rather than in production. A helper that
    passes a query on with some parameters may pass only declared ones."""
    calls = _named_calls()
    assert sum(runs for *_, runs in calls) >= 80, "the scan found the calls"
    wrong = [
        f"{where}:{line} {name}: passes {sorted(keys)}, declared {sorted(_declared(name))}"
        for where, line, name, keys, runs in calls
        if keys is not None and (keys != _declared(name) if runs else not keys <= _declared(name))
    ]
    assert wrong == []


def test_every_query_is_run_somewhere() -> None:
    """No dead query files: each is run through its constant (by the service, tests or
    benchmarks) or loaded as statements (``cypher.statements("name")``)."""
    used = {name for _, _, name, _, _ in _named_calls()}
    texts = "\n".join(
        p.read_text()
        for folder in ("service", "tests", "bench")
        for p in (REPO / folder).rglob("*.py")
        if "queries" not in p.relative_to(REPO).parts  # where the constants are defined
    )
    unused = [
        p.stem
        for p in FILES
        if p.stem not in used and f'cypher.statements("{p.stem}")' not in texts
    ]
    assert unused == []


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_no_query_needs_the_apoc_plugin(path: Path) -> None:
    """A Neo4j without APOC (a server of the user's own) serves every query; only the check
    for the plugin (reported by doctor, for Browser users) names it."""
    body = "\n".join(line for line in path.read_text().splitlines() if not line.startswith("//"))
    if path.stem != "apoc_installed":
        assert "apoc." not in body.casefold()


# Queries whose notes are reached otherwise: from a chunk found by its id, or by a name index.
REACHED_OTHERWISE = {"filter_chunks", "notes_named"}


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_a_vaults_notes_are_read_through_the_note_key_index(path: Path) -> None:
    """Notes matched by their vault alone say ``path IS NOT NULL`` (always true), so the
    composite note_key index finds them by its first property instead of a scan of every
    vault's notes; there is no index on the vault alone (schema.cypher, note_key)."""
    if path.stem in REACHED_OTHERWISE:
        return
    body = "\n".join(line for line in path.read_text().splitlines() if not line.startswith("//"))
    for match in re.finditer(r"\((\w+):Note \{vault: \$vault\}\)", body):
        rest = body[match.end() : match.end() + 200]
        if "MATCH" not in body[max(0, match.start() - 80) : match.start()]:
            continue  # a MERGE or a pattern inside EXISTS, not a read of the vault's notes
        assert f"{match.group(1)}.path IS NOT NULL" in rest, (path.stem, rest[:80])
