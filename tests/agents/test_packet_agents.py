"""The Faust agents, driven with faust's documented `agent.test_context()` and an in-memory table store.

Every topic's `send` is replaced by an AsyncMock, so what the agents send is captured as the producer
would see it (key bytes, Avro value bytes, timestamp in seconds); the episodes table's changelog writes
are spied on, since Faust persists a table change only through `table[key] = value`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any
from unittest.mock import MagicMock, patch

import structlog

from streams.stages.base import Source
from streams.stages.episodes import judgement_key
from streams.topics import DEAD_LETTERS, PACKETS, PACKETS_JSON, VERDICTS
from streams.wire.codec import SchemaRegistry
from streams.wire.omen_avro import PACKET_SCHEMA, PacketConverter
from streams.worker.app import OmegaApp
from tests.agents.support import agent_of, all_sends, sends, settle
from tests.factories import packet as factory_packet

REGISTRY = SchemaRegistry.from_directory()
CONVERTER = PacketConverter(REGISTRY.get(PACKET_SCHEMA).parsed)
CREATED_AT_S = datetime(2025, 12, 21, 11, 0, 0, tzinfo=UTC).timestamp()
KAFKA_TS = 1_766_400_000.5  # the fake message's timestamp, seconds


def _avro_packet(packet: dict[str, Any]) -> bytes:
    return REGISTRY.encode(PACKET_SCHEMA, CONVERTER.to_avro(packet))


# ============================================================================ the ingress agent
async def test_ingress_sends_valid_json_as_one_avro_packets_record_keyed_by_correlation_id(omega: OmegaApp) -> None:
    packet = factory_packet(0, 1)
    async with agent_of(omega, "ingress").test_context() as agent:
        await agent.put(json.dumps(packet).encode(), key=b"whatever-the-producer-chose", timestamp=KAFKA_TS)
        await settle(lambda: bool(all_sends(omega)))

    assert all_sends(omega) == {PACKETS.logical: 1}
    [sent] = sends(omega, PACKETS.logical)
    assert sent["key"] == b"corr_ep00001"
    assert sent["timestamp"] == CREATED_AT_S  # event time, not the source record's time
    assert sent["value"][:10] == b"\xc3\x01" + REGISTRY.get(PACKET_SCHEMA).fingerprint
    name, datum = REGISTRY.decode(sent["value"])
    assert name == PACKET_SCHEMA
    assert CONVERTER.from_avro(datum) == packet


async def test_ingress_sends_malformed_json_as_one_dead_letter_with_the_fake_message_position(
    omega: OmegaApp,
) -> None:
    raw = b'{"header": {"packet_id": '
    async with agent_of(omega, "ingress").test_context() as agent:
        await agent.put(json.dumps(factory_packet(0, 1)).encode(), key=b"k0", timestamp=KAFKA_TS)
        await agent.put(raw, key=b"k1", timestamp=KAFKA_TS)
        await settle(lambda: bool(sends(omega, DEAD_LETTERS.logical)))

    assert all_sends(omega) == {PACKETS.logical: 1, DEAD_LETTERS.logical: 1}
    [sent] = sends(omega, DEAD_LETTERS.logical)
    topic = f"{omega.settings.topic_prefix}{PACKETS_JSON.name}"
    assert sent["key"] == topic.encode()
    assert sent["timestamp"] == KAFKA_TS
    name, record = REGISTRY.decode(sent["value"])
    assert name == DEAD_LETTERS.value_schema
    assert record["error_class"] == "JSON_SYNTAX"
    assert record["raw"] == raw
    # `_source` read every attribute it needs from the message test_context fabricates
    assert (record["source_topic"], record["source_partition"], record["source_offset"], record["source_key"]) == (
        topic, 0, 1, b"k1")
    assert record["event_time"] == datetime.fromtimestamp(KAFKA_TS, UTC).isoformat()


async def test_ingress_survives_bad_input_and_goes_on(omega: OmegaApp) -> None:
    async with agent_of(omega, "ingress").test_context() as agent:
        for raw in (b"\xff\xfe", b"[]", b"null", json.dumps(factory_packet(1, 1)).encode()):
            await agent.put(raw, key=None, timestamp=KAFKA_TS)
        await settle(lambda: bool(sends(omega, PACKETS.logical)))

    assert all_sends(omega) == {DEAD_LETTERS.logical: 3, PACKETS.logical: 1}
    classes = [REGISTRY.decode(s["value"])[1]["error_class"] for s in sends(omega, DEAD_LETTERS.logical)]
    assert classes == ["INVALID_UTF8", "NOT_AN_OBJECT", "NOT_AN_OBJECT"]


# ============================================================================ the validator agent
@contextmanager
def _changelog_spy(app: OmegaApp) -> Iterator[MagicMock]:
    table = app.episodes
    with patch.object(table, "send_changelog", wraps=table.send_changelog) as spy:
        yield spy


async def test_validator_sends_one_verdict_and_reassigns_the_episode_entry_with_the_ledger(omega: OmegaApp) -> None:
    raw = _avro_packet(factory_packet(0, 1))
    with _changelog_spy(omega) as changelog:
        async with agent_of(omega, "validator").test_context() as agent:
            await agent.put(raw, key=b"corr_ep00001", timestamp=KAFKA_TS)
            await settle(lambda: bool(all_sends(omega)))
            stored = omega.episodes["corr_ep00001"]

    assert all_sends(omega) == {VERDICTS.logical: 1}
    [sent] = sends(omega, VERDICTS.logical)
    assert sent["key"] == b"corr_ep00001"
    assert sent["timestamp"] == CREATED_AT_S
    name, verdict = REGISTRY.decode(sent["value"])
    assert name == VERDICTS.value_schema
    assert (verdict["packet_id"], verdict["status"]) == ("pkt_00001_000000", "ACCEPTED")

    expected_ledger, [expected_verdict] = omega.packet_stage.packet(None, raw, Source("x", 0, 0))
    assert expected_ledger is not None
    assert sent["value"] == expected_verdict.value  # the agent is the pipeline stage, nothing more
    # the ledger, and the input position (partition, offset) of the packet it applied last
    assert stored == (ledger_form := {**expected_ledger.to_dict(judgements=False), "at": [0, 0]})
    judgement = [0, expected_ledger.applied["pkt_00001_000000"].to_list()]
    assert omega.episodes[judgement_key("corr_ep00001", "pkt_00001_000000")] == judgement
    # assigned (one changelog record each), never mutated in place: the judgement first, then the ledger
    assert [w.args[1:] for w in changelog.call_args_list] == [
        (judgement_key("corr_ep00001", "pkt_00001_000000"), judgement),
        ("corr_ep00001", ledger_form)]


async def test_validator_reassigns_the_entry_for_each_new_packet_and_not_for_a_redelivery(omega: OmegaApp) -> None:
    first, second = _avro_packet(factory_packet(0, 1)), _avro_packet(factory_packet(1, 1, "BeliefUpdatePacket"))
    with _changelog_spy(omega) as changelog:
        async with agent_of(omega, "validator").test_context() as agent:
            for raw in (first, second, first):
                await agent.put(raw, key=b"corr_ep00001", timestamp=KAFKA_TS)
            await settle(lambda: len(sends(omega, VERDICTS.logical)) == 3)
            stored = omega.episodes["corr_ep00001"]

    verdicts = [s["value"] for s in sends(omega, VERDICTS.logical)]
    assert verdicts[2] == verdicts[0]  # the redelivery re-emits the same verdict, byte for byte
    assert len(changelog.call_args_list) == 4  # a judgement and the ledger per new packet; nothing on redelivery
    assert (stored["accepted"], stored["judged"]) == (2, 2)
    assert [w.args[1] for w in changelog.call_args_list[::2]] == [
        judgement_key("corr_ep00001", "pkt_00001_000000"), judgement_key("corr_ep00001", "pkt_00001_000001")]
    assert changelog.call_args_list[-1].args[2] == stored


async def test_validator_keeps_episodes_apart_by_key(omega: OmegaApp) -> None:
    async with agent_of(omega, "validator").test_context() as agent:
        await agent.put(_avro_packet(factory_packet(0, 1)), key=b"corr_ep00001", timestamp=KAFKA_TS)
        await agent.put(_avro_packet(factory_packet(0, 2)), key=b"corr_ep00002", timestamp=KAFKA_TS)
        await settle(lambda: len(sends(omega, VERDICTS.logical)) == 2)
        keys = sorted(omega.episodes.keys())

    assert [s["key"] for s in sends(omega, VERDICTS.logical)] == [b"corr_ep00001", b"corr_ep00002"]
    assert keys == ["corr_ep00001", judgement_key("corr_ep00001", "pkt_00001_000000"),
                    "corr_ep00002", judgement_key("corr_ep00002", "pkt_00002_000000")]


async def test_validator_sends_undecodable_bytes_to_dead_letters_and_leaves_the_table_alone(omega: OmegaApp) -> None:
    with _changelog_spy(omega) as changelog:
        async with agent_of(omega, "validator").test_context() as agent:
            await agent.put(b'{"json": "on the avro topic"}', key=b"corr_ep00009", timestamp=KAFKA_TS)
            await settle(lambda: bool(all_sends(omega)))
            assert omega.episodes.get("corr_ep00009") is None

    assert all_sends(omega) == {DEAD_LETTERS.logical: 1}
    record = REGISTRY.decode(sends(omega, DEAD_LETTERS.logical)[0]["value"])[1]
    assert record["error_class"] == "NOT_SINGLE_OBJECT"
    assert record["source_topic"] == f"{omega.settings.topic_prefix}{PACKETS.name}"
    assert changelog.call_count == 0


async def test_an_unexpected_stage_error_becomes_an_internal_dead_letter_and_the_agent_goes_on(
    omega: OmegaApp,
) -> None:
    real = omega.packet_stage.judge
    calls = {"n": 0}

    def flaky(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError("boom")
        return real(*args, **kwargs)

    with patch.object(omega.packet_stage, "judge", side_effect=flaky):
        async with agent_of(omega, "validator").test_context() as agent:
            await agent.put(_avro_packet(factory_packet(0, 1)), key=b"corr_ep00001", timestamp=KAFKA_TS)
            await agent.put(_avro_packet(factory_packet(1, 1)), key=b"corr_ep00001", timestamp=KAFKA_TS)
            await settle(lambda: bool(sends(omega, VERDICTS.logical)))

    assert all_sends(omega) == {DEAD_LETTERS.logical: 1, VERDICTS.logical: 1}
    record = REGISTRY.decode(sends(omega, DEAD_LETTERS.logical)[0]["value"])[1]
    assert (record["error_class"], record["reason"], record["source_offset"]) == ("INTERNAL", "RuntimeError: boom", 0)


async def test_the_log_context_is_each_records_own_so_a_tick_does_not_log_under_the_packet_before_it(
    omega: OmegaApp,
) -> None:
    seen: list[dict[str, Any]] = []
    real_read = omega.packet_stage.read

    def read(*args: Any, **kwargs: Any) -> Any:  # once per record, a packet's or a tick's
        seen.append(structlog.contextvars.get_contextvars())
        return real_read(*args, **kwargs)

    tick = omega.packet_stage.encode_tick(0, 1_766_400_000_000)
    with patch.object(omega.packet_stage, "read", side_effect=read):
        async with agent_of(omega, "validator").test_context() as agent:
            await agent.put(_avro_packet(factory_packet(0, 1)), key=b"corr_ep00001", timestamp=KAFKA_TS)
            await agent.put(tick, key=b"__watermark__", timestamp=KAFKA_TS)
            await settle(lambda: len(seen) == 2)

    assert seen == [{"correlation_id": "corr_ep00001"}, {}]


# ============================================================================ the tables' changelogs
def test_tables_rewritten_whole_get_changelog_segments_small_enough_to_compact(omega: OmegaApp) -> None:
    """A restarted worker re-reads its partitions' changelog; with the broker's 1 GB default segment the
    cleaner never compacted it, and the 100,000-packet crash test's restarts took up to 2 minutes."""
    for table in (omega.episodes, omega.sessions):
        config = table.changelog_topic.config
        assert config["segment.bytes"] <= 64 * 1024 * 1024
        assert table.changelog_topic.compacting
