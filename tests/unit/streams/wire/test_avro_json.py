"""The JSON <-> Avro datum converter (streams/wire/avro_json.py): the path a refusal names, wherever in the value
it happens, and the union branch a JSON value takes. Schemas are written here by hand; expected paths and
branches follow the module's contract (an error names the dotted path, `[i]` for an array item)."""

from __future__ import annotations

from typing import Any

import pytest
from fastavro import parse_schema

from streams.wire.avro_json import ConversionError, Node, compile_schema

ITEM = {"type": "record", "name": "t.Item", "fields": [
    {"name": "id", "type": "string"},
    {"name": "size", "type": ["null", "long"], "default": None},
    {"name": "extras", "type": ["null", {"type": "map", "values": {"type": "string", "logicalType": "omega.json"}}],
     "default": None},
]}
ROOT = {"type": "record", "name": "t.Root", "fields": [
    {"name": "name", "type": "string"},
    {"name": "items", "type": {"type": "array", "items": ITEM}},
    {"name": "tags", "type": ["null", {"type": "map", "values": "long"}], "default": None},
    {"name": "nested", "type": ["null", {"type": "record", "name": "t.Nested", "fields": [
        {"name": "rows", "type": {"type": "array", "items": {"type": "array", "items": "string"}}}]}],
     "default": None},
    {"name": "number", "type": ["null", "long", "double"], "default": None},
    {"name": "whole", "type": ["null", "long", "string"], "default": None},
    {"name": "free", "type": ["null", {"type": "string", "logicalType": "omega.json"}], "default": None},
]}


@pytest.fixture(scope="module")
def root() -> Node:
    return compile_schema(parse_schema(ROOT))


def _valid() -> dict[str, Any]:
    return {"name": "r", "items": [{"id": "a"}, {"id": "b", "size": 2}, {"id": "c"}],
            "tags": {"x": 1, "y": 2}, "nested": {"rows": [["p"], ["q", "r"]]}}


def _refusal(node: Node, value: Any, path: str = "") -> ConversionError:
    with pytest.raises(ConversionError) as info:
        node.to_avro(value, path)
    return info.value


def test_a_valid_value_converts_and_comes_back_equal(root: Node) -> None:
    value = _valid()
    assert root.from_avro(root.to_avro(value, "")) == value


@pytest.mark.parametrize(("change", "path", "error_class"), [
    (lambda v: v["items"][2].__setitem__("id", 7), "items[2].id", "WRONG_TYPE"),
    (lambda v: v["items"][1].__setitem__("size", "big"), "items[1].size", "WRONG_TYPE"),
    (lambda v: v["items"][1].pop("id"), "items[1].id", "MISSING_FIELD"),
    (lambda v: v["items"][0].__setitem__("note", float("nan")), "items[0].note", "WRONG_TYPE"),
    (lambda v: v["tags"].__setitem__("z", "three"), "tags.z", "WRONG_TYPE"),
    (lambda v: v["nested"]["rows"][1].__setitem__(1, None), "nested.rows[1][1]", "WRONG_TYPE"),
    (lambda v: v.__setitem__("name", "\ud800"), "name", "INVALID_UNICODE"),
    (lambda v: v.__setitem__("number", "one"), "number", "WRONG_TYPE"),
])
def test_a_refusal_deep_in_the_value_names_its_exact_path(root: Node, change: Any, path: str,
                                                          error_class: str) -> None:
    value = _valid()
    change(value)
    error = _refusal(root, value)
    assert (error.path, error.error_class) == (path, error_class)
    assert str(error).startswith(f"{path}: ")


def test_the_path_a_caller_gives_prefixes_every_refusal(root: Node) -> None:
    value = _valid()
    value["items"][1]["size"] = "big"
    assert _refusal(root, value, "payload").path == "payload.items[1].size"


def test_an_unknown_key_where_no_extras_are_kept_is_named_with_its_path() -> None:
    node = compile_schema(parse_schema({"type": "record", "name": "t.Closed", "fields": [
        {"name": "rows", "type": {"type": "array", "items": {"type": "record", "name": "t.Row", "fields": [
            {"name": "k", "type": "string"}]}}}]}))
    error = _refusal(node, {"rows": [{"k": "a"}, {"k": "b", "zz": 1, "yy": 2}]}, "body")
    assert (error.path, error.error_class) == ("body.rows[1].yy", "UNKNOWN_FIELD")


@pytest.mark.parametrize(("value", "datum"), [
    (3, 3), (3.0, 3.0), (2.5, 2.5), (-1, -1),
])
def test_a_number_keeps_its_json_kind_in_a_long_or_double_union(root: Node, value: Any, datum: Any) -> None:
    converted = root.to_avro({"name": "r", "items": [], "number": value}, "")
    assert isinstance(converted, dict)
    assert converted["number"] == datum
    assert type(converted["number"]) is type(datum)


@pytest.mark.parametrize(("value", "datum"), [(6, 6), (6.0, 6), ("Integrity", "Integrity")])
def test_an_integral_float_takes_the_long_branch_where_there_is_no_double(root: Node, value: Any,
                                                                           datum: Any) -> None:
    converted = root.to_avro({"name": "r", "items": [], "whole": value}, "")
    assert isinstance(converted, dict)
    assert converted["whole"] == datum
    assert type(converted["whole"]) is type(datum)


def test_a_fractional_float_fits_no_branch_of_a_long_or_string_union(root: Node) -> None:
    error = _refusal(root, {"name": "r", "items": [], "whole": 6.5})
    assert (error.path, error.error_class) == ("whole", "WRONG_TYPE")
    assert "number fits none of the allowed types" in str(error)


def test_a_boolean_is_not_a_number_in_a_union(root: Node) -> None:
    error = _refusal(root, {"name": "r", "items": [], "number": True})
    assert (error.path, error.error_class) == ("number", "WRONG_TYPE")


def test_free_form_json_takes_explicit_null_as_text(root: Node) -> None:
    converted = root.to_avro({"name": "r", "items": [], "free": None}, "")
    assert isinstance(converted, dict)
    assert converted["free"] == "null"
