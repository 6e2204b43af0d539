"""The producer kit: typed builders for OMEN v0.7 packets, so agents emit packets the validator accepts.

    types       the shared vocabulary: id patterns, enums, ranges, JSON values (never null), the base models
    mcp         Header and the MCP envelope (Intent, Stakes, Quality, Budgets, Epistemics, Evidence, Routing)
    payloads    the payloads of the seven packet types with a published JSON Schema
    designed    the payloads of VerificationPlanPacket, IntegrityAlertPacket, QueueUpdatePacket (suggestions enforced)
    packets     whole packets (one model per type, optional `_auth`), packet_of, to_jsonl
    episode     Episode: ids, chaining, created_at from an injected clock, layer_source, optional signing

Pure like the rest of the core: no clock, no I/O. Publishing (Kafka, JSONL files) and the wall clock are in
`streams.producer_publish`.
"""

from omega.producer.episode import Episode as Episode
from omega.producer.episode import sequential_ids as sequential_ids
from omega.producer.packets import packet_of as packet_of
from omega.producer.packets import to_jsonl as to_jsonl

__all__ = ["designed", "episode", "mcp", "packets", "payloads", "types"]
