"""OMEN packet dict <-> `omega.omen.Packet` Avro datum; the payload branch is chosen by packet_type."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from streams.wire.avro_json import EXTRAS, JSON_NODE, ConversionError, Node, RecordNode, compile_schema

PACKET_SCHEMA = "omega.omen.Packet"
PACKET_AS_SENT_SCHEMA = "omega.omen.PacketAsSent"  # an attributable packet Packet cannot carry: its JSON as sent
_NS = "omega.omen."


def payload_record_name(packet_type: str) -> str:
    """Full Avro name of the payload record for a packet type."""
    stem = "ToolAuthorization" if packet_type == "ToolAuthorizationToken" else packet_type.removesuffix("Packet")
    return f"{_NS}{stem}Payload"


class PacketConverter:
    """Compiled once from the parsed Packet schema; converts in both directions losslessly."""

    def __init__(self, parsed_packet_schema: Mapping[str, Any]) -> None:
        named = parsed_packet_schema["__named_schemas"]
        self.packet_types: tuple[str, ...] = tuple(named[f"{_NS}PacketType"]["symbols"])
        self._header = _record(parsed_packet_schema, f"{_NS}PacketHeader")
        self._mcp = _record(parsed_packet_schema, f"{_NS}Mcp")
        self._payloads = {t: _record(parsed_packet_schema, payload_record_name(t)) for t in self.packet_types}
        self._top_level = frozenset({"header", "mcp", "payload"})

    def to_avro(self, packet: object) -> dict[str, object]:
        """Packet dict -> Avro datum (payload as a `(record name, datum)` union branch)."""
        if not isinstance(packet, dict):
            raise ConversionError("NOT_AN_OBJECT", "", f"a packet is a JSON object, got {type(packet).__name__}")
        header = packet.get("header")
        if not isinstance(header, dict):
            raise ConversionError("MISSING_IDENTITY", "header", "packet has no header object")
        for key in ("packet_id", "packet_type", "correlation_id"):
            if not isinstance(header.get(key), str):
                raise ConversionError("MISSING_IDENTITY", f"header.{key}", "identity field missing or not a string")
        packet_type = header["packet_type"]
        if packet_type not in self._payloads:
            raise ConversionError("UNKNOWN_PACKET_TYPE", "header.packet_type", f"unknown packet type {packet_type!r}")
        datum: dict[str, object] = {"header": self._header.to_avro(header, "header"), "mcp": None, "payload": None}
        if "mcp" in packet:
            datum["mcp"] = (f"{_NS}Mcp", self._mcp.to_avro(packet["mcp"], "mcp"))
        if "payload" in packet:
            node = self._payloads[packet_type]
            datum["payload"] = (payload_record_name(packet_type), node.to_avro(packet["payload"], "payload"))
        unknown = {k: JSON_NODE.to_avro(v, k) for k, v in packet.items() if k not in self._top_level}
        datum[EXTRAS] = unknown or None
        return datum

    def from_avro(self, datum: Mapping[str, Any]) -> dict[str, object]:
        """Avro datum -> the packet dict the producer sent."""
        header = self._header.from_avro(datum["header"])
        packet: dict[str, object] = {"header": header}
        mcp = datum.get("mcp")
        if mcp is not None:
            packet["mcp"] = self._mcp.from_avro(mcp[1] if isinstance(mcp, tuple) else mcp)
        payload = datum.get("payload")
        if payload is not None:
            if isinstance(payload, tuple):  # written in tuple notation and read back unresolved
                payload = payload[1]
            packet["payload"] = self._payloads[datum["header"]["packet_type"]].from_avro(payload)
        for key, text in (datum.get(EXTRAS) or {}).items():
            packet[key] = JSON_NODE.from_avro(text)
        return packet


def _record(parsed: Mapping[str, Any], name: str) -> Node:
    node = compile_schema({**parsed["__named_schemas"][name], "__named_schemas": parsed["__named_schemas"]})
    assert isinstance(node, RecordNode)
    return node
