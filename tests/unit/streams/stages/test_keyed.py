"""streams/stages/keyed.py: the decoded-value cache beside a table (trusted only while the table still holds the very
object a value was decoded from, least recently used entries evicted first) and `put_checked`, which stores all of a
step's entries or none of them and a STATE_TOO_LARGE dead letter."""

from __future__ import annotations

from typing import Any

import pytest

from streams.stages import base
from streams.stages.base import MAX_TABLE_ENTRY_BYTES, Source
from streams.stages.keyed import DecodedCache, put_checked


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


class Letters:
    """An `Outputs` stand-in that records the dead letters asked of it (the encoder is tested in test_packets)."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, str]] = []

    def dead_letter(self, raw: bytes, source: Source, error_class: str, reason: str, part: int = 0) -> Any:
        self.asked.append((error_class, reason))
        return ("dead letter", error_class)


SRC = Source("t", 0, 9)


def test_entries_that_fit_are_all_assigned_in_order_and_no_dead_letter_is_made() -> None:
    table: dict[str, Any] = {}
    letters = Letters()
    entries = [("ep\x00p1", [1, "judgement"]), ("ep", {"ledger": 1})]
    assert put_checked(table, entries, b"x" * 100, SRC, letters) is None
    assert list(table.items()) == entries  # the ledger last: its changelog record follows its judgements'
    assert letters.asked == []


def test_one_entry_too_large_stores_none_of_them_and_is_a_state_too_large_dead_letter() -> None:
    table: dict[str, Any] = {"ep": {"before": True}}
    letters = Letters()
    entries = [("ep\x00p1", [1, "small"]), ("ep", {"blob": "y" * 2_000_000})]
    refused = put_checked(table, entries, b"x" * 100, SRC, letters)
    assert refused == ("dead letter", "STATE_TOO_LARGE")
    assert table == {"ep": {"before": True}}
    # as the changelog's JSON (compact) writes them: '"ep"' (4) + '{"blob":"' (9) + 2,000,000 + '"}' (2)
    assert letters.asked == [("STATE_TOO_LARGE", "the table entry it makes is 2000015 bytes, more than the limit of "
                                                 f"{MAX_TABLE_ENTRY_BYTES}")]


def test_an_entry_is_measured_as_the_changelog_writes_it_compact_and_utf8() -> None:
    # '"k"' (3) + '{"a":[1,2],"t":"' (16) + 2 bytes for "é" + '"}' (2): no spaces, no \u escapes (23 bytes in all);
    # the json module's default form would be 31 ('{"a": [1, 2], "t": "\u00e9"}' + 3)
    letters = Letters()
    entry = [("k", {"a": [1, 2], "t": "é"})]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(base, "MAX_TABLE_ENTRY_BYTES", 22)
        assert put_checked({}, entry, b"", SRC, letters) == ("dead letter", "STATE_TOO_LARGE")
        patch.setattr(base, "MAX_TABLE_ENTRY_BYTES", 23)
        assert put_checked({}, entry, b"", SRC, letters) is None
    assert letters.asked == [("STATE_TOO_LARGE", "the table entry it makes is 23 bytes, more than the limit of 22")]


def test_a_small_record_whose_state_outgrew_the_limit_is_refused() -> None:
    # a ledger, session or waiting room grows by accumulation: a 2-byte record may be the one that tips it over
    table: dict[str, Any] = {}
    refused = put_checked(table, [("p", {"blob": "y" * 2_000_000})], b"{}", SRC, Letters())
    assert refused == ("dead letter", "STATE_TOO_LARGE")
    assert table == {}


def test_an_entry_of_exactly_the_limit_fits_and_one_byte_more_does_not() -> None:
    # key '"k"' (3 bytes) + a string: 2 quotes + its characters
    fits = "y" * (MAX_TABLE_ENTRY_BYTES - 3 - 2)
    assert put_checked({}, [("k", fits)], b"", SRC, Letters()) is None
    refused = put_checked({}, [("k", fits + "y")], b"", SRC, Letters())
    assert refused == ("dead letter", "STATE_TOO_LARGE")


def test_the_measure_is_the_length_of_what_fausts_json_codec_writes() -> None:
    # the worker's tables write keys and values with Faust's "json" codec; an upgrade that changed it would make
    # the limit measure something else
    from faust.serializers import codecs

    key, value = "ep\x00pkt_1", {"a": [1, 2.5, None, -0.0], "t": "é\u2028\x00", "n": {"k": True}, "big": 2**62}
    # by hand: '"ep\\u0000pkt_1"' 15 bytes; the value compact, UTF-8 (é 2, U+2028 3 bytes), NUL escaped: 82
    assert len(codecs.dumps("json", key)) + len(codecs.dumps("json", value)) == 15 + 82
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(base, "MAX_TABLE_ENTRY_BYTES", 96)
        assert put_checked({}, [(key, value)], b"", SRC, Letters()) == ("dead letter", "STATE_TOO_LARGE")
        patch.setattr(base, "MAX_TABLE_ENTRY_BYTES", 97)
        assert put_checked({}, [(key, value)], b"", SRC, Letters()) is None
