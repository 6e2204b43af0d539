"""The agents process each input partition's records in offset order (streams/kafka/input_order.py): a record past
one that was passed over is skipped and the partition read again from the missing one; a record already
processed is not processed twice. Driven with `agent.test_context()`, whose records take offsets 0, 1, 2, ..."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest.mock import AsyncMock, patch

from faust.types import TP

from streams.topics import PACKETS, PACKETS_JSON
from streams.worker.app import OmegaApp
from tests.agents.support import agent_of, sends
from tests.factories import packet as factory_packet


def _json_tp(omega: OmegaApp) -> TP:
    return TP(omega.topics[PACKETS_JSON.logical].get_topic_name(), 0)


@contextmanager
def tracked_from(omega: OmegaApp, earliest: int = 0, committed: int | None = 0,
                 stored: int | None = None) -> Iterator[tuple[Any, TP, AsyncMock]]:
    """The ingress partition tracked from its `committed` offset, the log starting at `earliest`, the first record
    at or after the expected offset being `stored` (None: the probe cannot tell); yields the consumer, the
    partition and its (mocked) seek."""
    consumer, tp = omega.app.consumer, _json_tp(omega)
    consumer.order.reset({tp: committed})
    with patch.object(consumer, "seek", new=AsyncMock()) as seek, \
            patch.object(consumer, "earliest_offsets", new=AsyncMock(return_value={tp: earliest})), \
            patch.object(consumer.probe, "first_at_or_after", new=AsyncMock(return_value=stored)):
        yield consumer, tp, seek


async def test_a_record_past_a_passed_over_one_is_skipped_and_the_partition_read_again(omega: OmegaApp) -> None:
    with tracked_from(omega, stored=1) as (consumer, tp, seek):
        async with agent_of(omega, "ingress").test_context() as agent:
            await agent.put(json.dumps(factory_packet(0, 1)).encode(), key=b"k")  # offset 0
            agent.sent_offset = 2  # offset 1 never reaches the agent
            await agent.put(json.dumps(factory_packet(0, 3)).encode(), key=b"k")
            await agent.put(json.dumps(factory_packet(0, 4)).encode(), key=b"k")

    assert len(sends(omega, PACKETS.logical)) == 1  # only offset 0: nothing judged out of order
    seek.assert_awaited_once_with(tp, 1)  # once: offset 3 is skipped while the rewind is under way
    assert consumer.order.expected[tp] == 1
    assert consumer.order.clamp({tp: 5}) == {tp: 1}  # nothing past the missing record is committed


async def test_records_gone_from_the_log_are_skipped_without_a_rewind(omega: OmegaApp) -> None:
    with tracked_from(omega, stored=2) as (_, _, seek):  # the probe finds 2 first
        async with agent_of(omega, "ingress").test_context() as agent:
            agent.sent_offset = 2  # retention deleted offsets 0 and 1
            await agent.put(json.dumps(factory_packet(0, 1)).encode(), key=b"k")

    assert len(sends(omega, PACKETS.logical)) == 1
    seek.assert_not_awaited()


async def test_a_record_redelivered_after_a_rewind_is_not_processed_twice(omega: OmegaApp) -> None:
    consumer, tp = omega.app.consumer, _json_tp(omega)
    consumer.order.reset({tp: 0})
    async with agent_of(omega, "ingress").test_context() as agent:
        await agent.put(json.dumps(factory_packet(0, 1)).encode(), key=b"k")
        await agent.put(json.dumps(factory_packet(0, 2)).encode(), key=b"k")
        agent.sent_offset = 1  # the partition read again from offset 1
        await agent.put(json.dumps(factory_packet(0, 2)).encode(), key=b"k")
        await agent.put(json.dumps(factory_packet(0, 3)).encode(), key=b"k")

    assert len(sends(omega, PACKETS.logical)) == 3


async def test_without_a_committed_offset_a_first_record_passed_over_is_read_again(omega: OmegaApp) -> None:
    with tracked_from(omega, earliest=0, committed=None, stored=0) as (consumer, tp, seek):
        async with agent_of(omega, "ingress").test_context() as agent:
            agent.sent_offset = 1  # offset 0, where reading began, never reaches the agent
            await agent.put(json.dumps(factory_packet(0, 2)).encode(), key=b"k")

    assert sends(omega, PACKETS.logical) == []
    seek.assert_awaited_once_with(tp, 0)
    assert consumer.order.clamp({tp: 2}) == {tp: 0}


async def test_without_a_committed_offset_reading_starts_at_the_first_record_left(omega: OmegaApp) -> None:
    with tracked_from(omega, earliest=3, committed=None, stored=3) as (consumer, tp, seek):
        async with agent_of(omega, "ingress").test_context() as agent:
            agent.sent_offset = 3
            await agent.put(json.dumps(factory_packet(0, 1)).encode(), key=b"k")

    assert len(sends(omega, PACKETS.logical)) == 1
    seek.assert_not_awaited()
    assert consumer.order.expected[tp] == 4


async def test_offsets_holding_no_record_are_passed_without_a_rewind(omega: OmegaApp) -> None:
    with tracked_from(omega, stored=2) as (consumer, tp, seek):  # offset 1: a transaction's commit marker
        async with agent_of(omega, "ingress").test_context() as agent:
            await agent.put(json.dumps(factory_packet(0, 1)).encode(), key=b"k")
            agent.sent_offset = 2
            await agent.put(json.dumps(factory_packet(0, 2)).encode(), key=b"k")

    assert len(sends(omega, PACKETS.logical)) == 2
    seek.assert_not_awaited()
    assert consumer.order.expected[tp] == 3


async def test_a_gap_before_a_passed_over_record_is_passed_and_the_record_read_again(omega: OmegaApp) -> None:
    with tracked_from(omega) as (consumer, tp, seek):
        consumer.probe.first_at_or_after.side_effect = [2, 2]  # 1 holds nothing, 2 is stored but was passed over
        async with agent_of(omega, "ingress").test_context() as agent:
            await agent.put(json.dumps(factory_packet(0, 1)).encode(), key=b"k")
            agent.sent_offset = 3
            await agent.put(json.dumps(factory_packet(0, 3)).encode(), key=b"k")

    assert len(sends(omega, PACKETS.logical)) == 1
    seek.assert_awaited_once_with(tp, 2)
    assert consumer.order.clamp({tp: 4}) == {tp: 2}


async def test_a_probe_that_cannot_tell_leads_to_a_rewind(omega: OmegaApp) -> None:
    with tracked_from(omega, stored=None) as (_, tp, seek):
        async with agent_of(omega, "ingress").test_context() as agent:
            agent.sent_offset = 1
            await agent.put(json.dumps(factory_packet(0, 2)).encode(), key=b"k")

    assert sends(omega, PACKETS.logical) == []
    seek.assert_awaited_once_with(tp, 0)


async def test_records_between_an_assignment_and_its_seek_are_held_and_nothing_is_committed(omega: OmegaApp) -> None:
    consumer, tp = omega.app.consumer, _json_tp(omega)
    consumer.order.reset({tp: 0})
    consumer.order.hold()  # what on_partitions_assigned does before Faust's recovery resumes and seeks
    with patch("streams.kafka.transport.drain_table_writes", new=AsyncMock()) as drain, \
            patch("faust.transport.drivers.aiokafka.Consumer._commit", new=AsyncMock(return_value=True)) as commit:
        async with agent_of(omega, "ingress").test_context() as agent:
            agent.sent_offset = 6035  # a stale fetch position, past the committed offset
            await agent.put(json.dumps(factory_packet(0, 1)).encode(), key=b"k")
            assert await consumer._commit({tp: 6036}) is False  # the commit Faust would make
            consumer.order.reset({tp: 0})  # the seek to the committed offsets arrives
            agent.sent_offset = 0
            await agent.put(json.dumps(factory_packet(0, 1)).encode(), key=b"k")

    assert len(sends(omega, PACKETS.logical)) == 1  # only the record read from the committed offset
    assert consumer.order_events["input_held"] == 1
    drain.assert_not_awaited()
    commit.assert_not_awaited()


async def test_an_assignment_holds_the_input_order(omega: OmegaApp) -> None:
    consumer = omega.app.consumer
    with patch("faust.transport.consumer.Consumer.on_partitions_assigned", new=AsyncMock()) as faust_assigned:
        await consumer.on_partitions_assigned(set(), 3)
    assert consumer.order.held
    faust_assigned.assert_awaited_once()
