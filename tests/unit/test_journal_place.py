"""Where a vault's journal is kept: one file per server, however its URI is spelled, and none
shared by two servers."""

from __future__ import annotations

from pathlib import Path

import pytest

from knotwork.ingest.journal_place import journal_file, server_key
from tests.conftest import make_settings


@pytest.mark.parametrize(
    "spelling",
    [
        "bolt://localhost:7687",
        "neo4j://localhost",
        "bolt://localhost",
        "BOLT://LOCALHOST:7687/",
        "bolt://[::1]:7687",
        "bolt://[0:0:0:0:0:0:0:1]",
        "bolt://[::ffff:127.0.0.1]:7687",  # IPv4 in IPv6 clothes
        "bolt+s://127.0.0.1:7687",
        "neo4j+ssc://127.0.0.1/?policy=eu",
        "bolt://localhost.:7687",
    ],
)
def test_every_spelling_of_one_server_names_one_journal(tmp_path: Path, spelling: str) -> None:
    vault = tmp_path / "vault"
    one = make_settings(vault_path=vault, neo4j_uri="bolt://127.0.0.1:7687")
    other = make_settings(vault_path=vault, neo4j_uri=spelling)
    assert server_key(spelling) == server_key(one.neo4j_uri) == "loopback:7687"
    assert journal_file(other) == journal_file(one)


@pytest.mark.parametrize(
    "uri",
    [
        "bolt://127.0.0.1:7688",  # another port
        "bolt://db.example:7687",  # another host
        "neo4j://localhost:17687",
        "bolt://127.0.0.2:7687",  # loopback too, but another listener may sit there
        "bolt://[::2]:7687",
        "bolt://db.localhost:7687",
        "bolt://localhost:0",  # port 0 is not the default one
    ],
)
def test_other_servers_name_other_journals(tmp_path: Path, uri: str) -> None:
    vault = tmp_path / "vault"
    here = make_settings(vault_path=vault, neo4j_uri="bolt://localhost:7687")
    assert server_key(uri) != server_key(here.neo4j_uri)
    assert journal_file(make_settings(vault_path=vault, neo4j_uri=uri)) != journal_file(here)
    assert journal_file(make_settings(vault_path=vault, neo4j_database="other")) != (
        journal_file(here)
    )


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("bolt://DB.Example", "neo4j+s://db.example:7687/"),  # a name's case means nothing
        ("bolt://[2001:DB8::0001]:7687", "neo4j://[2001:db8:0:0:0:0:0:1]"),  # one IPv6 address
        ("bolt://[::ffff:10.0.0.5]", "bolt://10.0.0.5:7687"),
        ("localhost:7687", "bolt://127.0.0.1"),  # no scheme (the settings refuse it): bolt
        ("db.example:7688", "bolt://db.example:7688"),
    ],
)
def test_one_server_however_spelled(one: str, other: str) -> None:
    assert server_key(one) == server_key(other)


def test_a_key_says_the_host_and_the_port_apart() -> None:
    assert server_key("bolt://[2001:db8::1]:7687") == "[2001:db8::1]:7687"
    assert server_key("bolt://[::1]:0") == "loopback:0"
    assert server_key("bolt://[::ffff:127.0.0.1]:7687") != server_key("bolt://[::ffff:7f00:2]")
    assert server_key("bolt://host:port") == "bolt://host:port", "unreadable: its own key"
