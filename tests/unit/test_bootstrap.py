"""scripts/bootstrap installs the dev tools for the test path (scripts/test, .ci/run) and only
what running needs with --no-dev (scripts/run, scripts/neo4j-local); a dev install serves both,
one without the dev tools is completed by the next test run."""

from __future__ import annotations

import shutil
import stat
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO


def _script(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def test_the_dev_tools_only_for_the_test_path(tmp_path: Path) -> None:
    repo, log = tmp_path / "repo", tmp_path / "pip.log"
    (repo / "scripts").mkdir(parents=True)
    shutil.copy(REPO / "scripts" / "bootstrap", repo / "scripts" / "bootstrap")
    shutil.copy(REPO / "pyproject.toml", repo / "pyproject.toml")
    # The venv's python logs what pip is asked to install; java and maven are there.
    _script(repo / ".venv" / "bin" / "python", f'#!/bin/sh\necho "$*" >>"{log}"\n')
    for tool in ("java", "mvn"):
        _script(tmp_path / "bin" / tool, "#!/bin/sh\n")

    def bootstrap(*args: str) -> list[str]:
        log.write_text("")
        subprocess.run(
            ["bash", str(repo / "scripts" / "bootstrap"), *args],
            env={"PATH": f"{tmp_path / 'bin'}:/usr/bin:/bin", "PYTHON": sys.executable},
            check=True,
            capture_output=True,
            text=True,
        )
        return [line for line in log.read_text().splitlines() if "install -q -e" in line]

    assert bootstrap("--no-dev") == ["-m pip install -q -e ."]
    assert bootstrap("--no-dev") == []  # installed already
    assert bootstrap() == ["-m pip install -q -e .[dev]"]  # scripts/test adds the dev tools
    assert bootstrap("--no-dev") == [] and bootstrap() == []  # a dev install serves both
    (repo / "pyproject.toml").write_text((REPO / "pyproject.toml").read_text() + "\n")
    assert bootstrap("--no-dev") == ["-m pip install -q -e ."]  # pyproject.toml changed
