"""The local Neo4j manager's pure parts: its config, jar names, and the Bolt probe."""

from __future__ import annotations

import socket
from pathlib import Path

from knotwork.local_neo4j.jars import artifact
from knotwork.local_neo4j.probes import bolt_answers
from knotwork.local_neo4j.server import LocalNeo4j
from tests.conftest import make_settings


def test_config_binds_loopback_and_uses_settings(tmp_path: Path) -> None:
    local = LocalNeo4j(
        make_settings(
            neo4j_uri="bolt://127.0.0.1:17001",
            neo4j_local_http_port=17002,
            neo4j_local_pagecache="300m",
            neo4j_local_dir=tmp_path,
            neo4j_local_instance="x",
        )
    )
    conf = dict(line.split("=", 1) for line in local.config_text().splitlines())
    assert conf["server.default_listen_address"] == "127.0.0.1"
    assert conf["server.bolt.listen_address"] == "127.0.0.1:17001"
    assert conf["server.http.listen_address"] == "127.0.0.1:17002"
    assert conf["server.https.enabled"] == "false"
    assert conf["dbms.security.auth_enabled"] == "true"
    assert conf["server.memory.pagecache.size"] == "300m"
    assert conf["server.directories.data"] == str(tmp_path / "x" / "data")
    assert not any(key.startswith("apoc.") for key in conf), "apoc.* keys break strict validation"


def test_artifact_names() -> None:
    assert artifact("commons-lang3-3.12.0.jar") == "commons-lang3"
    assert artifact("apoc-core-5.26.19.jar") == "apoc-core"
    assert artifact("neo4j-browser-5.24.0.jar") == "neo4j-browser"
    assert artifact("RoaringBitmap-0.7.17.jar") == "RoaringBitmap"


def test_bolt_probe_is_false_for_closed_and_for_non_bolt_ports() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    assert bolt_answers(port) is False
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    try:
        # Accepts but never answers the handshake: not Bolt.
        assert bolt_answers(server.getsockname()[1]) is False
    finally:
        server.close()
