"""The one settings object. Every field is read from ``KNOTWORK_<NAME>`` (or ``.env``)."""

from __future__ import annotations

import ipaddress
import logging
import os
from functools import lru_cache
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

from knotwork.errors import ConfigError
from knotwork.redact import redact_url
from knotwork.setting_types import (
    ChatServerUrl,
    HostNames,
    Neo4jUri,
    OllamaUrl,
    OptionalPath,
    OptionalSecret,
)

log = logging.getLogger(__name__)


class Settings(BaseSettings):
    """Configuration of a Knotwork process; see ``.env.example`` for the documented list."""

    model_config = SettingsConfigDict(
        env_prefix="KNOTWORK_", env_file=".env", extra="ignore", frozen=True
    )
    # A URL, a host list or a value an empty line leaves unset is checked by its type
    # (setting_types.py); ranges and patterns are the fields' own.

    # Neo4j
    neo4j_uri: Neo4jUri = "bolt://127.0.0.1:7687"
    neo4j_user: str = "neo4j"
    neo4j_password: SecretStr | None = None
    neo4j_database: str = "neo4j"
    neo4j_index_timeout_s: float = Field(default=300.0, gt=0)
    # A Neo4j that does not answer (refused, or no TCP handshake) within this long is reported
    # unavailable (503), rather than after the driver's 30 s of retries; raise it for a far
    # server. Transient errors (deadlocks) are still retried for 30 s. A call running past twice
    # this (at least 2 s) has Neo4j checked on a new connection, given 10 s (or that wait, if
    # longer) to answer its Bolt handshake: no answer to it and to a second check sent at once,
    # nor a call ending meanwhile, stops the call (GraphUnavailableError, graph/liveness.py:
    # ``silent_within``, 25 s at the default); an answer (a handshake answered, its login slow
    # included), a refused connection (the outage path's) or a check whose thread was held
    # lets it run on.
    neo4j_unavailable_after_s: float = Field(default=1.5, gt=0, le=60)
    # A question's read Neo4j has not finished in this long is stopped by the server: a search
    # that runs away costs that search (with a warning), not a worker and a Neo4j thread held
    # until it ends. Whole-vault work (syncs, verify, exports) is not bounded.
    neo4j_query_timeout_s: float = Field(default=60.0, gt=0)

    # Ollama
    ollama_base_url: OllamaUrl = "http://127.0.0.1:11434"
    # Per model call, whichever server answers it.
    ollama_timeout_s: float = Field(default=120.0, gt=0)
    # The longest a chat answer may go on, streamed or not: past it the answer so far is kept
    # with a warning (a model repeating itself never ends on its own).
    answer_timeout_s: float = Field(default=300.0, gt=0)
    # The chat model (extraction, keywords, answers): Ollama, or a server speaking the OpenAI
    # chat-completions API (llama.cpp's llama-server, vLLM, LM Studio) at llm_base_url.
    llm_provider: Literal["ollama", "openai-like"] = "ollama"
    # The OpenAI-compatible server's API root, /v1 included: http://127.0.0.1:8080/v1.
    llm_base_url: ChatServerUrl = None
    # Sent as `Authorization: Bearer …` to that server; most local servers need none.
    llm_api_key: OptionalSecret = None
    llm_model: str = "llama3.1:8b"
    # Set explicitly so the client never makes a blocking /api/show call to discover it.
    llm_context_window: int = Field(default=8192, ge=512)
    embed_model: str = "nomic-embed-text"
    embed_dimension: int = Field(default=768, ge=1, le=4096)
    embed_batch_size: int = Field(default=32, ge=1, le=1024)
    # Where embeddings are computed: Ollama, or in this process, for machines without Ollama:
    # USE multilingual v3 (numpy, always installed) or sentence-transformers (the `local-embed`
    # extra, torch).
    embed_provider: Literal["ollama", "use-multilingual", "sentence-transformers"] = "ollama"
    # CPU threads of the in-process embedder (torch's are process-wide).
    embed_threads: int = Field(default=1, ge=1, le=64)
    # Where the in-process embedder's model runs: a worker process of its own (its forward pass
    # never waits for this process's interpreter lock), or a thread of this process.
    embed_worker: Literal["process", "thread"] = "process"

    # Vault and chunking
    # The language notes are indexed in for full-text search (its stemming and stop words):
    # "auto" tells each note's language from its text, among the ten ("cjk": Chinese,
    # Japanese and Korean, one analyzer; "ru" and "ar": the Cyrillic and Arabic scripts); a
    # note too short to tell, or in another language, gets ``default_language``.
    language: Literal["auto", "en", "it", "de", "fr", "es", "pt", "th", "cjk", "ru", "ar"] = "auto"
    default_language: Literal["en", "it", "de", "fr", "es", "pt", "th", "cjk", "ru", "ar"] = "en"
    vault_path: OptionalPath = None
    # One database can hold several vaults; each is keyed by this name.
    vault_name: str = Field(default="default", pattern=r"^[A-Za-z0-9_.-]{1,64}$")
    max_note_bytes: int = Field(default=2_000_000, ge=1_000)
    # REST writes (PUT/DELETE /notes) answer 409; set where the vault is mounted read-only.
    vault_read_only: bool = False
    # Where the API keeps its journal of REST writes the graph has not caught up with yet
    # (ingest/journal.py); None: $XDG_STATE_HOME/knotwork, i.e. ~/.local/state/knotwork.
    state_dir: OptionalPath = None
    # Model extraction of entities and triples; off means structural facts only.
    extract: bool = True
    # Plain-text mentions of another note's name (stem, title, alias) as MENTIONS facts.
    mentions: bool = True
    # Entities whose names embed within this cosine get a SIMILAR_TO edge (HippoRAG synonyms);
    # 1 turns the edges (and the embedding of entity names) off.
    similarity_threshold: float = Field(default=0.9, gt=0.0, le=1.0)
    similarity_top_k: int = Field(default=10, ge=1, le=100)

    # Retrieval: fact hops walked from the seed notes; the personalized PageRank that ranks the
    # walked subgraph, and its damping (probability of following an edge, not restarting).
    graph_depth: int = Field(default=2, ge=1, le=3)
    ppr: bool = True
    ppr_damping: float = Field(default=0.85, gt=0.0, lt=1.0)

    # Answers: evidence whose relevance (0..1) is below this gets "insufficient_context" and no
    # chat call. A first guess, to be calibrated by the evaluation harness.
    # Calibrated by bench/relevance.py (bench/RESULTS.md): docs questions vs. unrelated ones.
    min_relevance: float = Field(default=0.29, ge=0, le=1)

    # Watcher
    watch_debounce_ms: int = Field(default=300, ge=0, le=60_000)
    watch_rescan_s: float = Field(default=600.0, ge=0, description="0 turns the rescan off")
    watch_polling: bool = False  # poll instead of inotify (network drives, some containers)
    # Events and paths waiting beyond this many are dropped and the whole vault is rescanned.
    watch_queue_max: int = Field(default=10_000, ge=1, le=10_000_000)
    lease_ttl_s: int = Field(default=30, ge=5, le=3600)
    # At most 8000: a chunk's word text (Chunk.mtext) stays within mentions.MTEXT_MAX_BYTES.
    chunk_size: int = Field(default=1200, ge=200, le=8000, description="characters per chunk")
    # Notes written per transaction by a sync (one set-based write per batch); a failed batch
    # is retried note by note, so one bad note costs only itself.
    ingest_batch: int = Field(default=200, ge=1, le=5000)

    # HTTP API
    api_host: str = "127.0.0.1"
    api_port: int = Field(default=8000, ge=1, le=65535)
    api_key: SecretStr | None = None
    # Host names (``name`` or ``name:port``) the API answers to besides its bind address (and,
    # on loopback, 127.0.0.1 / localhost / [::1] at its port); comma-separated. They are also
    # the origins (http or https) allowed to call it. ``*`` turns the Host check off.
    api_allowed_hosts: HostNames = Field(default_factory=list)
    # Largest request body but a note's (PUT /notes is bounded by max_note_bytes).
    api_max_body_bytes: int = Field(default=65_536, ge=1_024, le=10_000_000)
    # Retrievals and answers running at once, and how many more may wait; beyond, 503.
    api_max_concurrent: int = Field(default=8, ge=1, le=1_000)
    api_max_waiting: int = Field(default=64, ge=0, le=100_000)
    # A send to a client that waits this long (the client reads nothing, or under ~2 KB/s, and
    # the socket's buffers are full) cuts it off and gives its slot back; a slow model does not
    # count, only a client not reading.
    api_send_timeout_s: float = Field(default=30.0, gt=0)

    # Local Neo4j started by `knotwork neo4j start` (no Docker)
    neo4j_local_dir: Path = Path(".neo4j")
    neo4j_local_instance: str = Field(default="default", pattern=r"^[A-Za-z0-9_-]{1,40}$")
    neo4j_local_http_port: int = Field(default=7474, ge=1, le=65535)
    neo4j_local_heap: str = Field(default="2g", pattern=r"^\d+[mMgG]$")
    neo4j_local_pagecache: str = Field(default="1g", pattern=r"^\d+[mMgG]$")

    def password(self) -> str:
        """The Neo4j password, or a ConfigError that says how to set one."""
        if self.neo4j_password is None or not self.neo4j_password.get_secret_value():
            found = f" ({missing})" if (missing := no_env_file_here()) else ""
            raise ConfigError(
                f"KNOTWORK_NEO4J_PASSWORD is not set{found}. Settings are read from the "
                "environment and from .env in the current folder: run Knotwork from the folder "
                "holding your .env, run `scripts/init-env` to write one with a generated "
                "password, or set the variable yourself."
            )
        return self.neo4j_password.get_secret_value()

    def chat_server_url(self) -> str:
        """The OpenAI-compatible server's API root, or a ConfigError that says what to set."""
        url = (self.llm_base_url or "").strip().rstrip("/")
        if not url:
            raise ConfigError(
                "KNOTWORK_LLM_PROVIDER=openai-like needs KNOTWORK_LLM_BASE_URL: the server's "
                "API root with its /v1, e.g. http://127.0.0.1:8080/v1 for llama.cpp's "
                "llama-server, http://127.0.0.1:8000/v1 for vLLM, http://127.0.0.1:1234/v1 "
                "for LM Studio."
            )
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ConfigError(
                f"KNOTWORK_LLM_BASE_URL={redact_url(url)!r} is not an http(s) URL with a host; "
                "give the server's API root, e.g. http://127.0.0.1:8080/v1."
            )
        return url

    def bolt_port(self) -> int:
        return urlsplit(self.neo4j_uri).port or 7687

    def api_is_loopback(self) -> bool:
        if self.api_host == "localhost":
            return True
        try:
            return ipaddress.ip_address(self.api_host).is_loopback
        except ValueError:
            return False

    def check_api_exposure(self) -> None:
        """Refuse to serve beyond loopback without an API key; and anywhere, a key shorter
        than 16 characters (a guessable key that looks like protection: any local process or
        web page can reach a loopback port) or one no HTTP header can carry (only visible
        ASCII travels unchanged in ``X-API-Key``). An empty key is no key."""
        key = self.api_key.get_secret_value() if self.api_key is not None else ""
        if not all("!" <= char <= "~" for char in key):
            raise ConfigError(
                "KNOTWORK_API_KEY holds characters an HTTP header cannot carry (non-ASCII, "
                "spaces or control characters); use letters, digits and ASCII punctuation. "
                "`scripts/init-env` generates one."
            )
        if 0 < len(key) < 16:
            raise ConfigError(
                f"KNOTWORK_API_KEY has {len(key)} characters; a key needs at least 16, or it "
                "is easily guessed. `scripts/init-env` generates one (on loopback, an empty "
                "KNOTWORK_API_KEY= runs the API without a key)."
            )
        keyless = not key
        if keyless and not self.api_is_loopback():
            raise ConfigError(
                f"KNOTWORK_API_HOST={self.api_host} is reachable beyond this machine, so "
                "KNOTWORK_API_KEY must be set (at least 16 characters). `scripts/init-env` "
                "generates one."
            )
        if keyless and "*" in (h.strip() for h in self.api_allowed_hosts):
            # No Host check: a web page whose name was re-pointed at this machine (DNS
            # rebinding) would reach a keyless API even on loopback.
            raise ConfigError(
                "KNOTWORK_API_ALLOWED_HOSTS=* checks no Host name, so KNOTWORK_API_KEY must be "
                "set (at least 16 characters); or list the names the API answers to. "
                "`scripts/init-env` generates a key."
            )


def no_env_file_here() -> str | None:
    """Says "there is no .env in <folder>" when the current folder holds none (its settings are
    then the environment's and the defaults: often a command run from another folder)."""
    here = Path.cwd()
    return None if (here / ".env").is_file() else f"there is no .env in {here}"


def read_settings(env_file: str | Path | None = None) -> Settings:
    """The settings from the environment (and ``env_file``, else ``.env``); a value of the
    wrong type or out of range raises ConfigError naming each variable, so every entry point
    reports it as it reports a missing setting (the CLI with exit code 2), not as a traceback."""
    try:
        return Settings(_env_file=env_file) if env_file else Settings()
    except ValidationError as exc:
        problems = [
            f"KNOTWORK_{'_'.join(map(str, error['loc'])).upper()}: {error['msg']}"
            for error in exc.errors(include_url=False)
        ]
        raise ConfigError("invalid settings: " + "; ".join(problems)) from exc


def _warn_unknown(env_file: Path) -> None:
    """Log each ``KNOTWORK_`` variable of the environment or ``env_file`` no setting reads."""
    from knotwork.unknown_settings import env_file_names, unknown_variables

    for warning in unknown_variables([*os.environ, *env_file_names(env_file)]):
        log.warning("%s", warning)


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings, read once (``read_settings``); a ``KNOTWORK_`` variable in
    the environment or ``.env`` that no setting reads is logged as a warning."""
    settings = read_settings()
    _warn_unknown(Path(".env"))
    return settings


def read_env_file(env_file: str | Path) -> Settings:
    """The settings of ``--env-file`` (``read_settings``), its unknown ``KNOTWORK_`` names
    warned of as ``.env``'s are. A relative folder the file names is taken from the file's
    folder, not the working directory: an agent starts the server wherever it chooses, and a
    vault path read from there would send its writes into another folder."""
    settings = read_settings(env_file)
    _warn_unknown(Path(env_file))
    base = Path(env_file).absolute().parent
    update = {
        name: base / value
        for name in ("vault_path", "state_dir")
        if isinstance(value := getattr(settings, name), Path)
        and not value.is_absolute()
        and f"KNOTWORK_{name.upper()}" not in os.environ  # the environment's: from the cwd
    }
    return settings.model_copy(update=update) if update else settings
