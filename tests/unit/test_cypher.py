"""Every named query is documented, parameterised, and loads by name."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import pytest

from knotwork.errors import QueryNotFoundError
from knotwork.graph import cypher
from knotwork.graph.store import EXPECTED_INDEXES
from tests.conftest import REPO

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
    assert [s.split()[2] for s in retired] == ["chunk_text", "chunk_mtext"]
    assert all(s.startswith("DROP INDEX") and s.endswith("IF EXISTS") for s in retired)
    assert not {"chunk_text", "chunk_mtext"} & set(EXPECTED_INDEXES)
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
