"""The vault's note names in memory: which note a mention key names.

Unlinked mentions are matched in process rather than by a query per note: every note's word
runs are looked up here, so a batch of notes costs no round trip for its mentions. A key names
the notes whose ``mkeys`` (file stem, title, aliases; see ``mentions.note_name_keys``) hold it;
when several do, the shortest vault path wins (then the lower-cased path, then the path), as
Obsidian prefers for links. A note never mentions itself, so the resolution for a note that
bears the key is the best *other* bearer.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any


def _rank(lpath: str, path: str) -> tuple[int, str, str]:
    return (len(lpath), lpath, path)


@dataclass
class NameIndex:
    """Mention key → the notes bearing it, kept sorted by resolution order."""

    _bearers: dict[str, list[tuple[tuple[int, str, str], str]]] = field(default_factory=dict)
    _keys_of: dict[str, tuple[str, ...]] = field(default_factory=dict)
    first_words: set[str] = field(default_factory=set)

    @classmethod
    def from_rows(cls, rows: Iterable[dict[str, Any]]) -> NameIndex:
        """From ``vault_names.cypher`` rows: path, lpath, mkeys."""
        index = cls()
        for row in rows:
            index.put(row["path"], row["lpath"] or "", row["mkeys"] or [])
        return index

    def __contains__(self, path: str) -> bool:
        return path in self._keys_of

    def __len__(self) -> int:
        return len(self._keys_of)

    def keys_of(self, path: str) -> tuple[str, ...]:
        return self._keys_of.get(path, ())

    def put(self, path: str, lpath: str, keys: Iterable[str]) -> None:
        """Add a note, or replace what it is named by."""
        self.remove(path)
        ranked = (_rank(lpath, path), path)
        unique = tuple(sorted(set(keys)))
        self._keys_of[path] = unique
        for key in unique:
            bearers = self._bearers.setdefault(key, [])
            bearers.append(ranked)
            bearers.sort()
            self.first_words.add(key.split(" ", 1)[0])

    def remove(self, path: str) -> None:
        for key in self._keys_of.pop(path, ()):
            bearers = [b for b in self._bearers.get(key, []) if b[1] != path]
            if bearers:
                self._bearers[key] = bearers
            else:
                self._bearers.pop(key, None)
        # first_words may keep a word no name starts with now: it only costs a lookup.

    def resolve(self, key: str, mentioner: str) -> str | None:
        """The note ``key`` names as seen from note ``mentioner``, or None."""
        for _, path in self._bearers.get(key, ()):
            if path != mentioner:
                return path
        return None
