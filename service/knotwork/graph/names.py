"""The vault's note names in memory: which note a mention key names.

Unlinked mentions are matched in process rather than by a query per note: every note's word
runs are looked up here, so a batch of notes costs no round trip for its mentions. A key names
the notes whose ``mkeys`` (file stem, title, aliases, the other name a parenthesis gives; see
``text.keys.note_name_keys``) hold it; when several do, the shortest vault path wins (then the
lower-cased path, then the path), as Obsidian prefers for links. A note's own names in its
own text name the note itself, which never mentions itself: a key the mentioning note bears
names no other note ("# Alice" in people/Alice.md does not mention people/dup/Alice.md).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol

from knotwork.graph.queries.writes import NAMES_STAMP, VAULT_NAMES, VaultNamesRow
from knotwork.graph.store import GraphStore

Ranked = tuple[tuple[int, str, str], str]  # (resolution rank, path)


def _rank(lpath: str, path: str) -> tuple[int, str, str]:
    return (len(lpath), lpath, path)


def _add(table: dict[str, list[Ranked]], key: str, ranked: Ranked) -> None:
    """File ``ranked`` under ``key``, keeping the key's notes in resolution order."""
    entries = table.setdefault(key, [])
    entries.append(ranked)
    entries.sort()


def _named(found: Iterable[Ranked], mentioner: str) -> str | None:
    """The best bearer of a key, None when ``mentioner`` bears it itself."""
    paths = [path for _, path in found]
    return None if not paths or mentioner in paths else paths[0]


def _drop(table: dict[str, list[Ranked]], key: str, path: str) -> None:
    """Take note ``path`` out of ``key``'s entries; a key left without any goes."""
    kept = [entry for entry in table.get(key, []) if entry[1] != path]
    if kept:
        table[key] = kept
    else:
        table.pop(key, None)


class Names(Protocol):
    """What mention matching asks of the vault's names."""

    def starts(self, word: str) -> bool:
        """Whether some name starts with this word (word runs starting elsewhere are skipped)."""
        ...

    def resolve(self, key: str, mentioner: str) -> str | None:
        """The note ``key`` names as seen from note ``mentioner``, or None (a key that
        ``mentioner`` bears itself names no other note)."""
        ...

    def link_target(self, key: str) -> str | None:
        """The note a link key (``text.keys.link_key``) resolves to, or None: unresolved."""
        ...


@dataclass
class NameIndex:
    """Mention key → the notes bearing it, kept sorted by resolution order."""

    _bearers: dict[str, list[Ranked]] = field(default_factory=dict)
    _keys_of: dict[str, tuple[str, ...]] = field(default_factory=dict)
    _lpath_of: dict[str, str] = field(default_factory=dict)
    _first_words: set[str] = field(default_factory=set)
    # Link resolution: the last segment of a note's lower-cased path → the notes ending in it.
    _by_stem: dict[str, list[Ranked]] = field(default_factory=dict)

    @classmethod
    def from_rows(cls, rows: Iterable[VaultNamesRow]) -> NameIndex:
        """From ``vault_names.cypher`` rows: path, lpath, mkeys."""
        index = cls()
        for row in rows:
            index.put(row["path"], row["lpath"] or "", row["mkeys"] or [])
        return index

    def __contains__(self, path: str) -> bool:
        return path in self._keys_of

    def __len__(self) -> int:
        return len(self._keys_of)

    def paths(self) -> list[str]:
        return list(self._keys_of)

    def keys_of(self, path: str) -> tuple[str, ...]:
        return self._keys_of.get(path, ())

    def put(self, path: str, lpath: str, keys: Iterable[str]) -> None:
        """Add a note, or replace what it is named by."""
        self.remove(path)
        ranked = (_rank(lpath, path), path)
        unique = tuple(sorted(set(keys)))
        self._keys_of[path] = unique
        self._lpath_of[path] = lpath
        _add(self._by_stem, lpath.rsplit("/", 1)[-1], ranked)
        for key in unique:
            _add(self._bearers, key, ranked)
            self._first_words.add(key.split(" ", 1)[0])

    def remove(self, path: str) -> None:
        lpath = self._lpath_of.pop(path, None)
        if lpath is not None:
            _drop(self._by_stem, lpath.rsplit("/", 1)[-1], path)
        for key in self._keys_of.pop(path, ()):
            _drop(self._bearers, key, path)
        # _first_words may keep a word no name starts with now: it only costs a lookup.

    def starts(self, word: str) -> bool:
        return word in self._first_words

    def bearers(self, key: str) -> list[Ranked]:
        return self._bearers.get(key, [])

    def resolve(self, key: str, mentioner: str) -> str | None:
        return _named(self._bearers.get(key, ()), mentioner)

    def link_target(self, key: str) -> str | None:
        """The note a link key (text.keys.link_key) resolves to, as Obsidian resolves it: the
        lower-cased path equal to the key or ending in '/' + key, shortest path first, then
        the lower-cased path, then the path; None when no note matches. The one rule: every
        link written or moved (facts_write_links.cypher, links_reresolve.cypher) is given
        the note this names."""
        found = self.link_candidates(key)
        return found[0][1] if found else None

    def link_candidates(self, key: str) -> list[Ranked]:
        """The notes a link key matches, best first."""
        return [
            (rank, path)
            for rank, path in self._by_stem.get(key.rsplit("/", 1)[-1], ())
            if rank[1] == key or rank[1].endswith("/" + key)
        ]


@dataclass
class NameView:
    """A NameIndex as it will be after a batch: some notes gone, some (re)named.

    Resolving through a view leaves the shared index untouched until the batch is written,
    so a batch that fails changes nothing.
    """

    base: NameIndex
    removed: set[str] = field(default_factory=set)
    added: NameIndex = field(default_factory=NameIndex)

    def put(self, path: str, lpath: str, keys: Iterable[str]) -> None:
        self.added.put(path, lpath, keys)

    def remove(self, path: str) -> None:
        self.added.remove(path)
        self.removed.add(path)

    def starts(self, word: str) -> bool:
        return self.added.starts(word) or self.base.starts(word)

    def _merged(self, base: list[Ranked], added: list[Ranked]) -> list[Ranked]:
        """The base index's entries the batch keeps, with the batch's own, in resolution
        order."""
        kept = [e for e in base if e[1] not in self.removed and e[1] not in self.added]
        return sorted(kept + added)

    def resolve(self, key: str, mentioner: str) -> str | None:
        return _named(self._merged(self.base.bearers(key), self.added.bearers(key)), mentioner)

    def link_target(self, key: str) -> str | None:
        found = self._merged(self.base.link_candidates(key), self.added.link_candidates(key))
        return found[0][1] if found else None

    def apply(self) -> None:
        """Make the batch's names the base's own (once the batch is written)."""
        for path in self.removed:
            self.base.remove(path)
        for path in self.added.paths():
            self.base.put(path, self.added._lpath_of[path], self.added.keys_of(path))


Cache = dict[str, tuple[str, NameIndex]]  # vault → (stamp token, its names): Core.names


async def cached(
    store: GraphStore, cache: Cache, vault: str, tokens: list[str] | None = None
) -> tuple[str | None, NameIndex]:
    """The vault's note names and the stamp token they were read under: from ``cache`` while
    the graph's stamp (names_stamp.cypher; ``tokens``: read already, by a query that also
    reads it) is the token cached, else read anew."""
    if tokens is None:
        rows = await store.read(NAMES_STAMP, vault=vault)
        tokens = rows[0]["tokens"] if rows else []
    token = tokens[0] if len(tokens) == 1 else None
    hit = cache.get(vault)
    if token is not None and hit is not None and hit[0] == token:
        return token, hit[1]
    # The stamp is read first: names changed meanwhile are cached under the older token,
    # which the next read no longer matches, so a stale cache is never trusted.
    index = NameIndex.from_rows(await store.read(VAULT_NAMES, vault=vault))
    if token is not None:
        cache[vault] = (token, index)
    return token, index


def written(
    cache: Cache, vault: str, view: NameView | None, read_token: str | None, new_token: str
) -> None:
    """After a write that changed names under ``new_token``: apply the batch's view to the
    cached names, or drop them if another write changed them since they were read."""
    hit = cache.get(vault)
    if hit and view and hit[0] == read_token and hit[1] is view.base:
        view.apply()
        cache[vault] = (new_token, view.base)
    else:
        cache.pop(vault, None)
