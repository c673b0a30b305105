"""What every benchmark shares: a Neo4j, the loopback embedder, and recording results."""

from __future__ import annotations

import contextlib
import os
import platform
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.fakes.ollama import FakeOllama

from knotwork.local_neo4j.server import LocalNeo4j
from knotwork.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
BOLT, HTTP, PASSWORD = 27688, 27475, "knotwork-bench-password"


@contextmanager
def bench_settings() -> Iterator[Settings]:
    """Settings for a benchmark run, with extraction off and the hashing embedder.

    Neo4j: KNOTWORK_NEO4J_URI / KNOTWORK_NEO4J_PASSWORD when set, else a local server (instance
    ``bench``) started from the cached jars and stopped afterwards.
    """
    fake = FakeOllama().start()
    local = None
    overrides: dict[str, object] = {"ollama_base_url": fake.base_url, "extract": False}
    if not os.environ.get("KNOTWORK_NEO4J_URI"):
        local = LocalNeo4j(
            Settings(
                _env_file=None,
                neo4j_uri=f"bolt://127.0.0.1:{BOLT}",  # type: ignore[call-arg]
                neo4j_password=PASSWORD,
                neo4j_local_dir=ROOT / ".neo4j",
                neo4j_local_instance="bench",
                neo4j_local_http_port=HTTP,
            )
        )
        local.start()
        overrides |= {"neo4j_uri": f"bolt://127.0.0.1:{BOLT}", "neo4j_password": PASSWORD}
    try:
        yield Settings(**overrides)  # type: ignore[arg-type]
    finally:
        fake.stop()
        if local:
            local.stop()


def cpu_model() -> str:
    """The processor's name from /proc/cpuinfo, else what the platform module says."""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown CPU"


def record(title: str, command: str, setup: str, table: str) -> None:
    """Append one result section to bench/RESULTS.md."""
    machine = (
        f"{platform.machine()}, {os.cpu_count()} cores ({cpu_model()}), "
        f"Python {platform.python_version()}"
    )
    with (ROOT / "bench" / "RESULTS.md").open("a", encoding="utf-8") as out:
        out.write(
            f"\n## {title} ({time.strftime('%Y-%m-%d')})\n\nCommand: `{command}`  \n"
            f"Machine: {machine}; {setup}\n\n{table}\n"
        )
