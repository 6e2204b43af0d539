"""Readiness and the scrape-time metrics of streams/worker/metrics.py, without Faust: a look at the worker (lag per
partition, recovery) becomes gauges; the transport's running input-order counts become counters that only grow;
ready means assigned, not rebalancing and recovered."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from streams.worker.metrics import WorkerMetrics, readiness
from streams.worker.watchdog import Progress


def _progress(in_recovery: bool = False, remaining: int = 0) -> Progress:
    return Progress(in_recovery=in_recovery, recovery_remaining=remaining,
                    partitions={"p[0]": (10, 25), "p[1]": (7, 7)}, where={"p[0]": ("p", 0), "p[1]": ("p", 1)})


def _app(assigned: set[Any], rebalancing: bool = False) -> Any:
    return SimpleNamespace(rebalancing=rebalancing, assignor=SimpleNamespace(assigned_actives=lambda: assigned))


def test_lag_per_partition_and_recovery_come_from_a_look_at_the_worker() -> None:
    metrics = WorkerMetrics()
    metrics.progress(_progress(in_recovery=True, remaining=40), ready=False)
    value = metrics.registry.get_sample_value

    assert value("omega_consumer_lag", {"topic": "p", "partition": "0"}) == 15
    assert value("omega_consumer_lag", {"topic": "p", "partition": "1"}) == 0
    assert (value("omega_table_recovery"), value("omega_table_recovery_remaining"), value("omega_ready")) == (1, 40, 0)
    assert b"omega_consumer_lag{" in metrics.text()


def test_input_order_counts_add_only_their_growth() -> None:
    metrics = WorkerMetrics()
    metrics.order_events({"input_rewound": 2, "input_gap": 0})
    metrics.order_events({"input_rewound": 5, "input_gap": 1})
    metrics.order_events({"input_rewound": 5, "input_gap": 1})

    value = metrics.registry.get_sample_value
    assert value("omega_input_order_events_total", {"event": "input_rewound"}) == 5
    assert value("omega_input_order_events_total", {"event": "input_gap"}) == 1


def test_ready_only_when_assigned_not_rebalancing_and_recovered() -> None:
    assert readiness(_app({"tp"}), _progress()) == (True, "ready")
    assert readiness(_app(set()), _progress()) == (False, "no partitions assigned")
    assert readiness(_app({"tp"}, rebalancing=True), _progress()) == (False, "rebalancing")
    assert readiness(_app({"tp"}), _progress(in_recovery=True, remaining=3)) == (
        False, "recovering tables (3 changelog records left)")
    assert readiness(_app({"tp"}), None)[0] is False


def _sample(metrics: WorkerMetrics, name: str, **labels: str) -> float | None:
    return metrics.registry.get_sample_value(name, labels)


def test_every_verdict_status_alert_kind_escalation_level_and_dead_letter_class_is_counted_under_its_own_label(
) -> None:
    # issue 46, fault 4 and its class: each label value is the record's own, never folded into another
    # (ACCEPTED_WITH_WARNINGS is not ACCEPTED; a WARNING alert is not a CRITICAL one)
    from streams.stages.base import Emit
    from streams.topics import ALERTS, DEAD_LETTERS, ESCALATIONS, VERDICTS

    def emit(topic: Any, record: dict[str, Any]) -> Emit:
        return Emit(topic, "k", b"", None, record)

    metrics = WorkerMetrics()
    metrics.observe("omen.packets", [
        emit(VERDICTS, {"status": "ACCEPTED"}), emit(VERDICTS, {"status": "ACCEPTED_WITH_WARNINGS"}),
        emit(VERDICTS, {"status": "ACCEPTED_WITH_WARNINGS"}), emit(VERDICTS, {"status": "REJECTED"}),
        emit(ALERTS, {"kind": "TASK_TIMEOUT", "severity": "WARNING"}),
        emit(ALERTS, {"kind": "TASK_TIMEOUT", "severity": "CRITICAL"}),
        emit(ESCALATIONS, {"level": "LAYER1"}), emit(DEAD_LETTERS, {"error_class": "JSON_SYNTAX"}),
    ], 0.001)

    assert _sample(metrics, "omega_verdicts_total", status="ACCEPTED") == 1
    assert _sample(metrics, "omega_verdicts_total", status="ACCEPTED_WITH_WARNINGS") == 2
    assert _sample(metrics, "omega_verdicts_total", status="REJECTED") == 1
    assert _sample(metrics, "omega_alerts_total", kind="TASK_TIMEOUT", severity="WARNING") == 1
    assert _sample(metrics, "omega_alerts_total", kind="TASK_TIMEOUT", severity="CRITICAL") == 1
    assert _sample(metrics, "omega_escalations_total", level="LAYER1") == 1
    assert _sample(metrics, "omega_dead_letters_total", error_class="JSON_SYNTAX") == 1
