"""Process-local helpers around the Faust tables: decoded values kept beside their stored form, the partition
of a key, and the size check a stored value must pass."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from aiokafka.partitioner import murmur2

from streams.stages.base import CHECK_STATE_FROM_BYTES, oversized_entry

T = TypeVar("T")


class DecodedCache(Generic[T]):
    """Decoded table values by key, trusted only while the table still holds the very object they came from.

    The memory store returns the dict we assigned, so a hit skips decoding (which grows with the episode
    or session); any other store, a recovery or a rebalance hands back a new object and the entry misses.
    """

    def __init__(self, decode: Callable[[str, Any], T], size: int = 10_000) -> None:
        self._decode = decode
        self._entries: OrderedDict[str, tuple[object, T]] = OrderedDict()
        self._size = size

    def get(self, key: str, stored: Any) -> T | None:
        """The decoded value of `stored` (the table's value for `key`), decoded only on a miss."""
        if not stored:
            return None
        entry = self._entries.get(key)
        if entry is not None and entry[0] is stored:
            self._entries.move_to_end(key)
            return entry[1]
        return self._decode(key, stored)

    def put(self, key: str, stored: object, value: T) -> None:
        """Remember that `stored` decodes to `value`."""
        self._entries[key] = (stored, value)
        self._entries.move_to_end(key)
        if len(self._entries) > self._size:
            self._entries.popitem(last=False)


def oversized_state(key: str, raw: bytes, value: Callable[[], object]) -> str | None:
    """Why the table entry a large record makes would not fit its changelog (small records are not checked)."""
    if len(raw) + len(key) < CHECK_STATE_FROM_BYTES:
        return None
    return oversized_entry(key, value())


def partition_of(key: str, partitions: int) -> int:
    """The partition the producers' default partitioner (murmur2, as in the Java client) gives a key."""
    return (int(murmur2(key.encode("utf-8"))) & 0x7FFFFFFF) % partitions
