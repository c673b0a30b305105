"""A bounded least-recently-used map: what retrieval keeps between questions
(retrieve/cached.py), in the Core so every request of a process shares it."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable

SIZE = 512  # entries kept, least recently used dropped first


class Memo:
    """A bounded least-recently-used map; keys carry the vault's generation."""

    def __init__(self, size: int = SIZE) -> None:
        self.size = size
        self._items: OrderedDict[Hashable, object] = OrderedDict()

    def get(self, key: Hashable) -> object | None:
        value = self._items.get(key)
        if value is not None:
            self._items.move_to_end(key)
        return value

    def put(self, key: Hashable, value: object) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.size:
            self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)
