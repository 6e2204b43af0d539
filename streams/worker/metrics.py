"""What on-call reads of a live worker (issue 23): Prometheus metrics on `/metrics`, liveness on `/healthz` and
readiness on `/ready`, served by Faust's own web server on `OMEGA_WEB_PORT` (0, the default: no server, so that
several workers share a host without a port each).

Counters move in the agent loop (`observe`, one call per input record: its topic, its outputs, the time from
the record's arrival at the agent to its outputs handed to the producer); what a scrape needs from Faust (lag
per input partition, table recovery, the input-order rewinds and gaps of streams/kafka/transport.py, table
sizes, the packets waiting under a lateness of worker/idle_release.py) is read when scraped (`refresh`), so the
hot path pays a few counter increments and nothing else.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram, generate_latest

from streams.stages.base import Emit
from streams.stages.keyed import KeyedTable
from streams.topics import ALERTS, DEAD_LETTERS, ESCALATIONS, VERDICTS
from streams.worker.idle_release import PartitionWait
from streams.worker.watchdog import Progress, input_topics, look

# Prometheus's text format; aiohttp (Faust's web driver) refuses a charset in the content type and adds its own
CONTENT_TYPE = CONTENT_TYPE_LATEST.split(";", 1)[0] + "; version=0.0.4"
# event in -> outputs sent: a worker judges in under a millisecond, Kafka and the loop add up to seconds
LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class WorkerMetrics:
    """The worker's metrics in a registry of its own (a test can build several workers in one process)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.events_in = Counter("omega_events_in", "Input records processed, by input topic", ["topic"], registry=r)
        self.outputs = Counter("omega_outputs", "Output records sent, by output topic", ["topic"], registry=r)
        self.verdicts = Counter("omega_verdicts", "Packet verdicts sent, by status", ["status"], registry=r)
        self.alerts = Counter("omega_alerts", "Alerts sent, by kind and severity", ["kind", "severity"], registry=r)
        self.escalations = Counter("omega_escalations", "Escalations sent, by level", ["level"], registry=r)
        self.dead_letters = Counter("omega_dead_letters", "Dead letters sent, by error class", ["error_class"],
                                    registry=r)
        self.latency = Histogram("omega_processing_seconds", "An input record's arrival at its agent to its outputs "
                                 "handed to the producer", buckets=LATENCY_BUCKETS, registry=r)
        self.input_order = Counter("omega_input_order_events", "Input partitions read again (input_rewound) or past "
                                   "an empty stretch (input_gap), records held until the seek that follows an "
                                   "assignment (input_held), streams/kafka/transport.py", ["event"], registry=r)
        self.lag = Gauge("omega_consumer_lag", "Records of an assigned input partition not yet processed",
                         ["topic", "partition"], registry=r)
        self.in_recovery = Gauge("omega_table_recovery", "1 while tables recover from their changelogs", registry=r)
        self.recovery_remaining = Gauge("omega_table_recovery_remaining", "Changelog records left to recover",
                                        registry=r)
        self.table_entries = Gauge("omega_table_entries", "Entries held by a table on this worker", ["table"],
                                   registry=r)
        self.ready = Gauge("omega_ready", "1 when partitions are assigned and table recovery is done", registry=r)
        self.registry_fallbacks = Counter("omega_registry_fallbacks", "Avro outputs sent in our own framing because "
                                          "the Schema Registry refused or failed their subject (OMEGA_AVRO_WIRE="
                                          "confluent, worker/wire.py)", ["topic"], registry=r)
        self.waiting_packets = Gauge("omega_waiting_packets", "Packets waiting for their packets partition's "
                                     "watermark under OMEGA_MAX_LATENESS_MS (worker/idle_release.py)", ["partition"],
                                     registry=r)
        self.oldest_wait = Gauge("omega_waiting_oldest_seconds", "Wall time the longest-waiting packet of a packets "
                                 "partition has waited (0: none waits)", ["partition"], registry=r)
        self.idle_releases = Counter("omega_idle_releases", "Packets partitions released for receiving nothing "
                                     "for OMEGA_IDLE_RELEASE_MS", ["partition"], registry=r)
        self._order_seen: dict[str, int] = {}

    def observe(self, topic: str, emits: Iterable[Emit], seconds: float) -> None:
        """One input record of `topic` processed into `emits` in `seconds`."""
        self.events_in.labels(topic).inc()
        self.latency.observe(seconds)
        for emit in emits:
            self.outputs.labels(emit.topic.name).inc()
            record = emit.record
            if emit.topic is VERDICTS:
                self.verdicts.labels(str(record.get("status"))).inc()
            elif emit.topic.logical == ALERTS.logical:
                self.alerts.labels(str(record.get("kind")), str(record.get("severity"))).inc()
            elif emit.topic.logical == ESCALATIONS.logical:
                self.escalations.labels(str(record.get("level"))).inc()
            elif emit.topic is DEAD_LETTERS:
                self.dead_letters.labels(str(record.get("error_class"))).inc()

    def order_events(self, counts: Mapping[str, int]) -> None:
        """The transport's running counts of input-order events (only their growth is added)."""
        for event, count in counts.items():
            grown = count - self._order_seen.get(event, 0)
            if grown > 0:
                self.input_order.labels(event).inc(grown)
            self._order_seen[event] = count

    def progress(self, progress: Progress, ready: bool) -> None:
        """Lag, recovery and readiness as a look at the worker found them."""
        self.lag.clear()
        for name, (position, end) in progress.partitions.items():
            topic, partition = progress.where.get(name, (name, -1))
            self.lag.labels(topic, str(partition)).set(max(0, end - position))
        self.in_recovery.set(1 if progress.in_recovery else 0)
        self.recovery_remaining.set(progress.recovery_remaining)
        self.ready.set(1 if ready else 0)

    def tables(self, tables: Mapping[str, KeyedTable]) -> None:
        """How many entries each table holds here."""
        for name, table in tables.items():
            self.table_entries.labels(name).set(len(table))

    def waiting(self, seen: Mapping[int, PartitionWait]) -> None:
        """What waits on each owned packets partition, as a look found it."""
        self.waiting_packets.clear()
        self.oldest_wait.clear()
        for partition, wait in seen.items():
            self.waiting_packets.labels(str(partition)).set(wait.waiting)
            self.oldest_wait.labels(str(partition)).set(wait.oldest_wait_seconds or 0.0)

    def text(self) -> bytes:
        """The Prometheus text exposition of every metric."""
        return bytes(generate_latest(self.registry))


def readiness(app: Any, progress: Progress | None) -> tuple[bool, str]:
    """(ready, why): partitions assigned, no rebalance under way and table recovery finished."""
    if progress is None:
        return False, "the worker could not be looked at (starting, or its broker is away)"
    if getattr(app, "rebalancing", False):
        return False, "rebalancing"
    if progress.in_recovery:
        return False, f"recovering tables ({progress.recovery_remaining} changelog records left)"
    if not app.assignor.assigned_actives():
        return False, "no partitions assigned"
    return True, "ready"


async def look_or_none(app: Any, processed: Mapping[tuple[str, int], int]) -> Progress | None:
    """A look at the worker (watchdog.look over every agent's input topics), None while it cannot be had."""
    try:
        return await look(app, processed, input_topics(app))
    except Exception:  # noqa: BLE001 - mid-rebalance or broker away: not ready, nothing to report
        return None
