"""A bounded map shared by every session of a server: past its size, the least recently used go."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Generic, Hashable, TypeVar

V = TypeVar("V")


class LeastRecentlyUsed(Generic[V]):
    """At most `size` values by key; a lookup that finds one counts as a use. Safe across threads."""

    def __init__(self, size: int) -> None:
        self.size = size
        """Most values held at once."""
        self._entries: OrderedDict[Hashable, V] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: Hashable) -> V | None:
        """The value kept under `key`, or None."""
        # No lock on the path every lookup takes: each OrderedDict call is atomic under the GIL, and a
        # value another thread drops between the two calls is simply not moved.
        found = self._entries.get(key)
        if found is not None:
            try:
                self._entries.move_to_end(key)
            except KeyError:
                pass
        return found

    def put(self, key: Hashable, value: V) -> None:
        """Keep `value` under `key`, dropping the least recently used past the size."""
        entries = self._entries
        with self._lock:
            if key in entries:
                entries.move_to_end(key)
            entries[key] = value
            if len(entries) > self.size:  # one put adds one value, so one goes at most
                entries.popitem(last=False)

    def drop(self, key: Hashable) -> None:
        """Let go of the value under `key`, if one is kept."""
        with self._lock:
            self._entries.pop(key, None)
