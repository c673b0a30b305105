"""The Neo4j jars from Maven Central: resolved once with the machine's Maven, then cached.

``<dir>/jars/<version>/`` holds ``lib/`` (server and Browser), ``plugins/`` (APOC core and
common, with their dependencies minus what the server already ships) and ``resolved.json``,
written last, so a half-finished download is never taken for a cache.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from knotwork.errors import LocalNeo4jError

NEO4J_VERSION = "5.26.30"
APOC_VERSION = "5.26.19"
BROWSER_VERSION = "5.24.0"

_POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>knotwork.local</groupId><artifactId>{name}</artifactId><version>1</version>
  <packaging>pom</packaging>
  <dependencies>{deps}</dependencies>
</project>
"""
_DEP = (
    "<dependency><groupId>{}</groupId><artifactId>{}</artifactId><version>{}</version></dependency>"
)


def _pom(name: str, *coords: tuple[str, str, str]) -> str:
    return _POM.format(name=name, deps="".join(_DEP.format(*c) for c in coords))


def resolve_jars(jars: Path) -> bool:
    """Fetch the jars with Maven unless cached; True when Maven ran."""
    if (jars / "resolved.json").is_file():
        return False
    mvn = shutil.which("mvn")
    if mvn is None:
        raise LocalNeo4jError(
            "Maven (`mvn`) is not on PATH; install it (apt-get install "
            "maven) to run Neo4j without Docker."
        )
    jars.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".resolving-", dir=jars.parent))
    try:
        _maven(
            mvn,
            staging,
            "server",
            "lib",
            ("org.neo4j", "neo4j", NEO4J_VERSION),
            ("org.neo4j.app", "neo4j-server", NEO4J_VERSION),
        )
        browser = _maven(
            mvn,
            staging,
            "browser",
            "lib",
            ("org.neo4j.client", "neo4j-browser", BROWSER_VERSION),
            required=False,
        )
        # APOC's own dependencies, minus what the server already ships (first on the
        # classpath would win, and an older copy could break the server).
        _maven(
            mvn,
            staging,
            "apoc",
            "plugins",
            ("org.neo4j.procedure", "apoc-core", APOC_VERSION),
            ("org.neo4j.procedure", "apoc-common", APOC_VERSION),
        )
        shipped = {artifact(p.name) for p in (staging / "lib").glob("*.jar")}
        for jar in (staging / "plugins").glob("*.jar"):
            if artifact(jar.name) in shipped:
                jar.unlink()
        (staging / "resolved.json").write_text(
            json.dumps(
                {
                    "neo4j": NEO4J_VERSION,
                    "apoc": APOC_VERSION,
                    "browser": BROWSER_VERSION if browser else None,
                }
            )
        )
        if jars.exists():
            shutil.rmtree(jars)
        staging.rename(jars)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return True


def _maven(
    mvn: str,
    staging: Path,
    name: str,
    into: str,
    *coords: tuple[str, str, str],
    required: bool = True,
) -> bool:
    pom = staging / f"{name}.pom.xml"
    pom.write_text(_pom(name, *coords))
    proc = subprocess.run(
        [
            mvn,
            "-B",
            "-q",
            "-f",
            str(pom),
            "dependency:copy-dependencies",
            "-DincludeScope=runtime",
            f"-DoutputDirectory={staging / into}",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0 and required:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-15:])
        raise LocalNeo4jError(f"Maven could not resolve {coords}:\n{tail}")
    return proc.returncode == 0


def browser_available(jars: Path) -> bool:
    stamp = jars / "resolved.json"
    return stamp.is_file() and bool(json.loads(stamp.read_text()).get("browser"))


def artifact(jar_name: str) -> str:
    """``commons-lang3-3.12.0.jar`` → ``commons-lang3``."""
    return re.sub(r"-\d[^-]*(-[A-Za-z]+)?\.jar$", "", jar_name)
