"""Whole packets: header + MCP + the payload of one type (PacketBase.schema.json), and an optional `_auth`
signature (omega.packets.authenticity; PacketBase admits `_`-prefixed top-level metadata)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from pydantic import Field, model_validator

from omega.canonical import canonical_json
from omega.producer.designed import IntegrityAlertPayload, QueueUpdatePayload, VerificationPlanPayload
from omega.producer.mcp import Header, Mcp
from omega.producer.payloads import (
    BeliefUpdatePayload,
    DecisionPayload,
    EscalationPayload,
    ObservationPayload,
    TaskDirectivePayload,
    TaskResultPayload,
    ToolAuthorizationPayload,
)
from omega.producer.types import Closed, NonEmptyStr, PacketType


class Auth(Closed):
    """A packet signature: `{"alg", "key_id", "sig"}` as `omega.packets.authenticity.sign` writes it."""

    alg: NonEmptyStr
    key_id: NonEmptyStr
    sig: NonEmptyStr


class PacketModel(Closed):
    """What every packet has; the subclasses fix the payload type and `header.packet_type`."""

    PACKET_TYPE: ClassVar[PacketType]
    header: Header
    mcp: Mcp
    auth: Auth | None = Field(default=None, alias="_auth")

    @model_validator(mode="after")
    def _typed_header(self) -> PacketModel:
        if self.header.packet_type != self.PACKET_TYPE:
            raise ValueError(f"header.packet_type is {self.header.packet_type}, expected {self.PACKET_TYPE}")
        return self

    def to_json_text(self) -> str:
        """The packet as one line of canonical JSON (sorted keys; a JSONL line without its newline)."""
        return canonical_json(self.to_json())


class ObservationPacket(PacketModel):
    """An ObservationPacket."""

    PACKET_TYPE = "ObservationPacket"
    payload: ObservationPayload


class BeliefUpdatePacket(PacketModel):
    """A BeliefUpdatePacket."""

    PACKET_TYPE = "BeliefUpdatePacket"
    payload: BeliefUpdatePayload


class DecisionPacket(PacketModel):
    """A DecisionPacket."""

    PACKET_TYPE = "DecisionPacket"
    payload: DecisionPayload


class VerificationPlanPacket(PacketModel):
    """A VerificationPlanPacket."""

    PACKET_TYPE = "VerificationPlanPacket"
    payload: VerificationPlanPayload


class ToolAuthorizationToken(PacketModel):
    """A ToolAuthorizationToken."""

    PACKET_TYPE = "ToolAuthorizationToken"
    payload: ToolAuthorizationPayload


class TaskDirectivePacket(PacketModel):
    """A TaskDirectivePacket."""

    PACKET_TYPE = "TaskDirectivePacket"
    payload: TaskDirectivePayload


class TaskResultPacket(PacketModel):
    """A TaskResultPacket."""

    PACKET_TYPE = "TaskResultPacket"
    payload: TaskResultPayload


class EscalationPacket(PacketModel):
    """An EscalationPacket."""

    PACKET_TYPE = "EscalationPacket"
    payload: EscalationPayload


class IntegrityAlertPacket(PacketModel):
    """An IntegrityAlertPacket."""

    PACKET_TYPE = "IntegrityAlertPacket"
    payload: IntegrityAlertPayload


class QueueUpdatePacket(PacketModel):
    """A QueueUpdatePacket."""

    PACKET_TYPE = "QueueUpdatePacket"
    payload: QueueUpdatePayload


Payload = (
    ObservationPayload | BeliefUpdatePayload | DecisionPayload | VerificationPlanPayload | ToolAuthorizationPayload
    | TaskDirectivePayload | TaskResultPayload | EscalationPayload | IntegrityAlertPayload | QueueUpdatePayload
)
PACKET_MODELS: dict[str, type[PacketModel]] = {
    model.PACKET_TYPE: model for model in (
        ObservationPacket, BeliefUpdatePacket, DecisionPacket, VerificationPlanPacket, ToolAuthorizationToken,
        TaskDirectivePacket, TaskResultPacket, EscalationPacket, IntegrityAlertPacket, QueueUpdatePacket)
}
"""Each packet type's model, in the order of OMEN.md §9.3."""
PAYLOAD_TYPES: dict[type[Any], str] = {
    ObservationPayload: "ObservationPacket", BeliefUpdatePayload: "BeliefUpdatePacket",
    DecisionPayload: "DecisionPacket", VerificationPlanPayload: "VerificationPlanPacket",
    ToolAuthorizationPayload: "ToolAuthorizationToken", TaskDirectivePayload: "TaskDirectivePacket",
    TaskResultPayload: "TaskResultPacket", EscalationPayload: "EscalationPacket",
    IntegrityAlertPayload: "IntegrityAlertPacket", QueueUpdatePayload: "QueueUpdatePacket",
}
"""The packet type each payload model belongs to."""


def packet_of(data: dict[str, Any]) -> PacketModel:
    """A packet model read back from its JSON object (the type from `header.packet_type`)."""
    header = data.get("header")
    kind = header.get("packet_type") if isinstance(header, dict) else None
    model = PACKET_MODELS.get(kind) if isinstance(kind, str) else None
    if model is None:
        raise ValueError(f"unknown header.packet_type {kind!r}")
    # through JSON text: strict models read timestamps from JSON strings, never from Python strings
    return model.model_validate_json(canonical_json(data))


def to_jsonl(packets: Iterable[PacketModel]) -> str:
    """The packets as JSONL text, one canonical JSON object a line (what `omega replay` and `omega publish` read)."""
    return "".join(packet.to_json_text() + "\n" for packet in packets)
