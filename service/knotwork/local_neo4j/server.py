"""A real Neo4j Community server without Docker, from Maven Central jars.

The jars are resolved once with the machine's Maven into ``<dir>/jars/<version>/`` and shared by
every instance; each instance (``<dir>/<instance>/``) has its own config, data and logs. The server
runs as one JVM (``CommunityEntryPoint --console-mode``) in its own process group, bound to
127.0.0.1 only. What the launcher asks of the machine (a Java, a port, a process, Bolt) is
``local_neo4j.probes``.
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from knotwork.errors import ConfigError, LocalNeo4jError
from knotwork.local_neo4j.jars import NEO4J_VERSION, browser_available, resolve_jars
from knotwork.local_neo4j.probes import alive, bolt_answers, find_java, port_open
from knotwork.settings import Settings

_JVM_FLAGS = [
    "-XX:+UseG1GC",
    "-XX:+UnlockExperimentalVMOptions",
    "-XX:+TrustFinalNonStaticFields",
    "-XX:+DisableExplicitGC",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED",
    "-Dlog4j2.disable.jmx=true",
    "-Dfile.encoding=UTF-8",
]
_ENTRY = "org.neo4j.server.CommunityEntryPoint"
_ADMIN = "org.neo4j.server.startup.Neo4jAdminCommand"


def _digest(password: str) -> str:
    return hashlib.sha256(password.encode()).hexdigest()


@dataclass(frozen=True)
class LocalStatus:
    running: bool
    pid: int | None
    bolt_ready: bool
    bolt_uri: str
    browser_url: str | None
    home: Path


class LocalNeo4j:
    """One local Neo4j instance; see the module docstring for the layout on disk."""

    def __init__(self, settings: Settings, root: Path | None = None) -> None:
        self.settings = settings
        self.root = (root or settings.neo4j_local_dir).resolve()
        self.jars = self.root / "jars" / NEO4J_VERSION
        self.home = self.root / settings.neo4j_local_instance
        self.bolt_port = settings.bolt_port()
        self.http_port = settings.neo4j_local_http_port
        self._pidfile = self.home / "run" / "neo4j.pid"
        self._console = self.home / "logs" / "console.log"
        self._marker = self.home / "data" / "knotwork-password.sha256"  # the password's hash

    def resolve_jars(self) -> bool:
        """Fetch the jars with Maven unless cached; True when Maven ran."""
        return resolve_jars(self.jars)

    def browser_available(self) -> bool:
        return browser_available(self.jars)

    # -- configuration ------------------------------------------------------------------------

    def config_text(self) -> str:
        h, s = self.home, self.settings
        lines = {
            "server.default_listen_address": "127.0.0.1",
            "server.default_advertised_address": "127.0.0.1",
            "server.bolt.listen_address": f"127.0.0.1:{self.bolt_port}",
            "server.bolt.advertised_address": f"127.0.0.1:{self.bolt_port}",
            "server.http.listen_address": f"127.0.0.1:{self.http_port}",
            "server.http.advertised_address": f"127.0.0.1:{self.http_port}",
            "server.https.enabled": "false",
            "server.directories.data": str(h / "data"),
            "server.directories.logs": str(h / "logs"),
            "server.directories.run": str(h / "run"),
            "server.directories.import": str(h / "import"),
            "server.directories.plugins": str(self.jars / "plugins"),
            "server.memory.pagecache.size": s.neo4j_local_pagecache,
            "dbms.security.auth_enabled": "true",
            "dbms.security.procedures.unrestricted": "apoc.*",
            "dbms.security.procedures.allowlist": "apoc.*",
            "dbms.usage_report.enabled": "false",
            "db.transaction.timeout": "10m",
            # One plan per query, not one per length bucket of its list parameters (1, up to
            # 10, up to 100, more): a first sync planned most write queries twice, each plan
            # costing more than running a batch, and the rows those queries UNWIND are found
            # by unique keys, so a list's length has no better plan (bench/RESULTS.md,
            # "Planning a first sync"). Internal: the jars are pinned (jars.NEO4J_VERSION).
            "internal.cypher.use_parameter_size": "false",
        }
        return "".join(f"{k}={v}\n" for k, v in lines.items())

    def _configure(self, password: str) -> None:
        for sub in ("conf", "data", "logs", "run", "import"):
            (self.home / sub).mkdir(parents=True, exist_ok=True)
        (self.home / "conf" / "neo4j.conf").write_text(self.config_text())
        if self._same_password(password):
            return
        proc = subprocess.run(
            [
                find_java(),
                "-cp",
                f"{self.jars / 'lib'}/*",
                _ADMIN,
                "dbms",
                "set-initial-password",
                password,
            ],
            env={**os.environ, "NEO4J_HOME": str(self.home), "NEO4J_CONF": str(self.home / "conf")},
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0:
            raise LocalNeo4jError(f"setting the initial password failed: {proc.stderr.strip()}")
        self._marker.write_text(_digest(password))

    def _same_password(self, password: str) -> bool:
        """True when the instance was created with ``password`` (its marker holds the hash),
        False before it was created; LocalNeo4jError when it was created with another, which
        every command would find refused."""
        try:
            digest = self._marker.read_text().strip()
        except FileNotFoundError:
            return False
        if digest != _digest(password):
            raise LocalNeo4jError(
                f"the instance in {self.home} was created with another password. Use that "
                f"password, or delete {self.home} to start over with an empty database."
            )
        return True

    # -- lifecycle ----------------------------------------------------------------------------

    def pid(self) -> int | None:
        """The server's pid when its process is alive and is this instance's Neo4j."""
        try:
            pid = int(self._pidfile.read_text().strip())
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
        except (OSError, ValueError):
            return None
        return pid if _ENTRY in cmdline and str(self.home) in cmdline else None

    def start_password(self) -> str:
        """The password to start with; ConfigError (a setting to fix: exit 2) when it is below
        Neo4j's minimum, so the CLI checks it before it resolves or says anything."""
        password = self.settings.password()
        if len(password) < 8:
            raise ConfigError(
                "KNOTWORK_NEO4J_PASSWORD must be at least 8 characters (Neo4j's minimum)."
            )
        return password

    def start(self, timeout_s: float = 180.0) -> LocalStatus:
        """Start the server (resolving jars and writing config first); wait until Bolt answers."""
        password = self.start_password()
        if self.pid() is not None:  # running already: said ready only for its password
            self._same_password(password)
            return self.wait_ready(timeout_s)
        for port in (self.bolt_port, self.http_port):
            if port_open(port):
                raise LocalNeo4jError(
                    f"port {port} on 127.0.0.1 is already taken by another "
                    "process; set KNOTWORK_NEO4J_URI / "
                    "KNOTWORK_NEO4J_LOCAL_HTTP_PORT to free ports."
                )
        self.resolve_jars()
        self._configure(password)
        heap = self.settings.neo4j_local_heap
        cmd = [
            find_java(),
            "-cp",
            f"{self.jars / 'plugins'}/*:{self.home / 'conf'}/*:{self.jars / 'lib'}/*",
            f"-Xms{heap}",
            f"-Xmx{heap}",
            *_JVM_FLAGS,
            _ENTRY,
            f"--home-dir={self.home}",
            f"--config-dir={self.home / 'conf'}",
            "--console-mode",
        ]
        with self._console.open("ab") as log:
            proc = subprocess.Popen(
                cmd,
                cwd=self.home,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        self._pidfile.write_text(str(proc.pid))
        return self.wait_ready(timeout_s, proc)

    def wait_ready(
        self, timeout_s: float, proc: subprocess.Popen[bytes] | None = None
    ) -> LocalStatus:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if bolt_answers(self.bolt_port):
                return self.status()
            # Our own child is judged by its exit status: until it has exec'd java, its
            # /proc cmdline is still ours, so pid() would call a starting server dead.
            gone = proc.poll() is not None if proc is not None else self.pid() is None
            if gone:
                raise LocalNeo4jError(
                    f"Neo4j exited while starting. Last log lines:\n{self.log_tail(40)}"
                )
            time.sleep(0.5)
        raise LocalNeo4jError(
            f"Bolt did not answer on 127.0.0.1:{self.bolt_port} within "
            f"{timeout_s:.0f} s. Last log lines:\n{self.log_tail(40)}"
        )

    def stop(self, timeout_s: float = 60.0) -> bool:
        """Stop the server (SIGTERM, SIGKILL after the timeout); False if it was not running."""
        pid = self.pid()
        if pid is None:
            self._pidfile.unlink(missing_ok=True)
            return False
        os.killpg(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and alive(pid):
            time.sleep(0.2)
        if alive(pid):
            os.killpg(pid, signal.SIGKILL)
            while alive(pid):
                time.sleep(0.1)
        self._pidfile.unlink(missing_ok=True)
        return True

    def status(self) -> LocalStatus:
        pid = self.pid()
        return LocalStatus(
            running=pid is not None,
            pid=pid,
            bolt_ready=pid is not None and bolt_answers(self.bolt_port),
            bolt_uri=f"bolt://127.0.0.1:{self.bolt_port}",
            browser_url=(
                f"http://127.0.0.1:{self.http_port}/browser/" if self.browser_available() else None
            ),
            home=self.home,
        )

    def log_tail(self, lines: int = 50) -> str:
        try:
            return "\n".join(self._console.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log yet)"
