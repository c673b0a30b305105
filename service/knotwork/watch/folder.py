"""The vault folder as the watcher judges a note in it: there (a regular note file reached
without a symbolic link, at exactly its name) or not, and, for a note the folder no longer
shows, whether it is known to be gone or the folder is away (unmounted, a drive's mount point
left empty), when nothing may be deleted. watch/change.py and watch/bulk.py ask before each
write."""

from __future__ import annotations

import logging
from pathlib import Path

from knotwork.graph.queries.reads import VAULT_NOTES
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.plan import empty_held
from knotwork.vault.files import symlink_on_path
from knotwork.vault.folders import EMPTY, folder_id, folder_unseen
from knotwork.vault.write import exists_exactly

log = logging.getLogger("knotwork.watch.apply")  # said as the watcher's writes say theirs


class FolderView:
    """The vault folder ``root`` of ``ingestor``'s vault, as its watcher sees it."""

    def __init__(self, ingestor: Ingestor, root: Path) -> None:
        self.ingestor, self.root = ingestor, root
        self._full_id: tuple[int, int] | None = None  # the folder last seen holding anything
        self.remember_full(folder_id(root))
        self.followed = folder_id(root)  # the folder the observer follows (watch/following.py)
        self.mount_point = False  # replaced by an empty folder, not judged yet

    def is_note_file(self, rel: str) -> bool:
        """A regular note file, reached without a symbolic link: a link (or a path through a
        linked folder) counts as absent, so the graph never records a link's name with its
        target's text — the policy ``scan_notes`` applies to a full sync. Exactly this name: on
        a case-insensitive file system ``Foo.md`` renamed ``foo.md`` leaves no ``Foo.md``."""
        if symlink_on_path(self.root, rel) is not None:
            log.info("%s: a symbolic link (or under one); not ingested", rel)
            return False
        return exists_exactly(self.root / rel, self.root)

    def remember_full(self, ident: tuple[int, int] | None) -> None:
        """Note the folder's identity (``folder_id``) while it holds anything (at start, then
        every second)."""
        if ident is not None and folder_unseen(self.root) is None:
            self._full_id = ident

    def replaced(self) -> bool:
        """The folder followed now replaced the one before: whether it is to be judged at
        once. Not an empty one: a drive's mount point, the drive away, whose notes' deletes
        wait (``away``) until a file says they are meant — but a note come into it is a copy."""
        self.mount_point = folder_unseen(self.root) == EMPTY
        return not self.mount_point

    def to_judge(self, note_coming: bool) -> bool:
        """Whether the folder is now to be judged: the empty one replaced is being filled
        (``note_coming``), or one not followed yet replaced the followed one (the old one's
        deletes would land on it)."""
        if self.mount_point and note_coming:
            self.mount_point = False
            return True
        now_id = folder_id(self.root)
        if now_id is None or self.followed is None or now_id == self.followed:
            return False
        return folder_unseen(self.root) is None

    async def away(self) -> str | None:
        """Why a note the folder no longer shows is not known to be gone, or None: the folder
        cannot be seen, or it is empty, is not the folder last seen holding anything (device
        and inode) and the graph holds notes of it — a drive's mount point with the drive
        away, which a polling observer reports as every note deleted (a sync refuses the same,
        ingest.plan). The watcher follows the empty mount point within a second, so the folder
        followed would not tell. A folder emptied by deleting its notes (the last one through
        the API) is the one last seen full: its deletes apply."""
        unseen = folder_unseen(self.root)
        if unseen != EMPTY:
            return unseen
        if self._full_id is not None and folder_id(self.root) == self._full_id:
            return None
        [row] = await self.ingestor.core.store.read(VAULT_NOTES, vault=self.ingestor.vault)
        held = int(row["notes"])
        return empty_held(held, self.ingestor.vault) if held else None
