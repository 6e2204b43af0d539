"""streams/stages/keyed.py: the decoded-value cache beside a Faust table (trusted only while the table still holds
the very object a value was decoded from, least recently used entries evicted first), the size check of a
stored value, and the partition of a key."""

from __future__ import annotations

from typing import Any

import pytest

from streams.stages.base import CHECK_STATE_FROM_BYTES
from streams.stages.keyed import DecodedCache, oversized_state, partition_of


class Decoder:
    """A decode function that records what it was asked to decode; the decoded value names its input."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def __call__(self, key: str, stored: Any) -> str:
        self.calls.append(key)
        return f"decoded {key}={stored['v']}"


def cache_of(size: int = 10) -> tuple[DecodedCache[str], Decoder]:
    decoder = Decoder()
    return DecodedCache(decoder, size=size), decoder


def test_the_stored_object_it_was_decoded_from_is_a_hit_without_decoding() -> None:
    cache, decoder = cache_of()
    stored = {"v": 1}
    cache.put("k", stored, "kept value")
    assert cache.get("k", stored) == "kept value"
    assert cache.get("k", stored) == "kept value"
    assert decoder.calls == []


def test_a_changed_stored_value_is_decoded_again_not_served_stale() -> None:
    cache, decoder = cache_of()
    cache.put("k", {"v": 1}, "decoded k=1")
    assert cache.get("k", {"v": 2}) == "decoded k=2"  # another worker or a recovery wrote the key meanwhile
    assert decoder.calls == ["k"]


def test_an_equal_but_new_stored_object_is_decoded_again() -> None:
    # a recovery or another store hands back a copy: the entry is trusted only for the very object it came from
    # (a ledger's decoding also reads other table entries, which a copy does not vouch for)
    cache, decoder = cache_of()
    stored = {"v": 1}
    cache.put("k", stored, "cached")
    assert cache.get("k", dict(stored)) == "decoded k=1"
    assert decoder.calls == ["k"]


def test_a_key_gone_from_the_table_has_no_value_even_when_cached() -> None:
    cache, decoder = cache_of()
    cache.put("k", {"v": 1}, "cached")
    assert cache.get("k", None) is None
    assert cache.get("k", {}) is None
    assert decoder.calls == []


def test_an_entry_is_for_its_own_key_only() -> None:
    cache, decoder = cache_of()
    stored = {"v": 1}
    cache.put("a", stored, "a's value")
    assert cache.get("b", stored) == "decoded b=1"
    assert decoder.calls == ["b"]


def test_a_later_put_replaces_the_entry_of_its_key() -> None:
    cache, decoder = cache_of()
    first, second = {"v": 1}, {"v": 2}
    cache.put("k", first, "first")
    cache.put("k", second, "second")
    assert cache.get("k", second) == "second"
    assert cache.get("k", first) == "decoded k=1"  # the old object is no longer vouched for
    assert decoder.calls == ["k"]


def test_a_miss_is_not_remembered() -> None:
    cache, decoder = cache_of()
    stored = {"v": 1}
    cache.get("k", stored)
    cache.get("k", stored)
    assert decoder.calls == ["k", "k"]  # only put() vouches for a decoding


def test_beyond_its_size_the_least_recently_put_entry_is_evicted() -> None:
    cache, decoder = cache_of(size=2)
    a, b, c = {"v": "a"}, {"v": "b"}, {"v": "c"}
    cache.put("a", a, "A")
    cache.put("b", b, "B")
    cache.put("c", c, "C")
    assert cache.get("c", c) == "C"  # the newest is kept
    assert cache.get("b", b) == "B"
    assert decoder.calls == []
    assert cache.get("a", a) == "decoded a=a"  # the oldest went
    assert decoder.calls == ["a"]


def test_a_hit_makes_an_entry_the_most_recently_used() -> None:
    cache, decoder = cache_of(size=2)
    a, b, c = {"v": "a"}, {"v": "b"}, {"v": "c"}
    cache.put("a", a, "A")
    cache.put("b", b, "B")
    assert cache.get("a", a) == "A"  # a used after b: b is now the least recently used
    cache.put("c", c, "C")
    assert cache.get("a", a) == "A"
    assert cache.get("c", c) == "C"
    assert decoder.calls == []
    assert cache.get("b", b) == "decoded b=b"
    assert decoder.calls == ["b"]


def test_a_put_again_makes_an_entry_the_most_recently_used() -> None:
    cache, decoder = cache_of(size=2)
    a, a2, b, c = {"v": "a"}, {"v": "a2"}, {"v": "b"}, {"v": "c"}
    cache.put("a", a, "A")
    cache.put("b", b, "B")
    cache.put("a", a2, "A2")  # rewritten after b
    cache.put("c", c, "C")
    assert cache.get("a", a2) == "A2"
    assert cache.get("c", c) == "C"
    assert decoder.calls == []
    assert cache.get("b", b) == "decoded b=b"


def test_the_cache_holds_exactly_its_size() -> None:
    cache, decoder = cache_of(size=3)
    stored = {f"k{i}": {"v": i} for i in range(5)}
    for key, value in stored.items():
        cache.put(key, value, f"cached {key}")
    assert [cache.get(key, value) for key, value in stored.items()] == [
        "decoded k0=0", "decoded k1=1", "cached k2", "cached k3", "cached k4"]
    assert decoder.calls == ["k0", "k1"]


def test_the_cache_holds_ten_thousand_entries_by_default() -> None:
    decoder = Decoder()
    cache: DecodedCache[str] = DecodedCache(decoder)
    stored = [{"v": i} for i in range(10_001)]
    for i, value in enumerate(stored):
        cache.put(f"k{i}", value, f"cached k{i}")
    assert cache.get("k1", stored[1]) == "cached k1"  # the second one in is still there
    assert cache.get("k10000", stored[10_000]) == "cached k10000"
    assert decoder.calls == []
    assert cache.get("k0", stored[0]) == "decoded k0=0"  # the 10,001st put evicted the first
    assert decoder.calls == ["k0"]


def test_a_small_record_is_not_checked() -> None:
    def value() -> object:
        raise AssertionError("a record under the check threshold must not be serialised")

    key = "episode"
    raw = b"x" * (CHECK_STATE_FROM_BYTES - len(key) - 1)  # 65,535 bytes with the key: under 65,536
    assert oversized_state(key, raw, value) is None


def test_a_large_record_whose_entry_fits_passes() -> None:
    key = "episode"
    raw = b"x" * (CHECK_STATE_FROM_BYTES - len(key))  # exactly at the threshold: checked
    asked: list[bool] = []

    def value() -> object:
        asked.append(True)
        return {"small": 1}

    assert oversized_state(key, raw, value) is None
    assert asked == [True]


def test_a_large_record_whose_entry_would_not_fit_is_refused_with_its_size() -> None:
    key = "episode"
    raw = b"x" * CHECK_STATE_FROM_BYTES
    entry = {"blob": "y" * 2_000_000}
    why = oversized_state(key, raw, lambda: entry)
    # 7 bytes of key + json.dumps: '{"blob": "' (10) + 2,000,000 + '"}' (2)
    assert why is not None
    assert "2000019 bytes" in why


@pytest.mark.parametrize(("key", "partitions", "partition"), [
    # murmur2 values from Kafka's own UtilsTest.testMurmur2 (the Java client's partitioner):
    # "21" -> -973932308, "foobar" -> -790332482, "a-little-bit-long-string" -> -985981536;
    # partition = (hash & 0x7fffffff) % partitions
    ("21", 4, 0),  # 1173551340 % 4
    ("21", 7, 3),  # 1173551340 % 7
    ("foobar", 4, 2),  # 1357151166 % 4
    ("foobar", 10, 6),
    ("a-little-bit-long-string", 3, 2),  # 1161502112 % 3
])
def test_a_key_goes_to_the_partition_the_java_client_gives_it(key: str, partitions: int, partition: int) -> None:
    assert partition_of(key, partitions) == partition
