"""The episode invariants' module (omega.packets.invariants_episode): the path splitting every rule reads
through, the INV-011 deadline's boundaries, and the exact INV-007 reports (spec:
seeds/omen-cross-policy-invariants-v0.7.md). The rules' broader behaviour is in test_invariants.py."""

from __future__ import annotations

from types import MappingProxyType

import pytest

from omega.packets import invariants_episode
from omega.packets.invariants_episode import directive_deadline_ms, field_at
from omega.violations import Violation
from tests.unit.omega.packets.test_invariants import (
    EMPTY,
    ERROR,
    NOW_MS,
    directive,
    drop,
    judge7,
    token,
    with_tokens,
)

TOKEN_FIELD = "payload.authorization_token_id"
LATEST_MS = 253_402_300_799_000  # 9999-12-31T23:59:59Z, the last instant an ISO timestamp can show


# --------------------------------------------------------------------------- field_at and its path cache
def test_a_path_read_for_the_first_time_is_split_at_its_dots_and_remembered(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(invariants_episode, "_STEPS", {})
    assert field_at({"outer": {"inner": 7}}, "outer.inner") == 7
    assert invariants_episode._STEPS == {"outer.inner": ("outer", "inner")}
    assert field_at({"outer": {"inner": 8}}, "outer.inner") == 8  # read again through the remembered steps


def test_the_path_cache_remembers_up_to_1024_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    """Bounded: a path made from packet content must not grow the table for ever."""
    almost_full = {f"p{i}": (f"p{i}",) for i in range(1023)}
    monkeypatch.setattr(invariants_episode, "_STEPS", almost_full)
    assert field_at({"a": {"b": 1}}, "a.b") == 1
    assert invariants_episode._STEPS["a.b"] == ("a", "b")  # the 1024th path is still remembered
    assert len(invariants_episode._STEPS) == 1024
    assert field_at({"c": {"d": 2}}, "c.d") == 2  # ... but not a 1025th: still read correctly
    assert "c.d" not in invariants_episode._STEPS
    assert len(invariants_episode._STEPS) == 1024


def test_a_remembered_path_is_read_without_splitting_it_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """The rules read the same literal paths on every packet: once remembered, a path is never split again."""
    monkeypatch.setattr(invariants_episode, "_STEPS", {"outer.inner": ("outer", "inner")})

    def refuse(path: str) -> tuple[str, ...]:
        raise AssertionError(f"{path} split again")

    monkeypatch.setattr(invariants_episode, "_steps", refuse)
    assert field_at({"outer": {"inner": 7}}, "outer.inner") == 7


def test_field_at_reads_through_any_mapping_and_stops_at_anything_else() -> None:
    """A packet is a Mapping, not necessarily decoded JSON; a step into a non-mapping gives None, not an error."""
    read_only = MappingProxyType({"outer": MappingProxyType({"inner": 7})})
    assert field_at(read_only, "outer.inner") == 7
    assert field_at({"outer": read_only}, "outer.outer.inner") == 7
    for data in (None, [1], "outer", {"outer": ["inner"]}, {"outer": None}):
        assert field_at(data, "outer.inner") is None


# --------------------------------------------------------------------------- INV-011 deadline boundaries
def test_a_zero_time_budget_is_a_deadline_at_the_issue_time() -> None:
    """A budget of 0 s is given (not absent): the directive is due at once."""
    assert directive_deadline_ms(directive(mcp__budgets__time_budget_seconds=0), NOW_MS) == NOW_MS


def test_a_zero_timeout_without_a_time_budget_is_a_deadline_at_the_issue_time() -> None:
    pkt = drop(directive(payload__timeout_seconds=0), "mcp.budgets.time_budget_seconds")
    assert directive_deadline_ms(pkt, NOW_MS) == NOW_MS


def test_one_retry_doubles_the_directive_timeout() -> None:
    """timeout 60 s x (1 + 1 retry) = 120 s, longer than the 90 s time budget."""
    pkt = directive(payload__timeout_seconds=60, payload__retry_policy={"max_retries": 1})
    assert directive_deadline_ms(pkt, NOW_MS) == NOW_MS + 120_000


def test_a_deadline_one_second_before_the_last_iso_instant_is_kept() -> None:
    """Issued at the epoch (0 ms) with a budget ending at 9999-12-31T23:59:58Z."""
    pkt = directive(mcp__budgets__time_budget_seconds=253_402_300_798)
    assert directive_deadline_ms(pkt, 0) == LATEST_MS - 1000


def test_a_deadline_exactly_at_the_last_iso_instant_is_no_deadline() -> None:
    """Issued at 1970-01-01T00:00:01Z, the same budget ends at 9999-12-31T23:59:59Z itself: not < the last instant."""
    pkt = directive(mcp__budgets__time_budget_seconds=253_402_300_798)
    assert directive_deadline_ms(pkt, 1000) is None


@pytest.mark.parametrize("seconds", [253_402_300_799, 253_402_300_799.5])
def test_a_time_allowance_spanning_the_whole_iso_range_is_no_deadline_even_issued_before_1970(
        seconds: float) -> None:
    """The allowance itself must be shorter than epoch..9999-12-31T23:59:59Z; a packet issued at
    1969-12-31T23:59:59Z (-1000 ms) would otherwise end just inside year 9999."""
    pkt = directive(mcp__budgets__time_budget_seconds=seconds)
    assert directive_deadline_ms(pkt, -1000) is None


# --------------------------------------------------------------------------- INV-007 reports
@pytest.mark.parametrize("token_id", ["", 7])
def test_inv007_an_empty_or_non_string_token_id_is_no_token_id(token_id: object) -> None:
    found = judge7(directive(payload__authorization_token_id=token_id), EMPTY)
    assert found == [Violation("INV-007", ERROR, "INV-007: WRITE directive has no authorization_token_id", TOKEN_FIELD)]


def test_inv007_a_revoked_token_is_reported_on_the_token_id() -> None:
    found = judge7(directive(), with_tokens(token(revoked=True)))
    assert found == [Violation("INV-007", ERROR, "INV-007: token token_a is revoked", TOKEN_FIELD)]


def test_inv007_an_exhausted_token_is_reported_on_the_token_id() -> None:
    found = judge7(directive(), with_tokens(token(usage_count=2, max_usage_count=2)))
    assert found == [Violation("INV-007", ERROR, "INV-007: token token_a usage exhausted (2 of 2)", TOKEN_FIELD)]


def test_inv007_an_unparseable_expiry_is_reported_on_the_token_id() -> None:
    found = judge7(directive(), with_tokens(token(expiry="soon", expiry_ms=None)))
    assert found == [Violation("INV-007", ERROR, "INV-007: token token_a expiry 'soon' is unparseable "
                               "(treated as expired)", TOKEN_FIELD)]


def test_inv007_a_mixed_directive_names_every_operation_the_token_lacks() -> None:
    pkt = directive(payload__tool_safety_class="MIXED", payload__execution_method__tool_params={})
    found = judge7(pkt, with_tokens(token(operation_types=("delete",))))
    assert found == [Violation("INV-007", ERROR, "INV-007: operation read, write not in token token_a "
                               "operation_types ['delete']", "payload.tool_safety_class")]


def test_inv007_tool_params_in_any_mapping_are_judged() -> None:
    """A packet is a Mapping, not necessarily decoded JSON: a read-only mapping's operation still counts."""
    pkt = directive(payload__execution_method__tool_params=MappingProxyType({"operation": "delete"}))
    found = judge7(pkt, with_tokens(token()))
    assert found == [Violation("INV-007", ERROR, "INV-007: operation delete not in token token_a operation_types "
                               "['write']", "payload.execution_method.tool_params.operation")]


@pytest.mark.parametrize("bound", [{"at_most": 100}, None, True])
def test_inv007_a_constraint_of_no_stated_shape_is_not_judged_even_on_a_set_parameter(bound: object) -> None:
    """Numbers, lists and strings have a meaning; any other constraint value is not judged (max_isk is 500)."""
    assert judge7(directive(), with_tokens(token(resource_constraints={"max_isk": bound}))) == []
