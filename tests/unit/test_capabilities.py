"""What doctor and /health say to fix when Neo4j cannot be used: the fix fits the failure."""

from __future__ import annotations

from knotwork.check.health import capabilities
from knotwork.check.reports import ManifestReport, Neo4jReport
from tests.conftest import make_settings


def _graph_fix(error: str, credentials_refused: bool = False) -> str | None:
    neo4j = Neo4jReport(
        ok=False, uri="bolt://127.0.0.1:7687", error=error, credentials_refused=credentials_refused
    )
    found = capabilities(make_settings(), neo4j, None, ManifestReport(ok=False))
    assert not found["ingest"].ready and found["ingest"].reason == error
    return found["ingest"].fix


def test_a_refused_password_is_not_told_to_start_neo4j() -> None:
    fix = _graph_fix(
        "Neo4j rejected the credentials: The client is unauthorized due to authentication "
        "failure. Check KNOTWORK_NEO4J_USER and KNOTWORK_NEO4J_PASSWORD.",
        credentials_refused=True,
    )
    assert fix is not None and "KNOTWORK_NEO4J_PASSWORD to the server's" in fix
    assert "start Neo4j" not in fix


def test_a_server_that_does_not_answer_is_told_to_start() -> None:
    fix = _graph_fix("Neo4j is not reachable: Couldn't connect to 127.0.0.1:7687")
    assert fix is not None and "knotwork neo4j start" in fix
