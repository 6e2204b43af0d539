"""Reading agent text into JSON documents: YAML 1.2 core values, documents and their raw text, refusals."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from omega.agents import documents
from omega.agents.documents import MAX_DEPTH, MAX_ERRORS, Document, read_documents


def one(text: str) -> Document:
    docs = read_documents(text)
    assert len(docs) == 1, docs
    return docs[0]


def value_of(text: str) -> Any:
    doc = one(text)
    assert doc.errors == (), doc.errors
    return doc.value


@pytest.mark.parametrize(
    ("scalar", "value"),
    [
        ("yes", "yes"), ("no", "no"), ("on", "on"), ("off", "off"), ("y", "y"),
        ("true", True), ("False", False), ("TRUE", True),
        ("~", None), ("null", None), ("", None),
        ("42", 42), ("-7", -7), ("017", 17), ("0o17", 15), ("0x1F", 31), ("1_000", "1_000"), ("1:30", "1:30"),
        ("0.5", 0.5), (".5", 0.5), ("1e3", 1000.0), ("-2.5E-1", -0.25), (".infinity", ".infinity"),
        ("2026-01-26T09:00:00Z", "2026-01-26T09:00:00Z"), ("2026-01-26", "2026-01-26"),
        ("'42'", "42"), ('"true"', "true"), ("!!str 5", "5"), ("!!float 3", 3.0), ("!!int 0x10", 16),
    ],
)
def test_plain_scalars_follow_the_yaml_12_core_schema(scalar: str, value: Any) -> None:
    got = value_of(f"k: {scalar}\n")["k"]
    assert got == value
    assert type(got) is type(value)


def test_mapping_keys_are_their_text() -> None:
    assert value_of("1: a\ntrue: b\nnull: c\non: d\n") == {"1": "a", "true": "b", "null": "c", "on": "d"}


def test_json_is_read_by_the_json_decoder_with_exact_integers() -> None:
    big = 123456789012345678901234567890
    assert value_of(f'{{"n": {big}, "x": 0.1}}') == {"n": big, "x": 0.1}


def test_text_that_only_looks_like_json_is_read_as_yaml() -> None:
    assert value_of("{a: 1, b: [x, y]}") == {"a": 1, "b": ["x", "y"]}


def test_each_document_keeps_its_own_raw_text_and_first_line() -> None:
    docs = read_documents("a: 1\n---\nb: 2\n---\n")
    assert [(d.index, d.raw, d.line, d.value) for d in docs] == [
        (1, "a: 1\n", 1, {"a": 1}), (2, "---\nb: 2\n", 2, {"b": 2}), (3, "---\n", 4, None)]


def test_fenced_json_keeps_the_text_inside_the_fence_as_its_raw_text() -> None:
    doc = one('```json\n{"a": 1}\n```\n')
    assert (doc.raw, doc.value) == ('{"a": 1}', {"a": 1})


def test_a_fenced_text_is_read_inside_the_fence_with_line_numbers_of_the_original() -> None:
    doc = one("```yaml\na: 1\nb: [\n```")
    assert doc.raw == "a: 1\nb: ["
    assert doc.errors[0].startswith("YAML syntax error at line 4")


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("a: !!timestamp 2026-01-01\n", "line 1: tag !!timestamp is not supported"),
        ("a: !!omap [b: 1]\n", "line 1: tag !!omap is not supported"),
        ("a: !!int x\n", "line 1: 'x' is not a valid !!int"),
        ("a: -.inf\n", "line 1: -.inf is not a JSON number"),
        ("a: .NaN\n", "line 1: .NaN is not a JSON number"),
        ("a: 1e999\n", "line 1: number 1e999 is out of range"),
        ("[1e999]", "JSON: number inf is out of range"),
        ("? [a, b]\n: c\n", "line 1: a mapping key must be a scalar"),
        ("a: \x07\n", "YAML syntax error at line 1, column 4: unacceptable character #x0007"),
        ("a: b\ud800", "input is not valid Unicode: lone surrogate at character 4"),
        ('{"a": "\\udc00"}', "JSON: string '\\udc00' is not valid Unicode (lone surrogate)"),
        ("a: " + "9" * 5000, "line 1: Exceeds the limit"),
    ],
)
def test_values_json_cannot_hold_are_refused_with_their_line(text: str, reason: str) -> None:
    doc = one(text)
    assert doc.value is None
    assert doc.errors[0].startswith(reason), doc.errors


def test_nesting_at_the_limit_is_read_and_one_deeper_is_refused() -> None:
    assert value_of("[" * MAX_DEPTH + "]" * MAX_DEPTH) is not None
    assert one("k: " + "[" * MAX_DEPTH + "]" * MAX_DEPTH).errors == (f"line 1: nesting deeper than {MAX_DEPTH} levels",)


# the stream, document and mapping starts, the key, and the MAX_DEPTH sequence starts up to the one refused
BOMB_EVENTS = MAX_DEPTH + 4


@pytest.mark.parametrize("loader", [documents._LOADER, yaml.SafeLoader], ids=["default-loader", "pure-python"])
def test_a_deep_flow_bracket_bomb_is_refused_without_parsing_past_the_depth_limit(
    loader: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Parsing all of it would take minutes (libyaml's scan costs O(tokens x flow depth)): reading must stop at the
    # first container past MAX_DEPTH. The work is bounded by the parser events pulled, not by the clock. The
    # libyaml PyYAML 6.0.4 bundles refuses the bomb itself (at its depth 1,000) after a few events; the
    # pure-Python parser has no limit of its own, so it shows that the reader stops by itself.
    parse = yaml.parse
    pulled = 0

    def bounded(*args: Any, **kwargs: Any) -> Any:
        nonlocal pulled
        for event in parse(*args, **kwargs):
            pulled += 1
            if pulled > BOMB_EVENTS:
                raise AssertionError(f"the reader pulled more than {BOMB_EVENTS} parser events from the bomb")
            yield event

    monkeypatch.setattr(documents, "_LOADER", loader)
    monkeypatch.setattr(yaml, "parse", bounded)
    doc = one("k: " + "[" * 300_000)
    assert doc.errors == (f"line 1: nesting deeper than {MAX_DEPTH} levels",)
    assert doc.raw.startswith("k: [[[")


def test_a_document_reports_at_most_max_errors_reasons() -> None:
    text = "a: &a 1\n" + "".join(f"k{i}: *a\n" for i in range(50))
    errors = one(text).errors
    assert len(errors) == MAX_ERRORS + 1
    assert errors[-1] == f"... and {50 - MAX_ERRORS} more"


@pytest.mark.parametrize(
    "text",
    ["a: yes\nb: [1, 0o7, 2.5]\n---\nc: {d: ~}\n", "a: [1,\n", "a: &x 1\nb: *x\n", "k: " + "[" * 1000, "a: \x07\n"],
)
def test_the_pure_python_loader_fallback_reads_the_same_documents(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with_libyaml = [(d.value, d.raw, bool(d.errors)) for d in read_documents(text)]
    monkeypatch.setattr(documents, "_LOADER", yaml.SafeLoader)
    assert [(d.value, d.raw, bool(d.errors)) for d in read_documents(text)] == with_libyaml


def test_windows_line_endings_and_a_byte_order_mark_are_read() -> None:
    assert value_of("\ufeffa: 1\r\nb: [x]\r\n") == {"a": 1, "b": ["x"]}


# ------------------------------------------------------------------------------------------- whole documents
def test_a_text_over_the_size_limit_is_one_refused_document_on_line_1() -> None:
    text = "x" * (documents.MAX_TEXT_CHARS + 1)
    assert read_documents(text) == [Document(1, text, 1, errors=(
        f"input is {documents.MAX_TEXT_CHARS + 1} characters, over the limit of {documents.MAX_TEXT_CHARS}",))]


def test_a_json_duplicate_key_is_one_refused_document_on_line_1() -> None:
    text = '{"a": 1, "a": 2}'
    assert read_documents(text) == [Document(1, text, 1, errors=("JSON: duplicate key 'a'",))]


def test_json_too_deep_for_the_decoder_is_one_refused_document_on_line_1() -> None:
    text = "[" * 100_000 + "]" * 100_000
    assert read_documents(text) == [Document(1, text, 1, errors=(f"JSON: nesting deeper than {MAX_DEPTH} levels",))]


def test_a_json_integer_past_the_digit_limit_is_one_refused_document_on_line_1() -> None:
    text = '{"a": ' + "1" * 5000 + "}"
    (doc,) = read_documents(text)
    assert (doc.index, doc.raw, doc.line, doc.value) == (1, text, 1, None)
    assert len(doc.errors) == 1
    assert doc.errors[0].startswith("JSON: Exceeds the limit (4300 digits)")


@pytest.mark.parametrize(("text", "value"), [("! {a: 1}\n", {"a": 1}), ("! [1, 2]\n", [1, 2]),
                                             ("a: ! 12\n", {"a": "12"})])
def test_the_non_specific_tag_is_accepted_a_scalar_stays_text(text: str, value: Any) -> None:
    assert read_documents(text) == [Document(1, text, 1, value)]


def test_nesting_too_deep_in_a_later_document_keeps_its_start_line() -> None:
    deep = "[" * 70 + "]" * 70
    text = f"a: 1\n---\n{deep}\n"
    assert read_documents(text) == [
        Document(1, "a: 1\n", 1, {"a": 1}),
        Document(2, f"---\n{deep}\n", 2, errors=(f"line 3: nesting deeper than {MAX_DEPTH} levels",)),
    ]


def test_a_syntax_error_in_a_later_document_starts_on_its_own_line() -> None:
    text = "a: 1\n---\nb: [1,\n"
    docs = read_documents(text)
    assert docs[0] == Document(1, "a: 1\n", 1, {"a": 1})
    assert (docs[1].index, docs[1].raw, docs[1].line, docs[1].value) == (2, "---\nb: [1,\n", 2, None)
    assert docs[1].errors[0].startswith("YAML syntax error at line 4, column 1: ")


def test_an_unacceptable_first_character_is_placed_at_line_1_column_1() -> None:
    assert read_documents("\x01abc") == [Document(1, "\x01abc", 1, errors=(
        "YAML syntax error at line 1, column 1: unacceptable character #x0001 (control characters are not allowed)",))]
