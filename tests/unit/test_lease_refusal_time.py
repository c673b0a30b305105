"""A lease refusal says its holder's last heartbeat in seconds, as it says the TTL and the waits
it advises: before, an ISO timestamp (in one of two spellings) stood beside "30 s"."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import neo4j.time
import pytest

from knotwork.graph.lease import Lease, ago


def _row(heartbeat_at: Any, mode: str = "cli-ingest") -> dict[str, Any]:
    return {
        "holder": "h:1:abc",
        "host": "h",
        "pid": 1,
        "mode": mode,
        "watches": mode == "inotify",
        "heartbeat_at": heartbeat_at,
    }


@pytest.mark.parametrize(
    "spelled",
    [
        neo4j.time.DateTime.from_native,  # lease_acquire's row
        lambda at: at.isoformat().replace("+00:00", "Z"),  # lease_get's toString()
    ],
    ids=["acquire", "check_free"],
)
@pytest.mark.parametrize("mode", ["cli-ingest", "inotify"])
def test_the_refusal_says_every_time_in_seconds(spelled: Any, mode: str) -> None:
    beat = spelled(datetime.now(UTC) - timedelta(seconds=12))
    said = Lease(None, "v", 30).refusal(_row(beat, mode))  # type: ignore[arg-type]
    assert re.search(r"last heartbeat 1[23] s ago\)", said), said
    assert "30 s" in said, said
    assert not re.search(r"\d{4}-\d\d-\d\d|T\d\d:\d\d", said), said  # no timestamp


def test_a_heartbeat_a_little_ahead_of_this_clock_is_now() -> None:
    assert ago(datetime.now(UTC) + timedelta(seconds=2)) == "0 s ago"
    assert ago(None) == "never"
