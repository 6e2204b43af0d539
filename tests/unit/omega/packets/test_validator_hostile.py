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
