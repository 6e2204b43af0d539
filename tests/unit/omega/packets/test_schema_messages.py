"""What the schema stage tells a producer (issue 41): nulls on optional fields read as absent with a WARNING, and
messages that name the field path, every accepted form and the value found (cut to 80 characters).

Expected texts are written here by hand from the rule tables' data (the spec's enums, ranges, patterns).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest

from omega.packets import schema
from omega.packets import schema_rules as rules
from omega.packets.schema import check_schema, read_nulls_as_absent
from omega.packets.schema_vocabulary import Arr, Int, Num, Obj, OneOf, Str
from omega.packets.validator import evolve
from omega.violations import Severity, Violation
from tests.factories import packet as factory_packet

NULL_WARNING = "{} is null: read as absent (optional field; omit it instead of writing null)"


def _packet(**changes: Any) -> dict[str, Any]:
    """A valid factory ObservationPacket with dotted paths set (a list index as a number)."""
    packet = copy.deepcopy(factory_packet(0, 1))
    for path, value in changes.items():
        *head, last = path.split("__")
        node: Any = packet
        for step in head:
            node = node[int(step)] if step.isdigit() else node[step]
        node[last] = value
    return packet


def _warning(path: str) -> Violation:
    return Violation("SCHEMA", Severity.WARNING, NULL_WARNING.format(path), path)


# --------------------------------------------------------------------------- null means absent
def test_a_null_on_an_optional_header_field_is_one_warning_and_no_error() -> None:
    assert check_schema(_packet(header__campaign_id=None)) == [_warning("header.campaign_id")]


def test_a_null_inside_an_array_item_is_read_as_absent_there() -> None:
    packet = _packet(mcp__evidence__evidence_refs__0__reliability_score=None)
    path = "mcp.evidence.evidence_refs[0].reliability_score"
    assert check_schema(packet) == [_warning(path)]
    judged = read_nulls_as_absent(packet)
    assert isinstance(judged, dict)
    assert "reliability_score" not in judged["mcp"]["evidence"]["evidence_refs"][0]
    assert packet["mcp"]["evidence"]["evidence_refs"][0]["reliability_score"] is None  # the raw packet untouched


def test_a_null_on_a_required_field_stays_an_error() -> None:
    assert check_schema(_packet(header__created_at=None)) == [
        Violation("SCHEMA", Severity.ERROR, "header.created_at must be a string, got null", "header.created_at")]


def test_a_null_the_schema_admits_is_neither_warned_nor_dropped() -> None:
    packet = _packet(mcp__evidence__evidence_absent_reason=None)  # `string | null` in the schema index
    assert check_schema(packet) == []
    assert read_nulls_as_absent(packet) is packet


def test_the_episode_judges_the_packet_without_its_nulls_but_keeps_the_raw_content_hash() -> None:
    raw = _packet(header__previous_packet_id=None)
    clean = _packet()
    _, [with_null] = evolve(None, raw)
    _, [without] = evolve(None, clean)
    assert with_null.status.value == "ACCEPTED_WITH_WARNINGS"
    assert [v.field for v in with_null.violations] == ["header.previous_packet_id"]
    assert (with_null.state_before, with_null.state_after) == (without.state_before, without.state_after)
    assert with_null.content_hash != without.content_hash


def test_warnings_and_errors_are_reported_together_and_the_errors_reject() -> None:
    _, [verdict] = evolve(None, _packet(header__campaign_id=None, header__layer_source=0))
    assert verdict.status.value == "REJECTED"
    assert [(v.severity.value, v.field) for v in verdict.violations] == [
        ("ERROR", "header.layer_source"), ("WARNING", "header.campaign_id")]


# --------------------------------------------------------------------------- messages, pinned by hand
@pytest.mark.parametrize(("changes", "message"), [
    ({"header__layer_source": "5"}, 'header.layer_source must be an integer 1..6 or "Integrity", got a string "5"'),
    ({"header__layer_source": 9}, 'header.layer_source must be an integer 1..6 or "Integrity", got an integer 9'),
    ({"header__packet_id": "1b4e28ba-2fa1-11d2-883f-0016d3cca427"},
     'header.packet_id must match the pattern ^pkt_[a-zA-Z0-9_-]+$, got a string '
     '"1b4e28ba-2fa1-11d2-883f-0016d3cca427"'),
    ({"mcp__budgets__token_budget": "2000"}, 'mcp.budgets.token_budget must be an integer >= 0, got a string "2000"'),
    ({"mcp__epistemics__confidence": 1.5}, "mcp.epistemics.confidence must be at most 1, got a number 1.5"),
    ({"mcp__routing__tools_state": "ok"},
     'mcp.routing.tools_state must be one of: tools_ok, tools_partial, tools_down; got a string "ok"'),
    ({"mcp__quality__definition_of_done__checks": []},
     "mcp.quality.definition_of_done.checks needs at least 1 item, got 0"),
    ({"mcp__intent__summary": ""}, 'mcp.intent.summary must not be empty, got a string ""'),
    ({"mcp__intent__scope": ["a"]}, 'mcp.intent.scope must be a string or an object, got an array ["a"]'),
    ({"payload": "x" * 200}, 'payload must be an object, got a string "' + "x" * 76 + "..."),  # 80 characters
])
def test_the_message_names_the_path_the_accepted_forms_and_the_value_found(changes: dict[str, Any],
                                                                          message: str) -> None:
    [violation] = check_schema(_packet(**changes))
    assert violation.message == message
    found = message.rsplit("got ", 1)[-1]
    assert len(found.removeprefix("a string ").removeprefix("an integer ").removeprefix("a number ")) <= 80


def test_a_missing_required_field_says_what_it_expects() -> None:
    packet = _packet()
    del packet["mcp"]["routing"]["tools_state"]
    [violation] = check_schema(packet)
    assert violation.message == ("required field mcp.routing.tools_state is missing: expected one of: tools_ok, "
                                 "tools_partial, tools_down")


def test_an_unknown_field_says_which_are_allowed() -> None:
    [violation] = check_schema(_packet(mcp__routing__speed="fast"))
    assert violation.message == "mcp.routing.speed is not an allowed field of mcp.routing: allowed are task_class, " \
                                "tools_state"


# --------------------------------------------------------------------------- every oneOf and enum, audited
def _nodes(node: object, path: str) -> Iterator[tuple[str, object]]:
    """Every node of a rule table with its path (array items as `[0]`)."""
    yield path, node
    if isinstance(node, Obj):
        for name, spec in node.fields.items():
            yield from _nodes(spec.node, f"{path}.{name}" if path else name)
    elif isinstance(node, Arr):
        yield from _nodes(node.items, f"{path}[0]")


def _tables() -> Iterator[tuple[str, object]]:
    yield from _nodes(rules.HEADER, "header")
    yield from _nodes(rules.MCP, "mcp")
    for packet_type, payload in rules.PAYLOADS.items():
        for path, node in _nodes(payload, "payload"):
            yield f"{packet_type}:{path}", node


def _accepted_forms(node: object) -> list[str]:
    """The words each alternative must appear as in a message, from the node's own data."""
    if isinstance(node, Str) and node.enum:
        return list(node.enum)
    if isinstance(node, Str):
        return ["a string"]
    if isinstance(node, Int):
        return ["an integer"] + ([f"{node.minimum}..{node.maximum}"] if node.maximum is not None else [])
    if isinstance(node, Num):
        return ["a number"]
    return ["an object"] if isinstance(node, Obj) else ["an array"]


ONE_OFS = [(path, node) for path, node in _tables() if isinstance(node, OneOf)]
ENUMS = [(path, node) for path, node in _tables() if isinstance(node, Str) and node.enum]


@pytest.mark.parametrize(("where", "node"), ONE_OFS, ids=[p for p, _ in ONE_OFS])
def test_every_one_of_names_each_of_its_alternatives_and_what_was_found(where: str, node: OneOf) -> None:
    for option in node.options:
        for form in _accepted_forms(option):
            assert form in node.expected, (where, form)
    path = where.rsplit(":", maxsplit=1)[-1]
    out: list[Violation] = []
    schema._check(node, True, path, out)  # the interpreter's node check; a boolean is no alternative here
    assert [v.message for v in out] == [f"{path} must be {node.expected}, got a boolean true"]


@pytest.mark.parametrize(("where", "node"), ENUMS, ids=[p for p, _ in ENUMS])
def test_every_enum_lists_all_its_members_and_the_value_found(where: str, node: Str) -> None:
    path = where.rsplit(":", maxsplit=1)[-1]
    out: list[Violation] = []
    schema._check(node, "NOT_A_MEMBER", path, out)
    assert [v.message for v in out] == [f"{path} must be one of: {', '.join(node.enum)}; got a string "
                                        '"NOT_A_MEMBER"']
