"""The field-spec tables of `omega.packets.schema_rules`, judged through `check_schema`: what the tables built at
import time (by `record`, `open_record`, `req`, `opt`) let through and what they refuse."""

from __future__ import annotations

from omega.packets.schema import check_schema
from omega.violations import Severity, Violation
from tests.factories import packet


def test_an_observation_with_empty_data_is_refused_as_needing_at_least_one_field() -> None:
    """ObservationPacket.schema.json: `payload.data` has `minProperties: 1` (schema-index-v0.7.md: "data (object,
    minProperties: 1)")."""
    empty = packet(0, 1)
    empty["payload"]["data"] = {}
    assert list(check_schema(empty)) == [
        Violation("SCHEMA", Severity.ERROR, "payload.data needs at least 1 field, got 0", "payload.data")]


def test_an_observation_with_one_free_data_field_is_valid() -> None:
    """`data` is open: any one key, declared nowhere, satisfies it."""
    one = packet(0, 1)
    one["payload"]["data"] = {"anything_at_all": [1, "two"]}
    assert list(check_schema(one)) == []
