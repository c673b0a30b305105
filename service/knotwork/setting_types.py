"""The kinds of value a setting holds beyond a number in a range (``settings.py``), each with
the check that reads it from text: a Neo4j URI, Ollama's URL, the chat server's URL, a list of
host names, and a path or secret that an empty line leaves unset. A check fails with the
ValueError pydantic reports as the variable's problem."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated
from urllib.parse import urlsplit

from pydantic import AfterValidator, BeforeValidator, SecretStr
from pydantic_settings import NoDecode

from knotwork.redact import misread_url, redact_url

_NEO4J_SCHEMES = {"bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc"}


def _readable_port(url: str) -> str:
    """``url``, or the ValueError pydantic reports when clients would misread it."""
    if problem := misread_url(url):
        raise ValueError(problem)
    return url


def _neo4j_uri(value: str) -> str:
    scheme = urlsplit(value).scheme
    if scheme not in _NEO4J_SCHEMES:
        raise ValueError(f"scheme {scheme!r} is not one of {sorted(_NEO4J_SCHEMES)}")
    if "@" in value:  # the driver refuses a user in the URI, with a traceback
        raise ValueError(
            f"{redact_url(value)!r} holds credentials; they go in KNOTWORK_NEO4J_USER / "
            f"KNOTWORK_NEO4J_PASSWORD: write the URI as {scheme}://host:port"
        )
    if not urlsplit(value).hostname:  # bolt:/host:7687 would quietly mean localhost:7687
        raise ValueError(f"{redact_url(value)!r} names no host; write it as {scheme}://host:port")
    return _readable_port(value)


def _http_url(value: str) -> str:
    parts = urlsplit(value.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(
            f"{redact_url(value)!r} is not an http(s) URL with a host; write it as "
            "http://host:11434 (Ollama's own port, unless you changed it)"
        )
    return _readable_port(value.strip())


def _optional_port(value: str | None) -> str | None:
    return value if value is None else _readable_port(value)


def _empty_is_unset(value: object) -> object:
    return None if isinstance(value, str) and not value.strip() else value


def _comma_separated(value: object) -> object:
    if isinstance(value, str):
        return [part.strip().lower() for part in value.split(",") if part.strip()]
    return value


# An empty line in .env (`KNOTWORK_VAULT_PATH=`, as init-env writes without a path) is unset,
# never "the current folder".
_UNSET_IF_EMPTY = BeforeValidator(_empty_is_unset)

Neo4jUri = Annotated[str, AfterValidator(_neo4j_uri)]
OllamaUrl = Annotated[str, AfterValidator(_http_url)]
# Its scheme and host are checked where it is used (Settings.chat_server_url).
ChatServerUrl = Annotated[str | None, _UNSET_IF_EMPTY, AfterValidator(_optional_port)]
OptionalPath = Annotated[Path | None, _UNSET_IF_EMPTY]
OptionalSecret = Annotated[SecretStr | None, _UNSET_IF_EMPTY]
# Read as "a, b" rather than the JSON list pydantic-settings expects of a list, lower case.
HostNames = Annotated[list[str], NoDecode, BeforeValidator(_comma_separated)]
