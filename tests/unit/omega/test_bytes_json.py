"""Bytes in JSON values: `jsonable` writes them as {"utf8"} or {"base64"} objects, `unjsonable` reads them back."""

from __future__ import annotations

import binascii

import orjson
import pytest

from omega.bytes_json import bytes_of, jsonable, unjsonable


def test_unjsonable_turns_replay_bytes_back_into_bytes() -> None:
    record = {"raw": b"\xff\x00binary", "text": b"plain", "nested": [{"b": b"x"}], "n": 1, "map": {"a": "b"}}
    assert unjsonable(jsonable(record)) == record
    assert unjsonable(orjson.loads(orjson.dumps(jsonable(record)))) == record


def test_text_bytes_are_utf8_and_other_bytes_base64_inside_any_nesting() -> None:
    assert jsonable({"k": [b"caf\xc3\xa9", (b"\xff\xfe",)], "n": None}) == {
        "k": [{"utf8": "café"}, [{"base64": "//4="}]], "n": None}


def test_only_a_one_key_object_with_a_text_value_is_read_as_bytes() -> None:
    assert unjsonable({"utf8": "a", "other": 1}) == {"utf8": "a", "other": 1}
    assert unjsonable({"base64": 5}) == {"base64": 5}
    assert unjsonable([{"base64": "//4="}]) == [b"\xff\xfe"]


def test_bytes_of_reads_only_the_one_key_forms_and_refuses_base64_that_is_not() -> None:
    assert bytes_of({"utf8": "é"}) == b"\xc3\xa9"
    assert bytes_of({"base64": "AAE="}) == b"\x00\x01"
    assert bytes_of({"utf8": 1}) is None
    assert bytes_of({"utf8": "a", "base64": "AAE="}) is None
    assert bytes_of("AAE=") is None
    for damaged in ("AAE", "AA E=", "AAE=!", "ÀÀE="):  # bad padding, outside the alphabet, not ASCII
        with pytest.raises(binascii.Error):
            bytes_of({"base64": damaged})
        with pytest.raises(binascii.Error):  # a ValueError: the projector's file reader counts the line undecodable
            unjsonable({"value": {"raw": {"base64": damaged}}})
