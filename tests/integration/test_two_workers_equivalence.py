"""Two workers in one consumer group give the verdicts embedded replay gives (bytewax's "same flow, other
topology" test): keyed state must be partition-safe, and live processing must equal replay (docs/design.md).

10,000 JSON packets over 200 concurrent episodes built from the bundled examples (accepted, warned and
rejected packets, re-sent duplicates, re-used ids, dangling directives, a few budget overruns) go to the
JSON ingress topic keyed by correlation_id; two `omega worker` processes share the group. The verdicts they
publish, deduplicated by verdict_id, must be exactly the `kind: verdict` lines of `omega check packets`
on the same file.
"""

from __future__ import annotations

import asyncio
import json
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from streams.kafka.clients import ensure_topics
from streams.topics import ALERTS, ALL_TOPICS, ESCALATIONS, PACKETS, PACKETS_JSON, VERDICTS, topic_name
from streams.wire.codec import SchemaRegistry
from tests.factories import merged_log, mixed_episode
from tests.integration.equivalence import (
    ID_FIELD,
    VERDICT_FIELDS,
    Record,
    as_check_line,
    check_packets,
    is_timeout,
    unique_by,
    wait_for_split,
    write_jsonl,
)
from tests.integration.worker import WorkerProcess, consume_until, produce

pytestmark = pytest.mark.integration

EPISODES, PER_EPISODE, PARTITIONS = 200, 50, 4


# ------------------------------------------------------------------------------------------ the test
def workload() -> list[Record]:
    """200 episodes x 50 packets, staggered 2 s apart, merged into one log by send time."""
    start = datetime(2025, 12, 21, 9, 0, tzinfo=UTC)
    return merged_log([mixed_episode(e, PER_EPISODE, start + timedelta(seconds=2 * e), tight_budget=e % 25 == 7)
                       for e in range(EPISODES)])


def test_two_workers_in_one_group_give_the_verdicts_of_embedded_replay(
    two_workers: list[WorkerProcess], kafka_bootstrap: str, tmp_path: Path
) -> None:
    packets = workload()
    assert len(packets) == EPISODES * PER_EPISODE
    path = write_jsonl(tmp_path / "episodes.jsonl", packets)
    first = two_workers[0]
    with ThreadPoolExecutor(max_workers=1) as pool:
        embedded = pool.submit(check_packets, path)  # needs no broker: let it run while the group settles
        shares = wait_for_split(two_workers, first.topic(PACKETS), PARTITIONS)
        records = [(p["header"]["correlation_id"].encode(), json.dumps(p, separators=(",", ":")).encode())
                   for p in packets]
        asyncio.run(produce(kafka_bootstrap, first.topic(PACKETS_JSON), records))
        replay = embedded.result(timeout=180)

    expected = unique_by([line for line in replay if line["kind"] == "verdict"], "verdict_id", "replay")
    replay_alerts = unique_by([line for line in replay if line["kind"] == "alert"], "alert_id", "replay")
    replay_escalations = unique_by([line for line in replay if line["kind"] == "escalation"], "escalation_id",
                                   "replay")
    # Outputs raised by a packet must all come live; INV-011 timeouts come live only up to each partition's
    # watermark (replay advances every episode to the log's end), so those are a subset.
    must_alerts = {k for k, a in replay_alerts.items() if a["alert_kind"] != "TASK_TIMEOUT"}
    must_escalations = {k for k, e in replay_escalations.items() if not is_timeout(e)}
    topics = {first.topic(spec): spec.logical for spec in (VERDICTS, ALERTS, ESCALATIONS)}

    def complete(found: dict[str, list[Record]]) -> bool:
        ids = {logical: {r[ID_FIELD[logical]] for r in found[name]} for name, logical in topics.items()}
        return (ids["verdicts"] >= expected.keys() and ids["alerts"] >= must_alerts
                and ids["escalations"] >= must_escalations)

    registry = SchemaRegistry.from_directory()
    found = asyncio.run(consume_until(kafka_bootstrap, list(topics), registry, complete, timeout=90))
    live = {logical: [as_check_line(logical, r) for r in found[name]] for name, logical in topics.items()}
    verdicts = unique_by(live["verdicts"], "verdict_id", "live")
    counts = (f"live: {len(live['verdicts'])} verdict records, {len(verdicts)} unique; "
              f"replay: {sum(line['kind'] == 'verdict' for line in replay)} verdict lines, {len(expected)} unique")

    assert verdicts.keys() == expected.keys(), (
        f"{counts}; missing live: {len(expected.keys() - verdicts.keys())}, "
        f"extra live: {len(verdicts.keys() - expected.keys())}\n{first.log_tail()}")
    both = set.intersection(*(set(line) for line in (*verdicts.values(), *expected.values())))
    assert both >= VERDICT_FIELDS, counts
    differing = [vid for vid in expected if {f: verdicts[vid][f] for f in both} != {f: expected[vid][f] for f in both}]
    assert not differing, f"{counts}; {len(differing)} differ, e.g.\nlive   {verdicts[differing[0]]}\n" \
                          f"replay {expected[differing[0]]}"
    statuses = {line["status"] for line in expected.values()}
    assert statuses == {"ACCEPTED", "ACCEPTED_WITH_WARNINGS", "REJECTED"}, counts

    alerts = unique_by(live["alerts"], "alert_id", "live")
    escalations = unique_by(live["escalations"], "escalation_id", "live")
    assert alerts.keys() >= must_alerts, f"{len(must_alerts - alerts.keys())} alerts missing live"
    assert escalations.keys() >= must_escalations
    for name, got, want in (("alert", alerts, replay_alerts), ("escalation", escalations, replay_escalations)):
        assert got.keys() <= want.keys(), f"live {name}s replay never raised: {sorted(got.keys() - want.keys())}"
        assert all(got[k] == want[k] for k in got), f"a live {name} differs from its replay twin"
    assert all(w.alive() for w in two_workers), "\n\n".join(w.log_tail() for w in two_workers)
    print(f"\n{counts}; packets partitions per worker at the start: {shares}")



async def _retention_ms(bootstrap: str, names: list[str]) -> dict[str, str]:
    from aiokafka.admin import AIOKafkaAdminClient
    from aiokafka.admin.config_resource import ConfigResource, ConfigResourceType

    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        responses = await admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, n, None) for n in names])
        # resources: (error_code, error_message, type, name, [(config name, value, ...), ...])
        return {res[3]: value for r in responses for res in r.resources for name, value, *_ in res[4]
                if name == "retention.ms"}
    finally:
        await admin.close()


def test_the_worker_topics_do_not_delete_records_by_their_event_time(kafka_bootstrap: str) -> None:
    """Record timestamps are event time, so time-based retention deletes an old episode's packets and verdicts
    at the broker's next retention check, mid-run (this is how the test above once lost 11 verdicts: the
    factory's episodes are dated 2025-12-21). The topics the worker creates keep every record."""
    names = [topic_name(spec, f"retention-{time.monotonic_ns()}.") for spec in ALL_TOPICS]
    asyncio.run(ensure_topics(kafka_bootstrap, names, PARTITIONS))
    assert asyncio.run(_retention_ms(kafka_bootstrap, names)) == dict.fromkeys(names, "-1")
