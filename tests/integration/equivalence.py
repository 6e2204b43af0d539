"""Live-equals-replay helpers shared by the broker tests: the input file, `omega check packets` on it, live
outputs in its shape, deduplication by id, the workers' partition shares, and the whole comparison.

Live processing is at-least-once: a worker that dies, loses its broker or gives up a partition sends some
outputs again. Every output carries an id derived from its content, so the set of outputs deduplicated by id
must be exactly what embedded replay gives, and an id seen twice must carry the identical content.
"""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiokafka import AIOKafkaConsumer, TopicPartition

from omega.eventtime import to_ms
from streams.kafka.partitioning import partition_of
from streams.records import json_view
from streams.topics import ALERTS, ESCALATIONS, VERDICTS
from streams.wire.codec import SchemaRegistry
from tests.integration.worker import REPO, WorkerProcess

# the fields a live verdict and a `check packets` verdict line both carry (the brief's list, at least)
VERDICT_FIELDS = {"verdict_id", "packet_id", "correlation_id", "packet_type", "status", "violations", "fsm",
                  "usage", "event_time"}
ID_FIELD = {VERDICTS.logical: "verdict_id", ALERTS.logical: "alert_id", ESCALATIONS.logical: "escalation_id"}
KIND = {VERDICTS.logical: "verdict", ALERTS.logical: "alert", ESCALATIONS.logical: "escalation"}
Record = dict[str, Any]


def write_jsonl(path: Path, packets: list[Record]) -> Path:
    """One compact JSON packet per line, in log order."""
    path.write_text("".join(json.dumps(p, separators=(",", ":")) + "\n" for p in packets), encoding="utf-8")
    return path


def check_packets(path: Path, timeout: float = 120) -> list[Record]:
    """`omega check packets PATH` as a subprocess: its output lines, parsed (exit 1 means something was rejected),
    without the `source` (FILE:LINE) a check line adds to the live record's view."""
    done = subprocess.run([sys.executable, "-m", "streams.cli.main", "check", "packets", str(path)], cwd=REPO,
                          capture_output=True, timeout=timeout, check=False)
    assert done.returncode in (0, 1), done.stderr.decode(errors="replace")
    lines = [json.loads(line) for line in done.stdout.decode("utf-8").splitlines()]
    return [{k: v for k, v in line.items() if k != "source"} for line in lines]


def as_check_line(topic_logical: str, record: Record) -> Record:
    """A decoded live output in the shape `check packets` prints (without the consumer's position fields; its
    `details` as the object the Avro text encodes, as every JSON view shows it)."""
    value = json_view({k: v for k, v in record.items() if k not in ("key", "partition", "offset", "timestamp")})
    if topic_logical == VERDICTS.logical:
        before, after = value.pop("state_before"), value.pop("state_after")
        return {"kind": "verdict", **value, "fsm": {"from": before, "to": after}}
    if topic_logical == ALERTS.logical:
        return {"kind": "alert", "alert_kind": value.pop("kind"), **value}
    return {"kind": "escalation", **value}


def unique_by(lines: list[Record], id_field: str, origin: str) -> dict[str, Record]:
    """Deduplicate by id; every duplicate must carry the identical content."""
    by_id: dict[str, Record] = {}
    for line in lines:
        first = by_id.setdefault(line[id_field], line)
        assert first == line, f"{origin}: two different contents for {id_field} {line[id_field]}:\n{first}\n{line}"
    return by_id


def _partitions(text: str) -> set[int]:
    out: set[int] = set()
    for part in filter(None, (p.strip() for p in text.split(","))):
        low, _, high = part.partition("-")
        out.update(range(int(low), int(high or low) + 1))
    return out


def assigned(worker: WorkerProcess, topic: str) -> set[int]:
    """The partitions of `topic` in the worker's latest assignment, as Faust logs it."""
    if worker.log_path is None or not worker.log_path.exists():
        return set()
    latest = worker.log_path.read_text(errors="replace").split("Setting newly assigned partitions")[-1]
    row = re.search(rf"^\| {re.escape(topic)} +\| \{{([^}}]*)\}} +\|", latest, re.MULTILINE)
    return _partitions(row.group(1)) if row else set()


def wait_for_split(workers: list[WorkerProcess], topic: str, partitions: int, timeout: float = 60.0) -> list[set[int]]:
    """Wait until the workers' latest assignments of `topic` are disjoint, non-empty and cover every partition."""
    deadline = time.monotonic() + timeout
    while True:
        shares = [assigned(w, topic) for w in workers]
        if all(shares) and sum(map(len, shares)) == partitions and set().union(*shares) == set(range(partitions)):
            return shares
        if time.monotonic() > deadline:
            tails = "\n\n".join(w.log_tail(30) for w in workers)
            raise TimeoutError(f"no split of {topic} between the workers after {timeout}s: {shares}\n{tails}")
        time.sleep(0.2)


# ------------------------------------------------------------------------------------------ expectations
def is_timeout(line: Record) -> bool:
    """An INV-011 output (TASK_TIMEOUT alert or its CRITICAL escalation): raised when a watermark passes."""
    return (line.get("details") or {}).get("rule") == "INV-011"


def deadline_ms(line: Record) -> int:
    """The deadline an INV-011 output names."""
    value = to_ms(line["details"]["deadline"])
    assert value is not None, line
    return value


def partition_watermarks(packets: list[Record], partitions: int) -> dict[int, int]:
    """The largest `created_at` per packets partition: the last watermark a live worker can tick to."""
    marks: dict[int, int] = {}
    for p in packets:
        ms = to_ms(p["header"]["created_at"])
        part = partition_of(p["header"]["correlation_id"], partitions)
        if ms is not None:
            marks[part] = max(marks.get(part, ms), ms)
    return marks


@dataclass
class Expected:
    """What replay says, by topic: every output by id, and the ids live must show (an INV-011 output comes live
    only when its partition's watermark passes its deadline; replay advances every episode to the log's end)."""

    lines: dict[str, dict[str, Record]]
    must: dict[str, set[str]]
    replay_lines: int
    raw: dict[str, int]  # replay's own lines per topic (a verbatim re-sent packet repeats its verdict)

    @classmethod
    def of(cls, replay: list[Record], packets: list[Record], partitions: int) -> Expected:
        marks = partition_watermarks(packets, partitions)
        lines: dict[str, dict[str, Record]] = {}
        must: dict[str, set[str]] = {}
        raw: dict[str, int] = {}
        for logical, id_field in ID_FIELD.items():
            mine = [x for x in replay if x["kind"] == KIND[logical]]
            lines[logical], raw[logical] = unique_by(mine, id_field, "replay"), len(mine)
            must[logical] = {k for k, x in lines[logical].items()
                             if not is_timeout(x)
                             or deadline_ms(x) < marks.get(partition_of(x["subject_id"], partitions), 0)}
        return cls(lines, must, len(replay), raw)


# ------------------------------------------------------------------------------------------ live outputs
@dataclass
class LiveOutputs:
    """Every record of the output topics read so far (in the `check packets` shape), with ids seen per topic."""

    topics: dict[str, str]  # physical name -> logical
    records: dict[str, list[Record]] = field(default_factory=dict)  # logical -> records, duplicates kept
    ids: dict[str, set[str]] = field(default_factory=dict)
    positions: dict[str, list[tuple[int, int]]] = field(default_factory=dict)  # logical -> (partition, offset)

    def __post_init__(self) -> None:
        for logical in self.topics.values():
            self.records.setdefault(logical, [])
            self.ids.setdefault(logical, set())
            self.positions.setdefault(logical, [])

    def add(self, topic: str, partition: int, offset: int, datum: Record) -> None:
        logical = self.topics[topic]
        line = as_check_line(logical, datum)
        self.records[logical].append(line)
        self.positions[logical].append((partition, offset))
        self.ids[logical].add(line[ID_FIELD[logical]])

    def covers(self, expected: Expected) -> bool:
        return all(self.ids[logical] >= expected.must[logical] for logical in self.topics.values())


async def end_offsets(consumer: AIOKafkaConsumer, topics: Iterable[str]) -> dict[TopicPartition, int]:
    tps = [TopicPartition(t, p) for t in topics for p in sorted(consumer.partitions_for_topic(t) or ())]
    return dict(await consumer.end_offsets(tps)) if tps else {}


async def output_count(consumer: AIOKafkaConsumer, topic: str) -> int:
    """How many records `topic` holds (its end offsets summed; outputs are never deleted or compacted)."""
    await consumer._client.force_metadata_update()  # no public per-topic lookup
    return sum((await end_offsets(consumer, [topic])).values())


async def collect(bootstrap: str, live: LiveOutputs, registry: SchemaRegistry, done: Callable[[], bool],
                  timeout: float, settle: float, cap: float | None = None) -> None:
    """Read the output topics from the start until `done()` holds, then until no topic has grown for `settle`
    seconds and every record up to the end offsets is read (late duplicates included).

    `timeout` is a stall: it fails when no output record arrived for that long. A run that is still catching up
    on a slow machine (CI once stopped one at 27,901 of 30,000 verdicts, still producing) is waited for, up to
    `cap` seconds in all (3 x `timeout` when not given)."""
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False, max_poll_records=2000)
    await consumer.start()
    try:
        begun = time.monotonic()
        last_cap = begun + (cap if cap is not None else 3 * timeout)
        deadline = begun + timeout
        while True:
            await consumer._client.force_metadata_update()
            tps = [TopicPartition(t, p) for t in live.topics for p in sorted(consumer.partitions_for_topic(t) or ())]
            if {tp.topic for tp in tps} == set(live.topics):
                break
            if time.monotonic() > deadline:
                raise TimeoutError(f"output topics never appeared: {sorted(live.topics)}")
            await asyncio.sleep(0.5)
        consumer.assign(tps)
        await consumer.seek_to_beginning()
        ends: dict[TopicPartition, int] = {}
        stable_since = time.monotonic()
        while time.monotonic() < deadline:
            batch = await consumer.getmany(timeout_ms=500)
            for tp, messages in batch.items():
                for msg in messages:
                    _, datum = registry.decode(msg.value)
                    live.add(tp.topic, tp.partition, msg.offset, datum)
            if batch:
                deadline = min(time.monotonic() + timeout, last_cap)
            if not done():
                continue
            now_ends = await end_offsets(consumer, live.topics)
            if now_ends != ends:
                ends, stable_since = now_ends, time.monotonic()
            read_all = all([await consumer.position(tp) >= end for tp, end in ends.items()])
            if read_all and time.monotonic() - stable_since >= settle:
                return
        raise TimeoutError(f"outputs did not settle: nothing new for {timeout}s or {time.monotonic() - begun:.0f}s "
                           f"in all: " + ", ".join(f"{k}: {len(v)} ids" for k, v in live.ids.items()))
    finally:
        await consumer.stop()


# ------------------------------------------------------------------------------------------ the comparison
def compare(expected: Expected, live: LiveOutputs) -> dict[str, Any]:
    """Assert that live, deduplicated by id, is what replay gives; return the counts for the report.

    Verdicts and alerts or escalations raised by a packet: the same ids, the identical content. INV-011
    outputs: every one whose deadline lies before its partition's last watermark, and none that replay lacks.
    A live id seen twice with different contents fails inside `unique_by`."""
    figures: dict[str, Any] = {"replay_lines": expected.replay_lines}
    for logical, id_field in ID_FIELD.items():
        got = unique_by(live.records[logical], id_field, f"live {logical}")
        want = expected.lines[logical]
        raw = len(live.records[logical])
        # duplicates: raw records beyond the unique ids; redelivered: beyond the lines replay itself prints
        figures[logical] = {"raw": raw, "duplicates": raw - len(got), "unique": len(got),
                            "duplicates_after_dedup": 0, "replay_lines": expected.raw[logical],
                            "redelivered": raw - expected.raw[logical], "replay_unique": len(want),
                            "replay_only_by_watermark": len(want.keys() - expected.must[logical])}
        missing = expected.must[logical] - got.keys()
        extra = got.keys() - want.keys()
        assert not missing, (f"{len(missing)} {logical} of replay missing live, e.g. "
                             f"{[want[k] for k in sorted(missing)[:3]]}")
        assert not extra, f"{len(extra)} live {logical} replay never raised, e.g. {[got[k] for k in sorted(extra)[:3]]}"
        if logical == VERDICTS.logical:
            both = set.intersection(*(set(x) for x in (*got.values(), *want.values())))
            assert both >= VERDICT_FIELDS, both
            differing = [k for k in want if {f: got[k][f] for f in both} != {f: want[k][f] for f in both}]
        else:
            differing = [k for k in got if got[k] != want[k]]
        assert not differing, f"{len(differing)} {logical} differ, e.g.\nlive   {got[differing[0]]}\n" \
                              f"replay {want[differing[0]]}"
    statuses = Counter(x["status"] for x in expected.lines[VERDICTS.logical].values())
    assert set(statuses) == {"ACCEPTED", "ACCEPTED_WITH_WARNINGS", "REJECTED"}, statuses
    figures["statuses"] = dict(statuses)
    return figures
