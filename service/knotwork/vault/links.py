"""What a scan says of a symbolic link in the vault: Knotwork never follows one, so whether the
note it points to is in the graph at all depends on where the link leads."""

from __future__ import annotations

import errno
from pathlib import Path


def link_warning(base: Path, link: Path, rel: str) -> str:
    """The warning for the symbolic link ``link`` at ``rel`` in the vault ``base`` (resolved):
    not ingested under its own name; its target is ingested at its own path only when that is
    a note inside the vault. A target elsewhere is never named: the server's paths stay
    unsaid."""
    from knotwork.vault.files import is_note  # files imports this module

    said = f"{rel}: a symbolic link; not ingested (Knotwork never follows links; "
    try:
        target = link.resolve(strict=True)
    except RuntimeError:  # Python < 3.13 says a loop of links this way
        return said + "it is a loop of links, so nothing is ingested)"
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return said + "it is a loop of links, so nothing is ingested)"
        return said + "its target does not exist, so nothing is ingested)"
    if base not in target.parents:
        return said + "its target is outside the vault, so it is not ingested anywhere)"
    inner = target.relative_to(base).as_posix()
    if target.is_file() and is_note(inner):
        return said + f"the note is ingested at its own path, {inner})"
    return said + f"its target {inner} is not a note Knotwork reads, so it is not ingested)"
