"""Proof under fire (issue 9): live processing equals embedded replay while workers crash, the broker bounces
and a worker joins and leaves (the method of Kafka's own transaction system tests, in miniature).

Each test sends JSON packets of concurrent mixed episodes (tests.factories) to a 4-partition topic read by
`omega worker` processes in one consumer group, disturbs the run, waits until the outputs settle, and then
compares the verdicts (by verdict_id, full content), alerts (by alert_id) and escalations with `omega check
packets` on the same file: the same set, nothing missing, nothing extra, and an id seen twice must carry the
identical content. The raw output topics are at-least-once: the duplicates they hold are counted and reported
next to the zero left after deduplication. INV-011 timeouts come live only as far as each partition's
watermark reaches (replay advances every episode to the end of the log); every one before it must come.

- crash:     100,000 packets / 1,000 episodes (OMEGA_FIRE_CRASH_PACKETS, OMEGA_FIRE_CRASH_EPISODES), two
             workers, five SIGKILLs (OMEGA_FIRE_KILLS) at seeded-random moments (OMEGA_FIRE_SEED) spread by
             output progress, each followed by a restart.
- bounce:    20,000 packets / 200 episodes (OMEGA_FIRE_PACKETS, OMEGA_FIRE_EPISODES) on the test's own broker
             (deploy/kafka/kafka.sh in a tmp dir, ports OMEGA_FIRE_BROKER_PORT/+1, default 39394/39395), which
             is stopped (`down`), left down OMEGA_FIRE_OUTAGE seconds (20) and started again (`up`) mid-run
             while the workers keep running.
- rebalance: 20,000 packets / 200 episodes (same variables); a third worker joins mid-run and later leaves
             (SIGTERM); the partitions it took and gave back carry their episodes' ledgers with them (table
             recovery from the changelog), which later verdicts of those episodes depend on (their FSM state).

Each test prints a summary and merges it into out/under-fire.json.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from aiokafka import AIOKafkaConsumer, TopicPartition

from streams.kafka.partitioning import partition_of
from streams.stages.episodes import judgement_key
from streams.topics import ALERTS, ESCALATIONS, PACKETS, PACKETS_JSON, VERDICTS
from streams.wire.codec import SchemaRegistry
from tests.factories import merged_log, mixed_episode
from tests.integration.equivalence import (
    Expected,
    LiveOutputs,
    Record,
    assigned,
    check_packets,
    collect,
    compare,
    end_offsets,
    output_count,
    wait_for_split,
    write_jsonl,
)
from tests.integration.worker import REPO, WorkerProcess, produce

# Each run moves 30,000-100,000 packets through killed, bounced or rebalanced workers: on this 2-core machine a
# slow day (2-3x) took the crash run past pyproject's 600 s per test with the code before and after issue 17
# alike (2026-11-25: 74k verdicts at 377-438 s, then the collection), so these tests get their own budget.
UNDER_FIRE_TIMEOUT_S = 1800
pytestmark = [pytest.mark.integration, pytest.mark.timeout(UNDER_FIRE_TIMEOUT_S)]

PARTITIONS = 4
SUMMARY = REPO / "out" / "under-fire.json"
# A killed worker never leaves the group: the coordinator waits a session timeout before it rebalances its
# partitions away (Faust's default is 60 s). The tests shorten it; heartbeats stay well inside it.
# A worker whose stall watch fires (streams/worker/watchdog.py) exits; the run restarts it as a supervisor would.
GROUP_ENV = {"BROKER_SESSION_TIMEOUT": "20", "BROKER_HEARTBEAT_INTERVAL": "3", "OMEGA_STALL_SECONDS": "60"}
# A stall restart recovers from one of Faust's hangs (streams/worker/watchdog.py), which a kill, a bounce or a rebalance
# can set off now and then; restarting without bound would hide a worker that stalls again after every restart (a
# hang the restart does not cure) behind the test's whole budget and a timeout that does not name it. Past this
# many restarts in one run, the run fails and says so.
MAX_STALL_RESTARTS = 3


def env_int(name: str, default: int) -> int:
    return int(os.environ.get(name) or default)


def workload(episodes: int, packets: int) -> list[Record]:
    """`episodes` mixed episodes of packets/episodes packets each, staggered 2 s apart, merged by send time."""
    start = datetime(2025, 12, 21, 9, 0, tzinfo=UTC)
    per_episode = packets // episodes
    return merged_log([mixed_episode(e, per_episode, start + timedelta(seconds=2 * e), tight_budget=e % 25 == 7)
                       for e in range(episodes)])


def record_summary(name: str, figures: dict[str, Any]) -> None:
    """Print the figures and merge them into out/under-fire.json under `name`."""
    print(f"\n[under fire: {name}] {json.dumps(figures, sort_keys=True)}")
    SUMMARY.parent.mkdir(exist_ok=True)
    try:
        summary = json.loads(SUMMARY.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        summary = {}
    summary[name] = figures
    SUMMARY.write_text(json.dumps(summary, indent=2, sort_keys=True) + "\n", encoding="utf-8")


@dataclass
class Run:
    """One disturbed run: the workers of one group, the input, and a loop with a consumer to watch progress."""

    bootstrap: str
    tmp_path: Path
    packets: list[Record]
    partitions: int = PARTITIONS
    workers: list[WorkerProcess] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)
    runner: asyncio.Runner = field(default_factory=asyncio.Runner)
    restarts: int = 0  # by `supervise`, after a worker's stall watch fired (at most MAX_STALL_RESTARTS)
    _consumer: AIOKafkaConsumer | None = None

    def worker(self, env: dict[str, str] | None = None) -> WorkerProcess:
        """A new worker of the group (not started), with its own data dir."""
        n = len(self.workers) + 1
        prefix = self.workers[0].prefix if self.workers else None
        worker = WorkerProcess(self.bootstrap, self.tmp_path / f"worker-{n}", env={**GROUP_ENV, **(env or {})},
                               partitions=self.partitions, **({"prefix": prefix} if prefix else {}))
        worker.data_dir.mkdir()
        self.workers.append(worker)
        return worker

    @property
    def first(self) -> WorkerProcess:
        return self.workers[0]

    def topic(self, logical: str) -> str:
        return {"verdicts": self.first.topic(VERDICTS), "packets": self.first.topic(PACKETS)}[logical]

    def note(self, what: str, **details: Any) -> None:
        self.events.append({"at_s": round(time.monotonic() - self.started, 1), "event": what, **details})
        print(f"  {self.events[-1]}")

    def verdicts_out(self) -> int:
        """Raw verdict records published so far (duplicates included)."""
        async def count() -> int:
            if self._consumer is None:
                self._consumer = AIOKafkaConsumer(bootstrap_servers=self.bootstrap)
                await self._consumer.start()
            return await output_count(self._consumer, self.topic("verdicts"))
        return self.runner.run(count())

    def wait_outputs(self, target: int, timeout: float) -> int:
        """Wait until `target` raw verdicts are out."""
        deadline = time.monotonic() + timeout
        while (n := self.verdicts_out()) < target:
            self.supervise()
            if time.monotonic() > deadline:
                tails = "\n\n".join(w.log_tail(20) for w in self.workers)
                raise TimeoutError(f"only {n} of {target} verdicts after {timeout}s\n{tails}")
            time.sleep(1.0)
        return n

    def verdict_ends(self) -> dict[int, int]:
        """The verdicts topic's end offset per partition."""
        async def ends() -> dict[int, int]:
            assert self._consumer is not None
            await self._consumer._client.force_metadata_update()
            return {tp.partition: n for tp, n in (await end_offsets(self._consumer, [self.topic("verdicts")])).items()}
        return self.runner.run(ends())

    def supervise(self) -> None:
        """Restart each worker that stopped itself on a stall (`worker_stalled`), as its supervisor would; fail the
        run on a stall past MAX_STALL_RESTARTS restarts."""
        for index, worker in enumerate(self.workers):
            if worker.process is None or worker.alive():
                continue
            stalls = [line for line in worker.log_tail(400).splitlines() if "worker_stalled" in line]
            if stalls:
                if self.restarts >= MAX_STALL_RESTARTS:
                    raise AssertionError(
                        f"worker {index + 1} stalled (exit code {worker.process.returncode}) after {self.restarts} "
                        f"stall restarts in this run, the most allowed (MAX_STALL_RESTARTS = {MAX_STALL_RESTARTS}): "
                        f"restarting does not cure it\n{stalls[-1][:600]}\nevents: {self.events}")
                self.note("worker stalled and exited; restarted", worker=index + 1, exit_code=worker.process.returncode,
                          log=stalls[-1][:600])
                self.restarts += 1
                worker.start(timeout=180)

    def close(self) -> None:
        for worker in self.workers:
            worker.stop()
        if self._consumer is not None:
            self.runner.run(self._consumer.stop())
        self.runner.close()


@contextmanager
def group_run(bootstrap: str, tmp_path: Path, packets: list[Record], workers: int = 2,
              partitions: int = PARTITIONS, env: dict[str, str] | None = None) -> Iterator[Run]:
    run = Run(bootstrap, tmp_path, packets, partitions)
    try:
        for _ in range(workers):
            run.worker(env).start(timeout=180)
        yield run
    finally:
        run.close()


def paced(bootstrap: str, topic: str, records: list[tuple[bytes, bytes]], rate: float | None) -> None:
    """Send `records` in order, all at once or at about `rate` records per second (in chunks of 500)."""
    if rate is None:
        asyncio.run(produce(bootstrap, topic, records))
        return
    begun = time.monotonic()
    for start in range(0, len(records), 500):
        asyncio.run(produce(bootstrap, topic, records[start:start + 500]))
        time.sleep(max(0.0, begun + (start + 500) / rate - time.monotonic()))


def missing_verdicts(expected: Expected, live: LiveOutputs, limit: int = 3) -> str:
    """A few outputs replay gave and live did not, per topic: a lost verdict with what live said about the same
    packet, a lost alert or escalation as replay wrote it (with live's outputs about the same source packet)."""
    rows = []
    for logical in (VERDICTS.logical, ALERTS.logical, ESCALATIONS.logical):
        for output_id in sorted(expected.must[logical] - live.ids[logical])[:limit]:
            want = expected.lines[logical][output_id]
            about = want.get("packet_id") or want.get("source_event_id")
            said = [x for x in live.records[logical]
                    if about is not None and (x.get("packet_id") or x.get("source_event_id")) == about]
            rows.append(f"{logical}: replay {json.dumps(want, sort_keys=True)}\n"
                        f"live   {json.dumps(said, sort_keys=True)}")
    return "\n".join(rows)


def under_fire(name: str, run: Run, disturb: Callable[[Run], dict[str, Any]], settle: float = 12.0,
               rate: float | None = None) -> tuple[LiveOutputs, dict[str, Any]]:
    """Send the input (all at once, or at `rate` packets/s), let `disturb` do its damage, wait until the outputs
    settle and compare them with replay."""
    path = write_jsonl(run.tmp_path / "episodes.jsonl", run.packets)
    records = [(p["header"]["correlation_id"].encode(), json.dumps(p, separators=(",", ":")).encode())
               for p in run.packets]
    with ThreadPoolExecutor(max_workers=2) as pool:
        embedded = pool.submit(check_packets, path, 900)  # needs no broker
        wait_for_split(run.workers, run.topic("packets"), run.partitions, timeout=120)
        run.note("split", shares=[sorted(assigned(w, run.topic("packets"))) for w in run.workers])
        sent = pool.submit(paced, run.bootstrap, run.first.topic(PACKETS_JSON), records, rate)
        details = disturb(run)
        sent.result(timeout=900)
        replay = embedded.result(timeout=900)
    expected = Expected.of(replay, run.packets, run.partitions)
    run.note("input sent and replayed", replay_lines=len(replay))
    topics = {run.first.topic(spec): spec.logical for spec in (VERDICTS, ALERTS, ESCALATIONS)}
    live = LiveOutputs(topics)
    # a stall of this long fails, and 3x it in all, inside pytest's own timeout (UNDER_FIRE_TIMEOUT_S), so a stall
    # reports what is missing
    timeout = 180 + len(run.packets) / 250
    try:
        def covered() -> bool:
            run.supervise()
            return live.covers(expected)

        asyncio.run(collect(run.bootstrap, live, SchemaRegistry.from_directory(), covered, timeout=timeout,
                            settle=settle))
    except TimeoutError as exc:
        missing = {k: len(expected.must[k] - live.ids[k]) for k in live.ids}
        tails = "\n\n".join(w.log_tail(40) for w in run.workers)
        raise AssertionError(f"{exc}; missing by topic: {missing}; events: {run.events}\n"
                             f"{missing_verdicts(expected, live)}\n{tails}") from exc
    run.note("outputs settled")
    try:
        figures = compare(expected, live)
    except AssertionError as exc:  # what the workers saw of it: lost judgements, rewinds, gaps
        seen = [line for w in run.workers for line in w.logs().splitlines()
                if any(e in line for e in ("judgement_lost", "input_rewound", "input_gap", "stage_failed"))]
        try:
            evidence = asyncio.run(lost_judgements_in_changelog(run, seen))
        except Exception as read_error:  # noqa: BLE001 - the comparison's failure is what must be reported
            evidence = f"\n(changelog not read: {read_error!r})"
        raise AssertionError(f"{exc}\nworker log lines ({len(seen)}):\n" + "\n".join(seen[:60]) + evidence) from exc
    figures.update(packets=len(run.packets), episodes=len({p["header"]["correlation_id"] for p in run.packets}),
                   partitions=run.partitions, elapsed_s=round(time.monotonic() - run.started, 1), events=run.events,
                   stall_restarts=run.restarts, **details)
    record_summary(name, figures)
    return live, figures


async def lost_judgements_in_changelog(run: Run, lines: list[str]) -> str:
    """For each `judgement_lost` a worker logged: where the episodes changelog (every partition) holds the packet's
    judgement and the ledger that applied it. Neither: the packet was judged only after later ones (out of order);
    a judgement before that ledger: the restore passed over it; the ledger without it: a write never made durable."""
    lost = [e for e in (json.loads(x) for x in lines if x.startswith("{")) if e.get("event") == "judgement_lost"]
    if not lost:
        return ""
    prefix = run.first.prefix
    inputs, changelog = run.first.topic(PACKETS), f"{prefix}app-{prefix}episodes-changelog"
    registry = SchemaRegistry.from_directory()
    consumer = AIOKafkaConsumer(bootstrap_servers=run.bootstrap, enable_auto_commit=False)
    await consumer.start()
    try:
        wanted = {(e["partition"], e["offset"]): e["episode"] for e in lost}
        packet_ids: dict[tuple[int, int], str] = {}
        for partition, offset in sorted(wanted):
            tp = TopicPartition(inputs, partition)
            consumer.assign([tp])
            consumer.seek(tp, offset)
            record = (await consumer.getmany(tp, timeout_ms=5000, max_records=1)).get(tp, [None])[0]
            if record is not None and record.value is not None:
                packet_ids[(partition, offset)] = registry.decode(record.value)[1]["header"]["packet_id"]
        keys: dict[str, list[str]] = {}  # the table's keys, as Faust's json codec wrote them -> "partition@offset"
        ledgers: dict[str, list[tuple[str, int]]] = {}  # episode -> (where in the changelog, input offset applied)
        for partition in range(run.partitions):  # all of them: a record on another partition is lost to a restore
            tp = TopicPartition(changelog, partition)
            consumer.assign([tp])
            await consumer.seek_to_beginning(tp)
            end = (await consumer.end_offsets([tp]))[tp]
            while (await consumer.position(tp)) < end:
                for record in (await consumer.getmany(tp, timeout_ms=5000)).get(tp, []):
                    key = json.loads(record.key or b'""')
                    keys.setdefault(key, []).append(f"{partition}@{record.offset}")
                    value = json.loads(record.value) if record.value else None
                    if isinstance(value, dict) and isinstance(value.get("at"), list):  # a ledger: where it applied
                        ledgers.setdefault(key, []).append((f"{partition}@{record.offset}", value["at"][1]))
    finally:
        await consumer.stop()
    rows = []
    for (partition, offset), episode in sorted(wanted.items()):
        packet_id = packet_ids.get((partition, offset), "?")
        at = keys.get(judgement_key(episode, packet_id), [])
        applied = [c for c, a in ledgers.get(episode, []) if a == offset]
        rows.append(f"  input {partition}@{offset} {packet_id}: judgement at changelog offsets {at or 'none'}; "
                    f"the ledger that applied it at {applied or 'none'}")
    return "\nlost judgements in the changelog:\n" + "\n".join(rows)


# ------------------------------------------------------------------------------------------ 1. crash
def test_workers_killed_five_times_give_the_outputs_of_replay(kafka_bootstrap: str, tmp_path: Path) -> None:
    kills, seed = env_int("OMEGA_FIRE_KILLS", 5), env_int("OMEGA_FIRE_SEED", 9)
    packets = workload(env_int("OMEGA_FIRE_CRASH_EPISODES", 1000), env_int("OMEGA_FIRE_CRASH_PACKETS", 100_000))
    rng = random.Random(seed)
    moments = sorted(rng.uniform(0.05, 0.85) for _ in range(kills))

    def crash(run: Run) -> dict[str, Any]:
        for moment in moments:
            at = run.wait_outputs(int(moment * len(packets)), timeout=900)
            index = rng.randrange(len(run.workers))
            victim = run.workers[index]
            victim.kill()
            run.note("SIGKILL", worker=index + 1, verdicts_out=at)
            begun = time.monotonic()
            victim.start(timeout=180)
            run.note("restarted", worker=index + 1, seconds=round(time.monotonic() - begun, 1))
        return {"kills": kills, "seed": seed}

    with group_run(kafka_bootstrap, tmp_path, packets) as run:
        under_fire("crash", run, crash)
        assert all(w.alive() for w in run.workers), "\n\n".join(w.log_tail() for w in run.workers)


# ------------------------------------------------------------------------------------------ 2. broker bounce
class Broker:
    """The test's own single-node broker: deploy/kafka/kafka.sh in a tmp dir on ports of its own."""

    def __init__(self, root: Path, port: int) -> None:
        self.port = port
        self.env = {**os.environ, "OMEGA_KAFKA_DIR": str(root), "OMEGA_KAFKA_PORT": str(port),
                    "OMEGA_KAFKA_CONTROLLER_PORT": str(port + 1), "OMEGA_KAFKA_HEAP": "-Xmx512m -Xms128m"}
        self.bootstrap = f"127.0.0.1:{port}"

    def __call__(self, command: str) -> float:
        """Run `kafka.sh COMMAND`; returns the seconds it took."""
        begun = time.monotonic()
        done = subprocess.run(["bash", str(REPO / "deploy" / "kafka" / "kafka.sh"), command], env=self.env,
                              capture_output=True, timeout=180, check=False)
        assert done.returncode == 0, f"kafka.sh {command}: {done.stderr.decode(errors='replace')}"
        return round(time.monotonic() - begun, 1)


@pytest.fixture
def own_broker(tmp_path: Path) -> Iterator[Broker]:
    if shutil.which("java") is None:  # kafka.sh runs the broker from Maven jars
        reason = "no java: the bounce test starts its own broker with deploy/kafka/kafka.sh"
        if os.environ.get("OMEGA_REQUIRE_BROKER") or os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    broker = Broker(tmp_path / "kafka", env_int("OMEGA_FIRE_BROKER_PORT", 39394))
    broker("up")
    try:
        yield broker
    finally:
        broker("down")


def test_a_broker_bounce_mid_run_gives_the_outputs_of_replay(own_broker: Broker, tmp_path: Path) -> None:
    packets = workload(env_int("OMEGA_FIRE_EPISODES", 200), env_int("OMEGA_FIRE_PACKETS", 20_000))
    outage = env_int("OMEGA_FIRE_OUTAGE", 20)  # seconds between `down` returning and `up`

    def bounce(run: Run) -> dict[str, Any]:
        at = run.wait_outputs(len(packets) // 3, timeout=600)
        run.note("broker down", verdicts_out=at, seconds=own_broker("down"))
        time.sleep(outage)
        run.note("workers alive while the broker is down", alive=[w.alive() for w in run.workers])
        run.note("broker up", seconds=own_broker("up"))
        time.sleep(20)
        alive = [w.alive() for w in run.workers]
        run.note("workers alive 20 s after the broker came back", alive=alive)
        return {"workers_alive_after_bounce": alive, "outage_s": outage}

    with group_run(own_broker.bootstrap, tmp_path, packets) as run:
        under_fire("bounce", run, bounce)
        assert all(w.alive() for w in run.workers), "\n\n".join(w.log_tail() for w in run.workers)


# ------------------------------------------------------------------------------------------ 3. rebalance
def continued(live: LiveOutputs, partitions: list[int], since: dict[int, int], until: dict[int, int] | None
              ) -> list[Record]:
    """Verdicts published on `partitions` between the offsets `since` and `until` (per partition) for episodes
    with verdicts before `since`, judged from a non-initial FSM state: work that needed the moved ledger."""
    rows = list(zip(live.positions["verdicts"], live.records["verdicts"], strict=True))
    begun = {line["correlation_id"] for (part, offset), line in rows if part in partitions and offset < since[part]}
    return [line for (part, offset), line in rows
            if part in partitions and since[part] <= offset < (until or {}).get(part, 1 << 62)
            and line["correlation_id"] in begun and line["fsm"]["from"] != "S0_IDLE"]


def test_a_worker_joining_and_leaving_mid_run_gives_the_outputs_of_replay(kafka_bootstrap: str,
                                                                         tmp_path: Path) -> None:
    """Faust's assignor is sticky with a capacity of ceil(partitions / workers): with 4 partitions two workers
    hold 2 each, already at a third worker's capacity, so a third gets nothing (measured: `set()`). This test
    therefore runs 6 partitions (OMEGA_FIRE_REBALANCE_PARTITIONS), where the newcomer takes one from each."""
    packets = workload(env_int("OMEGA_FIRE_EPISODES", 200), env_int("OMEGA_FIRE_PACKETS", 20_000))
    partitions = env_int("OMEGA_FIRE_REBALANCE_PARTITIONS", 6)
    moves: dict[str, Any] = {}

    def rebalance(run: Run) -> dict[str, Any]:
        topic = run.topic("packets")
        before = [assigned(w, topic) for w in run.workers]
        run.wait_outputs(len(packets) // 5, timeout=600)
        third = run.worker()
        third.start(timeout=180)
        during = wait_for_split(run.workers, topic, partitions, timeout=180)
        moves["joined_at"], moves["taken"] = run.verdict_ends(), sorted(during[2])
        run.note("third worker joined", shares=[sorted(s) for s in during], verdict_ends=moves["joined_at"])
        run.wait_outputs(len(packets) * 3 // 5, timeout=600)
        third.stop()
        moves["left_at"] = run.verdict_ends()
        after = wait_for_split(run.workers[:2], topic, partitions, timeout=180)
        run.note("third worker left", shares=[sorted(s) for s in after], verdict_ends=moves["left_at"])
        return {"shares": {"before": [sorted(s) for s in before], "with_third": [sorted(s) for s in during],
                           "after": [sorted(s) for s in after]},
                "third_worker_restored_tables": "Restoring state from changelog topics" in third.logs()}

    with group_run(kafka_bootstrap, tmp_path, packets, partitions=partitions) as run:
        live, figures = under_fire("rebalance", run, rebalance, rate=env_int("OMEGA_FIRE_RATE", 250))
        assert all(w.alive() for w in run.workers[:2]), "\n\n".join(w.log_tail() for w in run.workers)
    # The partitions the third worker took carried their episodes' ledgers to it, and back when it left.
    taken = moves["taken"]
    there = continued(live, taken, moves["joined_at"], moves["left_at"])
    back = continued(live, taken, moves["left_at"], None)
    figures.update(moved_partitions=taken, continued_on_the_third_worker=len(there),
                   continued_after_it_left=len(back),
                   continued_episodes=len({v["correlation_id"] for v in (*there, *back)}))
    record_summary("rebalance", figures)
    assert taken, "the third worker took no partition"
    assert there, "no episode continued on the third worker"
    assert back, "no episode continued after the third worker left"
    assert all(partition_of(v["correlation_id"], partitions) in taken for v in (*there, *back))
