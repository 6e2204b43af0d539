"""The producer kit's I/O (`omega.producer` is pure): publish packets to Kafka keyed by correlation id, write
them to a JSONL file, and the wall clock an `Episode` stamps live packets with.

Kafka goes to the JSON ingress (`omen.packets.json`, under the topic prefix) as canonical JSON, keyed by
`header.correlation_id`, so an episode's packets meet on one partition in order (the topic contract's key).
aiokafka is imported only when publishing: writing a file or building packets never loads the broker client.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from omega.canonical import canonical_json
from omega.producer.packets import PacketModel
from streams.topics import PACKETS_JSON, topic_name

PacketLike = PacketModel | Mapping[str, Any]
"""A kit packet model, or a packet already dumped to its JSON object (signed ones included)."""


def wall_clock() -> datetime:
    """The current time, aware (UTC): the clock of a live `Episode`."""
    # The core reads event time from the data; a producer *makes* the data, so its clock is the real one.
    return datetime.now(UTC)  # noqa: TID251


def packet_json(packet: PacketLike) -> dict[str, Any]:
    """The packet as a JSON object (a model dumped; a mapping copied)."""
    return packet.to_json() if isinstance(packet, PacketModel) else dict(packet)


def encode(packet: PacketLike) -> tuple[bytes, bytes]:
    """(key, value) of the packet's Kafka record: its correlation id, its canonical JSON (UTF-8).
    ValueError for a packet with no correlation id (it could not be keyed to its episode)."""
    data = packet_json(packet)
    header = data.get("header")
    correlation_id = header.get("correlation_id") if isinstance(header, Mapping) else None
    if not isinstance(correlation_id, str) or not correlation_id:
        raise ValueError("packet has no header.correlation_id to key it by")
    return correlation_id.encode("utf-8"), canonical_json(data).encode("utf-8")


async def publish(packets: Iterable[PacketLike], *, bootstrap: str, topic: str | None = None, prefix: str = "",
                  client_options: Mapping[str, Any] | None = None) -> int:
    """Send the packets, in order, to `topic` (default: the JSON ingress under `prefix`), each keyed by its
    correlation id; returns how many were sent. ValueError, before anything is sent, for a packet with no
    correlation id. `client_options`: aiokafka security options (default: the OMEGA_KAFKA_* environment)."""
    records = [encode(packet) for packet in packets]  # all keyed before the first send: no half-published batch
    from streams.kafka.clients import publish_records  # lazily: aiokafka loads only when publishing

    sent, _ = await publish_records(records, lambda record: record, topic or topic_name(PACKETS_JSON, prefix),
                                    bootstrap, client_options=client_options)
    return sent


def write_jsonl(packets: Iterable[PacketLike], path: Path | str, *, append: bool = False) -> int:
    """Write the packets to `path`, one canonical JSON object a line (what `omega replay` and `omega publish`
    read); returns how many were written."""
    lines = [canonical_json(packet_json(packet)) + "\n" for packet in packets]
    with Path(path).open("a" if append else "w", encoding="utf-8") as out:
        out.writelines(lines)
    return len(lines)
