"""Faust's aiokafka transport with a worker consumer that long-polls for at most `fetch_max_wait_ms`.

Faust builds its worker consumer with a fixed `fetch_max_wait_ms=1500`. aiokafka leaves a partition whose
fetched records are still being processed out of the next fetch request, and sends no second request to a
broker while one is in flight: that request, holding only idle partitions (standby changelogs, quiet
topics), waits the whole 1.5 s on the broker while new packets pile up on the busy partition. At 1,000
packets/s over two workers this put 1.5 s stalls into the verdict latency. A short wait bounds that stall;
an idle worker then sends a few more (empty) fetches a second.
"""

from __future__ import annotations

from typing import Any

from faust.transport.drivers import aiokafka as faust_aiokafka


def transport_class(fetch_max_wait_ms: int) -> type[faust_aiokafka.Transport]:
    """The aiokafka transport class whose worker consumer long-polls for at most `fetch_max_wait_ms`."""

    class ConsumerThread(faust_aiokafka.AIOKafkaConsumerThread):
        def _create_worker_consumer(self, transport: Any) -> Any:
            consumer = super()._create_worker_consumer(transport)
            # Read by aiokafka's fetcher when the consumer starts; no public setting (Faust passes 1500).
            consumer._fetch_max_wait_ms = fetch_max_wait_ms  # noqa: SLF001
            return consumer

    class Consumer(faust_aiokafka.Consumer):
        def _new_consumer_thread(self) -> faust_aiokafka.AIOKafkaConsumerThread:
            return ConsumerThread(self, loop=self.loop, beacon=self.beacon)

    class Transport(faust_aiokafka.Transport):
        pass

    Transport.Consumer = Consumer
    return Transport
