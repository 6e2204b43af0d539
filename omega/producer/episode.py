"""`Episode`: the packets of one correlation id, with their headers filled in.

The episode numbers its packets (ids from an id factory, by default `pkt_<correlation tail>_<n>`), chains
each to the one before (`previous_packet_id`), stamps `created_at` from the clock it is given and sets
`layer_source`. The MCP parts an episode usually keeps (stakes, quality, budgets, routing) are given once
and may be overridden per packet; intent, epistemics and evidence are said for every packet. Nothing is
defaulted silently: every MCP value a packet carries was passed by the caller.

The clock is injected (a callable returning an aware datetime): this package is part of the pure core, which
reads no wall clock; `streams.producer_publish.wall_clock` is the live one. With `signing` (the same
`AuthPolicy` a verifier holds), every packet claiming Layer 1 or Integrity authority is signed by the first
key allowed for all it claims (`omega.packets.authenticity`: `authority_claims`, `sign`).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, Required, TypedDict, TypeVar, Unpack

from pydantic import TypeAdapter

from omega.packets.authenticity import DEFAULT_ALGORITHM, AuthPolicy, authority_claims, sign
from omega.producer.designed import IntegrityAlertPayload, QueueUpdatePayload, VerificationPlanPayload
from omega.producer.mcp import Budgets, Epistemics, Evidence, Header, Intent, Mcp, Quality, Routing, Stakes
from omega.producer.packets import (
    PACKET_MODELS,
    PAYLOAD_TYPES,
    Auth,
    BeliefUpdatePacket,
    DecisionPacket,
    EscalationPacket,
    IntegrityAlertPacket,
    ObservationPacket,
    PacketModel,
    Payload,
    QueueUpdatePacket,
    TaskDirectivePacket,
    TaskResultPacket,
    ToolAuthorizationToken,
    VerificationPlanPacket,
)
from omega.producer.payloads import (
    BeliefUpdatePayload,
    DecisionPayload,
    EscalationPayload,
    ObservationPayload,
    TaskDirectivePayload,
    TaskResultPayload,
    ToolAuthorizationPayload,
)
from omega.producer.types import CampaignId, CorrelationId, Layer

P = TypeVar("P", bound=PacketModel)
Clock = Callable[[], datetime]
IdFactory = Callable[[str, int], str]
"""(correlation id, sequence number from 1) -> packet id."""

_CORRELATION = TypeAdapter(CorrelationId)
_CAMPAIGN = TypeAdapter(CampaignId)


def sequential_ids(correlation_id: str, number: int) -> str:
    """`pkt_<correlation id without corr_>_<number, 4 digits>`: deterministic, unique within the episode."""
    return f"pkt_{correlation_id.removeprefix('corr_')}_{number:04d}"


class PacketContext(TypedDict, total=False):
    """What a packet says beyond its payload: its intent, epistemics and evidence (required), and overrides of
    the episode's stakes, quality, budgets, routing, layer, of the packet id and of the clock's timestamp."""

    intent: Required[Intent]
    epistemics: Required[Epistemics]
    evidence: Required[Evidence]
    stakes: Stakes
    quality: Quality
    budgets: Budgets
    routing: Routing
    layer_source: Layer
    packet_id: str
    created_at: datetime


class Episode:
    """The packets of one episode, built in order; `packets` holds those emitted so far."""

    def __init__(self, correlation_id: str, *, layer_source: Layer, clock: Clock, stakes: Stakes,
                 quality: Quality, budgets: Budgets, routing: Routing, campaign_id: str | None = None,
                 ids: IdFactory = sequential_ids, chain: bool = True, signing: AuthPolicy | None = None,
                 alg: str = DEFAULT_ALGORITHM) -> None:
        self.correlation_id = _CORRELATION.validate_python(correlation_id)
        self.campaign_id = None if campaign_id is None else _CAMPAIGN.validate_python(campaign_id)
        self.layer_source, self.clock, self.ids, self.chain = layer_source, clock, ids, chain
        self.stakes, self.quality, self.budgets, self.routing = stakes, quality, budgets, routing
        self.signing, self.alg = signing, alg
        self._packets: list[PacketModel] = []
        self._ids: set[str] = set()

    @property
    def packets(self) -> tuple[PacketModel, ...]:
        """The packets emitted so far, in emission order."""
        return tuple(self._packets)

    def to_json(self) -> list[dict[str, Any]]:
        """The packets emitted so far as JSON objects."""
        return [packet.to_json() for packet in self._packets]

    # ----------------------------------------------------------------------- one method per packet type
    def observation(self, payload: ObservationPayload, **context: Unpack[PacketContext]) -> ObservationPacket:
        """An ObservationPacket."""
        return self._emit(ObservationPacket, payload, context)

    def belief_update(self, payload: BeliefUpdatePayload, **context: Unpack[PacketContext]) -> BeliefUpdatePacket:
        """A BeliefUpdatePacket."""
        return self._emit(BeliefUpdatePacket, payload, context)

    def decision(self, payload: DecisionPayload, **context: Unpack[PacketContext]) -> DecisionPacket:
        """A DecisionPacket."""
        return self._emit(DecisionPacket, payload, context)

    def verification_plan(self, payload: VerificationPlanPayload,
                          **context: Unpack[PacketContext]) -> VerificationPlanPacket:
        """A VerificationPlanPacket."""
        return self._emit(VerificationPlanPacket, payload, context)

    def tool_authorization(self, payload: ToolAuthorizationPayload,
                           **context: Unpack[PacketContext]) -> ToolAuthorizationToken:
        """A ToolAuthorizationToken (signed when the episode signs and a key may issue for `issuer_layer`)."""
        return self._emit(ToolAuthorizationToken, payload, context)

    def task_directive(self, payload: TaskDirectivePayload, **context: Unpack[PacketContext]) -> TaskDirectivePacket:
        """A TaskDirectivePacket."""
        return self._emit(TaskDirectivePacket, payload, context)

    def task_result(self, payload: TaskResultPayload, **context: Unpack[PacketContext]) -> TaskResultPacket:
        """A TaskResultPacket."""
        return self._emit(TaskResultPacket, payload, context)

    def escalation(self, payload: EscalationPayload, **context: Unpack[PacketContext]) -> EscalationPacket:
        """An EscalationPacket."""
        return self._emit(EscalationPacket, payload, context)

    def integrity_alert(self, payload: IntegrityAlertPayload,
                        **context: Unpack[PacketContext]) -> IntegrityAlertPacket:
        """An IntegrityAlertPacket (it claims Integrity authority whatever its `layer_source`)."""
        return self._emit(IntegrityAlertPacket, payload, context)

    def queue_update(self, payload: QueueUpdatePayload, **context: Unpack[PacketContext]) -> QueueUpdatePacket:
        """A QueueUpdatePacket."""
        return self._emit(QueueUpdatePacket, payload, context)

    def emit(self, payload: Payload, **context: Unpack[PacketContext]) -> PacketModel:
        """A packet of the type `payload` belongs to."""
        return self._emit(PACKET_MODELS[PAYLOAD_TYPES[type(payload)]], payload, context)

    # ----------------------------------------------------------------------- the header, the MCP, the signature
    def _emit(self, model: type[P], payload: Payload, context: PacketContext) -> P:
        packet_id = context.get("packet_id") or self.ids(self.correlation_id, len(self._packets) + 1)
        if packet_id in self._ids:  # the validator would reject the second one as DUPLICATE
            raise ValueError(f"packet id {packet_id} already used in episode {self.correlation_id}")
        previous = self._packets[-1].header.packet_id if self._packets and self.chain else None
        header = Header(packet_id=packet_id, packet_type=model.PACKET_TYPE,
                        created_at=context.get("created_at") or self.clock(),
                        layer_source=context.get("layer_source", self.layer_source),
                        correlation_id=self.correlation_id, campaign_id=self.campaign_id, previous_packet_id=previous)
        mcp = Mcp(intent=context["intent"], stakes=context.get("stakes", self.stakes),
                  quality=context.get("quality", self.quality), budgets=context.get("budgets", self.budgets),
                  epistemics=context["epistemics"], evidence=context["evidence"],
                  routing=context.get("routing", self.routing))
        # the payload is checked against the model's payload type (a DecisionPayload makes no ObservationPacket)
        packet = self._signed(model.model_validate({"header": header, "mcp": mcp, "payload": payload}))
        self._packets.append(packet)
        self._ids.add(packet_id)
        return packet

    def _signed(self, packet: P) -> P:
        """`packet` with its `_auth`, when the episode signs and the packet claims Layer 1 / Integrity authority."""
        if self.signing is None:
            return packet
        raw = packet.to_json()
        claims = authority_claims(raw)
        if not claims:
            return packet
        key_id = next((k for k, key in self.signing.keys.items() if claims <= key.layers), None)
        if key_id is None:  # unsigned, it would be REJECTED (AUTH) by any verifier holding this policy
            raise ValueError(f"no signing key may speak for {sorted(claims)} ({packet.PACKET_TYPE})")
        signed = sign(raw, key_id, self.signing.keys[key_id].secret, alg=self.alg)
        return packet.model_copy(update={"auth": Auth.model_validate(signed["_auth"])})
