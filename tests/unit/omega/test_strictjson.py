"""Strict JSON: the stdlib decoder's NaN, Infinity and -Infinity are refused with a message naming the word."""

from __future__ import annotations

import json
from typing import Any

import pytest

from omega.strictjson import NonFiniteConstant, loads, reject_constant


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("NaN", "NaN is not JSON"),
        ('{"x": Infinity}', "Infinity is not JSON"),
        ("[1, -Infinity]", "-Infinity is not JSON"),
        (b'{"deep": [{"x": NaN}]}', "NaN is not JSON"),
    ],
)
def test_a_non_finite_constant_is_a_value_error_naming_it(text: str | bytes, message: str) -> None:
    with pytest.raises(NonFiniteConstant) as caught:
        loads(text)
    assert str(caught.value) == message
    assert isinstance(caught.value, ValueError)
    assert caught.value.constant == message.split(" ", 1)[0]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('{"a": [1, 2.5, "NaN", null, true]}', {"a": [1, 2.5, "NaN", None, True]}),
        (b'"Infinity"', "Infinity"),
        ("1e400", float("inf")),  # an overflowing literal is a number to the decoder, not a constant
        ("123456789012345678901234567890", 123456789012345678901234567890),
    ],
)
def test_json_without_constants_reads_as_the_stdlib_reads_it(text: str | bytes, value: Any) -> None:
    assert loads(text) == value


def test_syntax_errors_stay_the_stdlib_decode_errors() -> None:
    with pytest.raises(json.JSONDecodeError):
        loads("{nope")


def test_the_pairs_hook_sees_every_pair_in_order() -> None:
    assert loads('{"b": 1, "a": 2, "b": 3}', object_pairs_hook=list) == [("b", 1), ("a", 2), ("b", 3)]


def test_the_hook_alone_refuses_for_callers_of_json_loads() -> None:
    with pytest.raises(ValueError, match=r"^Infinity is not JSON$"):
        json.loads("Infinity", parse_constant=reject_constant)
