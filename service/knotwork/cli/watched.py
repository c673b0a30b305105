"""What `ingest` and `watch` refused by a watcher are told. A watcher of the folder they were
given already does their work, so there is nothing to do; one following another folder under
the same vault name does not (it would never see this folder's files), and telling the user
"nothing to do here" would leave the folder unsynced: that is said instead, with the ways out."""

from __future__ import annotations

import socket
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from knotwork.core import Core
from knotwork.graph.lease import Watched
from knotwork.vault.folders import follows

INGEST_WATCHED = (
    "The watcher already syncs this vault, every change as it is saved, so there is nothing "
    "to do here; to run `knotwork ingest` anyway (with --new-folder, say), stop the watcher "
    "first"
)
WATCH_WATCHED = (
    "The watcher already follows this vault, and one is enough, so there is nothing to do "
    "here; to watch it from here, stop that one first"
)


def watched_advice(core: Core, same_folder: str, folder: Path | None) -> Watched:
    """The advice of a writer of ``folder`` (by default the configured one) refused by a
    watcher: ``same_folder`` when the watcher follows that folder (or either cannot be told),
    else the other folder named."""
    folder, vault = folder or core.settings.vault_path, core.settings.vault_name

    def advice(row: Mapping[str, Any]) -> str:
        if folder is None or follows(row, folder):  # or the watcher does not say its folder
            return same_folder
        theirs, ours = row.get("folder") or "another folder", folder.resolve()
        ways = (
            "to keep both, give this folder its own vault (KNOTWORK_VAULT_NAME); to make it "
            f"this vault's folder instead, stop that watcher, then run `knotwork ingest {ours} "
            "--new-folder` once"
        )
        host = row.get("host")
        if host and host != socket.gethostname():
            # Docker Desktop shares a host folder into its VM under other device and inode
            # numbers: a container's /vault may be this very folder though the identities differ.
            return (
                f"That watcher runs on host {host} and follows {theirs}. If that is {ours} as "
                f"its container mounts it (this cannot be told from here): {same_folder}. If "
                f"not, it will not sync this folder: {ways}"
            )
        return (
            f"That watcher follows {theirs}, not {ours}, under the same vault name {vault!r}, "
            f"so it will not sync this folder: {ways}"
        )

    return advice
