"""The no-Docker Neo4j: start, stop, start again from the cached jars, stop again."""

from __future__ import annotations

import shutil

import pytest
from neo4j import GraphDatabase

from knotwork.errors import LocalNeo4jError
from knotwork.local_neo4j.server import LocalNeo4j
from tests.integration.conftest import Neo4jTarget, local_settings


def test_start_stop_twice_reusing_cached_jars(
    neo4j_target: Neo4jTarget, monkeypatch: pytest.MonkeyPatch
) -> None:
    local = LocalNeo4j(local_settings("lifecycle", 27687, 27474, neo4j_local_heap="512m"))
    local.resolve_jars()  # the session's own server may have come from Docker or the env
    assert local.resolve_jars() is False, "jars are cached after the first resolution"
    # A second start must not call Maven: make it impossible to find.
    which = shutil.which
    monkeypatch.setattr(
        shutil, "which", lambda name, *a, **k: None if name == "mvn" else which(name, *a, **k)
    )
    try:
        for _ in range(2):
            status = local.start(timeout_s=180)
            assert status.running and status.bolt_ready and status.pid
            with GraphDatabase.driver(
                status.bolt_uri, auth=("neo4j", "knotwork-test-password")
            ) as driver:
                records, _, _ = driver.execute_query("RETURN apoc.version() AS v")
                assert records[0]["v"].startswith("5.26")
            assert local.stop() is True
            assert local.status().running is False
    finally:
        local.stop()
    assert local.stop() is False, "stopping a stopped server says it was not running"


def test_wrong_password_for_existing_instance_is_refused(neo4j_target: Neo4jTarget) -> None:
    local = LocalNeo4j(local_settings("lifecycle", 27687, 27474, neo4j_password="another-password"))
    if not (local.home / "data" / "knotwork-password.sha256").is_file():
        pytest.skip("the lifecycle instance was not created by the test before")
    with pytest.raises(LocalNeo4jError, match="another password"):
        local.start(timeout_s=10)
