"""`omega project`'s Prometheus metrics (issue 23), served on `--metrics-port` / `OMEGA_PROJECTOR_METRICS_PORT`
by prometheus-client's own HTTP server while the projector runs: records applied and skipped, batches, and
undecodable records, moved after every batch from the runner's running figures (`Runner.on_batch`)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, start_http_server

from projections.runner import RunStats


class ProjectorMetrics:
    """Counters of one projector run in a registry of its own."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.applied = Counter("omega_project_records_applied", "Log records applied to the read model", registry=r)
        self.skipped = Counter("omega_project_records_skipped", "Log records already applied (redelivered)",
                               registry=r)
        self.batches = Counter("omega_project_batches", "Batches committed to the read model", registry=r)
        self.undecodable = Gauge("omega_project_undecodable", "Records that could not be decoded so far", registry=r)
        self._seen = RunStats()

    def observe(self, stats: RunStats) -> None:
        """The run's figures after a batch (only their growth is added to the counters)."""
        self.applied.inc(max(0, stats.applied - self._seen.applied))
        self.skipped.inc(max(0, stats.skipped - self._seen.skipped))
        self.batches.inc(max(0, stats.batches - self._seen.batches))
        self.undecodable.set(stats.undecodable)
        self._seen = RunStats(applied=stats.applied, skipped=stats.skipped, batches=stats.batches)

    def serve(self, port: int, address: str = "0.0.0.0") -> None:  # noqa: S104 - a scrape target, as the worker's
        """Serve /metrics on `port` from a daemon thread for as long as the process lives."""
        start_http_server(port, addr=address, registry=self.registry)
