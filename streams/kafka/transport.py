"""Faust's aiokafka transport with a worker consumer that long-polls for at most `fetch_max_wait_ms` and lets
the agents process every input record in offset order (streams/kafka/input_order.py).

Faust builds its worker consumer with a fixed `fetch_max_wait_ms=1500`. aiokafka leaves a partition whose
fetched records are still being processed out of the next fetch request, and sends no second request to a
broker while one is in flight: that request, holding only idle partitions (standby changelogs, quiet
topics), waits the whole 1.5 s on the broker while new packets pile up on the busy partition. At 1,000
packets/s over two workers this put 1.5 s stalls into the verdict latency. A short wait bounds that stall;
an idle worker then sends a few more (empty) fetches a second.

Before it commits, Faust flushes its producer, but its table-write buffer only for as long as a write leaves it
every 0.1 s (`ProducerBuffer.flush_atmost`): under load it gives up with writes still queued, and a worker killed
right after the commit has committed past packets whose ledger and judgements never reached the changelog. Its
successor then judges the next packets against an older ledger. `drain_table_writes` waits until none is left.
"""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict
from collections.abc import Mapping
from typing import Any

import structlog
from faust.transport.drivers import aiokafka as faust_aiokafka
from faust.types import TP

from streams.kafka.input_order import InputOrder, Seen
from streams.kafka.offset_probe import OffsetProbe

log = structlog.get_logger("omega.transport")
# Faust's recovery seeks within broker_request_timeout (90 s by default) of resuming the partitions; records held
# twice as long mean that seek failed
HOLD_LIMIT_SECONDS = 180.0


class _NothingRead(defaultdict[TP, int | None]):
    """Faust's per-partition "read offset", which its fetch loop consults to drop records below it: always None
    when consulted, so no record is dropped there (InputOrder knows which ones were processed)."""

    def __getitem__(self, key: TP) -> int | None:
        return None


async def admitted(consumer: Any, message: Any) -> bool:
    """Whether an agent should process `message` now (always, for a consumer that does not track the order)."""
    admit = getattr(consumer, "admit", None)
    return True if admit is None else bool(await admit(message))


async def drain_table_writes(producer: Any, pause: float = 0.01) -> None:
    """Wait until every table write Faust buffered is handed to the client, then until the client has sent it all
    (at-least-once: an offset is committed only once the state its records produced is in the changelog)."""
    buffer = producer.buffer
    while buffer.size:
        # returns after 0.1 s in which no write left the buffer (e.g. the client's own buffer is full)
        await buffer.flush_atmost(None)
        if buffer.size:
            await asyncio.sleep(pause)
    await producer.flush()


def transport_class(fetch_max_wait_ms: int, probe: OffsetProbe,
                    fetch_min_bytes: int = 1) -> type[faust_aiokafka.Transport]:
    """The aiokafka transport class whose worker consumer long-polls for at most `fetch_max_wait_ms` (less when
    `fetch_min_bytes` are there) and asks `probe` what is stored where a record was passed over."""

    class ConsumerThread(faust_aiokafka.AIOKafkaConsumerThread):
        def _create_worker_consumer(self, transport: Any) -> Any:
            consumer = super()._create_worker_consumer(transport)
            # Read by aiokafka's fetcher when the consumer starts; no public setting (Faust passes 1500).
            consumer._fetch_max_wait_ms = fetch_max_wait_ms  # noqa: SLF001
            consumer._fetch_min_bytes = fetch_min_bytes  # noqa: SLF001
            # An aborted transaction's packets were never published: not judged (Faust reads uncommitted unless
            # it runs exactly-once itself). Our own topics are not transactional, so this changes nothing there.
            consumer._isolation_level = "read_committed"  # noqa: SLF001
            return consumer

    class Consumer(faust_aiokafka.Consumer):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.order = InputOrder()
            # read by the worker's /metrics; input_held: records delivered between an assignment and its seek
            self.order_events = {"input_rewound": 0, "input_gap": 0, "input_held": 0}
            self.probe = probe
            self._read_offset = _NothingRead(lambda: None)

        def _new_consumer_thread(self) -> faust_aiokafka.AIOKafkaConsumerThread:
            return ConsumerThread(self, loop=self.loop, beacon=self.beacon)

        async def on_stop(self) -> None:
            await super().on_stop()
            await self.probe.close()

        async def on_partitions_assigned(self, assigned: set[TP], generation_id: int = 0) -> None:
            self.order.hold()  # until perform_seek: Faust's recovery resumes the partitions before it seeks them
            await super().on_partitions_assigned(assigned, generation_id)

        async def perform_seek(self) -> None:
            await super().perform_seek()
            self.order.reset(dict(self._committed_offset))

        async def _commit(self, offsets: Mapping[TP, int]) -> bool:
            if self.order.held:  # nothing was processed in this assignment yet: its committed offsets stand
                return False
            await drain_table_writes(self.app.producer)
            return bool(await super()._commit(self.order.clamp(offsets)))

        async def admit(self, message: Any) -> bool:
            """Whether `message` is its partition's next record; on one past it, read the partition again from
            the first record stored at or after the expected offset, unless that is this one."""
            tp, offset = message.tp, message.offset
            seen = self.order.see(tp, offset)
            if seen is Seen.HELD:
                self.order_events["input_held"] += 1
                if self.order.hold_overdue(time.monotonic(), HOLD_LIMIT_SECONDS):
                    # the recovery's seek never came (it timed out): seek ourselves rather than hold for ever
                    log.warning("input_hold_overdue", topic=tp.topic, partition=tp.partition, offset=offset)
                    await self.perform_seek()
                return False
            if seen is Seen.UNPLACED:
                self.order.start_at(tp, await self._reading_start(tp, offset))
                seen = self.order.see(tp, offset)
            while seen is Seen.AHEAD:
                target = self.order.rewind_to(tp, time.monotonic())
                if target is None:
                    return False
                stored = await self.probe.first_at_or_after(tp.topic, tp.partition, target)
                if stored is None or stored <= target:
                    log.warning("input_rewound", topic=tp.topic, partition=tp.partition, expected=target, got=offset)
                    self.order_events["input_rewound"] += 1
                    await self.seek(tp, target)
                    return False
                # nothing stored from target on (transaction markers, compaction, retention); this record is
                # stored, whatever the probe found (so a probe answer past it cannot skip it)
                log.info("input_gap", topic=tp.topic, partition=tp.partition, expected=target, next=stored)
                self.order_events["input_gap"] += 1
                self.order.start_at(tp, min(stored, offset))
                seen = self.order.see(tp, offset)
            return seen is Seen.NEXT

        async def _reading_start(self, tp: TP, first_read: int) -> int:
            """Where reading of `tp`, which has no committed offset, began: the log's start under the "earliest"
            reset policy (so a first record passed over is not missed); else the first record read."""
            if self.app.conf.consumer_auto_offset_reset != "earliest":
                return first_read
            return (await self.earliest_offsets(tp)).get(tp, first_read)

    class Transport(faust_aiokafka.Transport):
        pass

    Transport.Consumer = Consumer
    return Transport
