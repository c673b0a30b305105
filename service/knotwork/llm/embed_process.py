"""The parent's side of the embedding worker (knotwork.llm.embed_worker): start it, send it
texts, read its vectors, restart it once when it dies, stop it.

The worker is a plain ``python -m`` child (not multiprocessing), so no script that builds an
embedder needs a ``__main__`` guard. It is stopped by ``close`` (the Core closes its embedder),
when this object is collected, and at interpreter exit; and it ends by itself when its stdin
closes, so it does not outlive a parent that was killed.
"""

from __future__ import annotations

import logging
import os
import select
import subprocess
import sys
import tempfile
import threading
import weakref
from pathlib import Path
from typing import IO, TYPE_CHECKING

import knotwork
from knotwork.errors import ConfigError, ModelUnavailableError
from knotwork.llm.embed_worker import CONFIG, OK, SHAPE, pack_texts, read_frame, write_frame
from knotwork.plural import counted

if TYPE_CHECKING:
    from knotwork.llm.encoders import EncoderSpec, Vectors

log = logging.getLogger(__name__)
STDERR_TAIL = 2000  # characters of the worker's stderr an error message quotes
STOP_WAIT_S = 5.0
# How long the worker may take to load its model (a first load may read large weights), and to
# answer one batch, before it is taken for hung, stopped, and the request fails: a batch of up
# to BATCH_TEXTS texts has REQUEST_TIMEOUT_S, and PER_TEXT_S more for each text beyond them (a
# large KNOTWORK_EMBED_BATCH_SIZE on a slow CPU is not a hung worker).
LOAD_TIMEOUT_S = 600.0
REQUEST_TIMEOUT_S = 300.0
BATCH_TEXTS = 128
PER_TEXT_S = 2.0


class WorkerDiedError(Exception):
    """The worker's pipes closed under a request: it exited or was killed."""


def worker_env(threads: int) -> dict[str, str]:
    """The worker's environment: this one without Knotwork's settings (it is told only its
    model; the graph's password has no business there), this Knotwork importable, and the
    BLAS pools sized before numpy starts them."""
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("KNOTWORK_")}
    root = str(Path(knotwork.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[name] = str(threads)
    return env


class _Child:
    """One running worker, its pipes and the file its stderr goes to."""

    def __init__(self, command: list[str], env: dict[str, str]) -> None:
        self.ready = False  # its model is loaded (it said so)
        # Open for as long as the child runs; closed by stop().
        self.stderr: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115
        self.proc = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            env=env,
        )

    def why(self) -> str:
        """Its exit status (once it has exited) and the tail of its stderr."""
        try:
            code = self.proc.wait(timeout=1.0)
            status = f"exit status {code}" if code >= 0 else f"killed by signal {-code}"
        except subprocess.TimeoutExpired:
            status = "still running"
        self.stderr.seek(0, os.SEEK_END)
        self.stderr.seek(max(0, self.stderr.tell() - 4 * STDERR_TAIL))
        tail = self.stderr.read().decode("utf-8", "replace").strip()[-STDERR_TAIL:]
        return f"{status}; its stderr: {tail}" if tail else f"{status}; nothing on its stderr"

    def stop(self) -> None:
        """Close its stdin (it ends at once), kill it if it does not, and reap it."""
        for pipe in (self.proc.stdin, self.proc.stdout):
            try:
                if pipe is not None:
                    pipe.close()
            except OSError:
                pass
        try:
            self.proc.wait(timeout=STOP_WAIT_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.stderr.close()


class _Slot:
    """The current child, apart from the owner so a finalizer can stop it without the owner."""

    def __init__(self) -> None:
        self.child: _Child | None = None

    def stop(self) -> None:
        child, self.child = self.child, None
        if child is not None:
            child.stop()


class EncoderProcess:
    """An embedding model in a worker process, one request at a time (thread-safe)."""

    def __init__(self, spec: EncoderSpec) -> None:
        self.spec = spec
        self.command = [sys.executable, "-m", "knotwork.llm.embed_worker", spec.to_json()]
        self.dimension = 0
        self.closed = False
        self.load_timeout_s = LOAD_TIMEOUT_S
        self.request_timeout_s = REQUEST_TIMEOUT_S
        self._lock = threading.Lock()
        self._slot = _Slot()
        # Stops the worker when this is collected, or at interpreter exit, whichever is first.
        self._finalizer = weakref.finalize(self, _Slot.stop, self._slot)

    @property
    def pid(self) -> int | None:
        child = self._slot.child
        return child.proc.pid if child is not None else None

    def start(self) -> int:
        """Start the worker (a no-op while one runs) and wait until its model is loaded; the
        vector size. ConfigError for a model the settings cannot load; ModelUnavailableError
        when the worker dies before it is ready."""
        with self._lock:
            if self.closed:
                raise ModelUnavailableError(f"the {self.spec.model} embedder was closed")
            try:
                self._ensure_running()
            except WorkerDiedError as died:
                self._slot.stop()
                raise ModelUnavailableError(
                    f"the {self.spec.model} embedding worker died while loading: {died}"
                ) from died
            return self.dimension

    def encode(self, texts: list[str]) -> Vectors:
        """The worker's vectors of ``texts``. A worker that died (before or during this
        request) is restarted once; ModelUnavailableError, with its stderr, when that fails."""
        with self._lock:
            if self.closed:
                raise ModelUnavailableError(f"the {self.spec.model} embedder was closed")
            try:
                return self._request(texts)
            except WorkerDiedError as exc:
                died = exc
            log.warning("the %s embedding worker died (%s); restarting it", self.spec.model, died)
            self._slot.stop()
            try:
                return self._request(texts)
            except WorkerDiedError as again:
                self._slot.stop()
                raise ModelUnavailableError(
                    f"the {self.spec.model} embedding worker died ({died}), and again after "
                    f"a restart: {again}"
                ) from again

    def close(self) -> None:
        """Stop the worker (after a request under way); later requests are refused."""
        self.closed = True
        with self._lock:
            self._finalizer()

    def launch(self) -> None:
        """Start the worker without waiting for its model to load (``start`` or the first
        request waits), so the caller can do other work meanwhile. A no-op once started."""
        with self._lock:
            if not self.closed and self._slot.child is None:
                self._slot.child = _Child(self.command, worker_env(self.spec.threads))

    def _ensure_running(self) -> _Child:
        """The worker, started and loaded. WorkerDiedError when it exited since it was
        started (the caller restarts it), or while loading its model."""
        child = self._slot.child
        if child is not None and child.proc.poll() is not None:
            raise WorkerDiedError(child.why())
        if child is not None and child.ready:
            return child
        if child is None:
            child = self._slot.child = _Child(self.command, worker_env(self.spec.threads))
        try:
            status, payload = self._answer(child, self.load_timeout_s, "loading its model")
        except WorkerDiedError:
            self._slot.stop()
            raise
        if status == CONFIG:
            self._slot.stop()
            raise ConfigError(payload[1:].decode("utf-8", "replace"))
        if status != OK:
            self._slot.stop()
            raise ModelUnavailableError(payload[1:].decode("utf-8", "replace"))
        _, _, self.dimension = SHAPE.unpack_from(payload)
        child.ready = True
        return child

    def _request(self, texts: list[str]) -> Vectors:
        import numpy as np

        child = self._ensure_running()
        assert child.proc.stdin is not None
        try:
            write_frame(child.proc.stdin, pack_texts(texts))
        except (BrokenPipeError, ValueError, OSError) as exc:
            raise WorkerDiedError(f"could not send it texts ({exc}); {child.why()}") from exc
        status, payload = self._answer(child, self.answer_within(len(texts)), "embedding a batch")
        if status != OK:
            raise ModelUnavailableError(
                f"the {self.spec.model} embedding worker failed on a batch: "
                + payload[1:].decode("utf-8", "replace")
            )
        _, rows, dimension = SHAPE.unpack_from(payload)
        if rows != len(texts) or len(payload) != SHAPE.size + 4 * rows * dimension:
            raise ModelUnavailableError(
                f"the {self.spec.model} embedding worker answered {counted(rows, 'vector')} of "
                f"{dimension} for {counted(len(texts), 'text')} ({len(payload)} bytes)"
            )
        vectors: Vectors = np.frombuffer(payload, dtype="<f4", offset=SHAPE.size)
        return vectors.reshape(rows, dimension)

    def answer_within(self, texts: int) -> float:
        """Seconds the worker has to answer a batch of ``texts`` texts before it is hung."""
        return self.request_timeout_s + PER_TEXT_S * max(0, texts - BATCH_TEXTS)

    def _answer(self, child: _Child, timeout: float, doing: str) -> tuple[int, bytes]:
        """The status and whole frame of the worker's next answer; WorkerDiedError when its
        stdout closes first. A worker with nothing to say within ``timeout`` seconds is hung:
        it is stopped (the next request starts a new one) and ModelUnavailableError raised."""
        assert child.proc.stdout is not None
        # Request and answer alternate, so nothing of a next frame sits in the reader's buffer:
        # the pipe itself says whether the answer has begun.
        ready, _, _ = select.select([child.proc.stdout], [], [], timeout)
        if not ready:
            self._slot.stop()
            raise ModelUnavailableError(
                f"the {self.spec.model} embedding worker was still {doing} after {timeout:g} s; "
                "it was stopped, and the next request starts a new one"
            )
        try:
            body = read_frame(child.proc.stdout)
        except (EOFError, OSError, ValueError) as exc:
            raise WorkerDiedError(f"{exc}; {child.why()}") from exc
        if not body:
            raise WorkerDiedError(child.why())
        return body[0], body
