"""The packet validator's `evolve` over schema-valid but semantically wild packets: any packet the Avro contract
carries (a valid packet with any one value replaced by any JSON value, kept when it still converts) is judged,
never raised on, and judged again identically when redelivered."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from omega.packets.validator import evolve, evolve_single
from streams.wire.avro_json import ConversionError
from streams.wire.codec import SchemaRegistry
from streams.wire.omen_avro import PACKET_SCHEMA, PacketConverter
from tests.hostile import leaf_paths, replaced, wild_json
from tests.omen_strategies import valid_packets

REGISTRY = SchemaRegistry.from_directory()
CONVERTER = PacketConverter(REGISTRY.get(PACKET_SCHEMA).parsed)
PROPERTY = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def wild_packets(draw: st.DrawFn) -> dict[str, Any]:
    """A packet as the validator receives it (through Avro and back), with one value replaced by a wild one."""
    packet = draw(valid_packets())
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(leaf_paths(packet)))
        candidate = replaced(packet, path, draw(wild_json()))
        try:
            datum = CONVERTER.to_avro(candidate)
        except ConversionError:
            continue  # not schema-valid: the ingress dead-letters it, the core never sees it
        packet = CONVERTER.from_avro(REGISTRY.decode(REGISTRY.encode(PACKET_SCHEMA, datum))[1])
    return packet


@PROPERTY
@given(st.lists(wild_packets(), min_size=1, max_size=4))
def test_evolve_judges_every_schema_valid_packet_and_a_redelivery_identically(packets: list[dict[str, Any]]) -> None:
    ledger = None
    for packet in packets:
        ledger, outputs = evolve(ledger, packet)
        assert outputs  # at least the verdict
        again, replayed = evolve(ledger, packet)
        assert [o.to_dict() for o in replayed] == [o.to_dict() for o in outputs]
        assert again == ledger
        evolve_single(packet)


@st.composite
def attributable_packets(draw: st.DrawFn) -> dict[str, Any]:
    """What the ingress now hands the validator as sent (issue 41): any JSON object whose identity is readable, from a
    valid packet with values replaced by wild ones (no Avro filter) to a header and arbitrary parts."""
    if draw(st.booleans()):
        packet = draw(valid_packets())
        for _ in range(draw(st.integers(1, 4))):
            packet = replaced(packet, draw(st.sampled_from(leaf_paths(packet))), draw(wild_json()))
    else:
        packet = draw(st.dictionaries(st.sampled_from(["mcp", "payload", "extra"]), wild_json()))
        packet["header"] = draw(st.dictionaries(st.text(max_size=12), wild_json(), max_size=4))
    header = packet.get("header") if isinstance(packet.get("header"), dict) else {}
    packet["header"] = {**header, "packet_id": draw(st.text(max_size=8)), "correlation_id": "corr_x",
                        "packet_type": header.get("packet_type") if isinstance(header.get("packet_type"), str)
                        else draw(st.text(max_size=20))}
    return packet


@PROPERTY
@given(st.lists(attributable_packets(), min_size=1, max_size=4))
def test_evolve_judges_every_attributable_packet_whatever_its_shape(packets: list[dict[str, Any]]) -> None:
    ledger = None
    for packet in packets:
        ledger, outputs = evolve(ledger, packet)
        verdict = outputs[0].to_dict()
        assert verdict["packet_id"] == packet["header"]["packet_id"]
        errors = [v for v in verdict["violations"] if v["severity"] == "ERROR"]
        assert (verdict["status"] == "REJECTED") == bool(errors)
        again, replayed = evolve(ledger, packet)
        assert [o.to_dict() for o in replayed] == [o.to_dict() for o in outputs]
        assert again == ledger
        evolve_single(packet)
