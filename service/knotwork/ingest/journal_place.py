"""Where a vault's journal of pending writes is kept: one file per vault folder, graph server,
database and vault name, outside the vault (``journal.py`` says why).

The file is named by the server the Neo4j URI reaches, not by how the URI is spelled: a write
journaled by a process configured with ``bolt://127.0.0.1:7687`` is replayed by one configured
with ``neo4j://localhost`` (the same server). Files named by an earlier version, by the exact
URI, are still found (``legacy_journal_file``): the journal moves their entries into its own.
"""

from __future__ import annotations

import hashlib
import ipaddress
import os
from pathlib import Path
from urllib.parse import urlsplit

from knotwork.settings import Settings

BOLT_PORT = 7687  # the drivers' default, for a URI that names none
LOOPBACK = "loopback"  # this machine's loopback listener, by any of its usual names
# Only the names every Neo4j set-up means alike: 127.0.0.2 or "db.localhost" are loopback
# addresses too, but another listener may sit there (another instance, another container).
_LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})


def state_dir(settings: Settings) -> Path:
    if settings.state_dir is not None:
        return settings.state_dir
    base = os.environ.get("XDG_STATE_HOME") or "~/.local/state"
    return Path(base).expanduser() / "knotwork"


def _host(name: str) -> str:
    """The host as one spelling: an IP address canonical (IPv6 compressed, bracketed; an
    IPv4-mapped IPv6 address as its IPv4), a name lower-cased without a trailing dot."""
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return name.rstrip(".")
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    shown = address.compressed
    if shown in _LOOPBACK_NAMES:
        return LOOPBACK
    return f"[{shown}]" if address.version == 6 else shown


def server_key(uri: str) -> str:
    """The Neo4j server ``uri`` reaches, the same for all of its spellings: bolt and neo4j,
    plain or +s/+ssc, speak to one Bolt port; a host name's case means nothing; localhost,
    127.0.0.1 and ::1 are this machine; a URI without a port means 7687 (one without a scheme,
    which the settings refuse, is read as bolt); a path or query (a routing context) picks no
    other server. A URI that cannot be read so is its own key."""
    spelled = uri.strip()
    parts = urlsplit(spelled if "://" in spelled else f"bolt://{spelled}")
    try:
        port = parts.port
    except ValueError:  # not a number: the settings refuse it, but no guess here
        return uri
    name = parts.hostname or ""  # lower-cased, IPv6 brackets dropped
    if not name:
        return uri
    host = LOOPBACK if name.rstrip(".") in _LOOPBACK_NAMES else _host(name)
    return f"{host}:{BOLT_PORT if port is None else port}"  # port 0 stays 0: not the default


def _named(settings: Settings, server: str) -> Path:
    root = settings.vault_path.resolve() if settings.vault_path else ""
    key = f"{root}\n{server}\n{settings.neo4j_database}\n{settings.vault_name}"
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return state_dir(settings) / f"{settings.vault_name}-{digest}.journal"


def journal_file(settings: Settings) -> Path:
    """The vault's journal file; the hex tells apart vaults of one name at other paths or in
    other databases."""
    return _named(settings, server_key(settings.neo4j_uri))


def legacy_journal_file(settings: Settings) -> Path:
    """The file an earlier version named by the URI as spelled: its entries are still due."""
    return _named(settings, settings.neo4j_uri)
