"""Throughput and latency of the streams shell: the Avro codec, embedded replay, and optionally a live worker.

    python -m tests.bench.bench_pipeline [--events N] [--episodes M] [--avro-replay] [--live BOOTSTRAP] [--profile]
    python -m tests.bench.bench_pipeline --core-only [--events N] [--episodes M] [--profile]
    python -m tests.bench.bench_pipeline --skip-codec --skip-replay --live BOOTSTRAP --live-workers 2 [--live-rate R]

It prints figures and never asserts on time; BENCHMARKS.md at the repo root says what each figure means.
The workload is `tests.factories` packets, `N` of them over `M` episodes, interleaved round-robin the way a
shared log carries concurrent episodes. Timers are `time.perf_counter` (monotonic, process-local).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import json
import math
import os
import platform
import pstats
import re
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter, defaultdict, deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from omega.packets.ledger import EpisodeLedger
from omega.packets.validator import evolve
from streams.replay.inputs import InputRecord, read_inputs
from streams.replay.replayer import Replayer
from streams.stages.base import Outputs, Source
from streams.stages.packets import PacketStage
from streams.topics import PACKETS, PACKETS_JSON, VERDICTS, topic_name
from streams.wire.codec import SchemaRegistry
from streams.wire.omen_avro import PACKET_SCHEMA
from tests.bench.pinning import pin_to_one_core
from tests.factories import episode_packets, merged_log, mixed_episode

REPO = Path(__file__).resolve().parents[2]
clock = time.perf_counter
RECEIVER_FETCH_MAX_WAIT_MS = 50
# The load generator lingers as a producer left at its client's default does: 5 ms for the Java client since Kafka
# 4.0 (KIP-1030) and for librdkafka since 1.5. With aiokafka's 0 every paced packet was a produce request of its own,
# which on this 2-core machine the broker and the generator paid for beside the workers (BENCHMARKS.md, issue 24).
# The publish time is stamped before the send, so the linger counts in packet -> verdict latency.
GENERATOR_LINGER_MS = 5.0
SYNCED = re.compile(r"Successfully synced group \S+ with generation (\d+)")


# ---------------------------------------------------------------------------------------------- helpers
def percentiles(samples: Sequence[float], points: Sequence[int] = (50, 95, 99)) -> dict[int, float]:
    """Nearest-rank percentiles (NaN for no samples)."""
    ordered = sorted(samples)
    if not ordered:
        return dict.fromkeys(points, math.nan)
    return {p: ordered[min(len(ordered) - 1, max(0, math.ceil(p / 100 * len(ordered)) - 1))] for p in points}


def workload(events: int, episodes: int, *, distinct_times: bool = True) -> list[dict[str, Any]]:
    """`events` factory packets over `episodes` episodes, interleaved round-robin (episode order kept). Each
    episode has its own timestamps; `distinct_times=False` is the earlier variant where every episode repeats
    the same 100, so a timestamp cache always hits (kept as a named variant, to show what it flattered)."""
    per, extra = divmod(events, episodes)
    streams = [episode_packets(ep, per + (1 if ep < extra else 0), distinct_times=distinct_times)
               for ep in range(episodes)]
    return [s[n] for n in range(per + 1) for s in streams if n < len(s)]


def to_json_bytes(packet: Mapping[str, Any]) -> bytes:
    """A packet as a producer would put it on the JSON topic (compact JSON)."""
    return json.dumps(packet, separators=(",", ":")).encode("utf-8")


def machine() -> str:
    """CPU model and count, Python version: the context every figure needs."""
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{model}, {usable_cores()} usable core(s); Python {platform.python_version()} ({platform.machine()})"


def usable_cores() -> int:
    """The CPUs this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def rate(count: int, seconds: float) -> str:
    return f"{count / seconds:>10,.0f}/s" if seconds > 0 else "       n/a"


def line(label: str, count: int, seconds: float, lat_us: Sequence[float] | None = None) -> dict[str, float]:
    """One figure: count, wall seconds, rate, and per-event latency percentiles in microseconds; printed, and
    returned as a dict (`count`, `seconds`, `per_second`, and `p50_us`/`p95_us`/`p99_us` when timed)."""
    text = f"  {label:<46} {count:>7,} in {seconds:7.3f} s = {rate(count, seconds)}"
    figure = {"count": count, "seconds": seconds, "per_second": count / seconds if seconds > 0 else math.nan}
    if lat_us:
        pct = percentiles(lat_us)
        text += f"   p50 {pct[50]:7.1f} µs  p95 {pct[95]:7.1f} µs  p99 {pct[99]:7.1f} µs"
        figure.update({f"p{p}_us": pct[p] for p in (50, 95, 99)})
    print(text)
    return figure


# ---------------------------------------------------------------------------------------------- 1. codec
def bench_codec(registry: SchemaRegistry, packets: list[dict[str, Any]]) -> dict[str, Any]:
    """JSON dict -> Avro datum -> single-object bytes, and back; plus the whole ingress stage from JSON bytes.
    Returns the figures: `convert`, `encode`, `decode`, `ingress` (see `line`), `mismatches`, `json_bytes`,
    `avro_bytes`."""
    pipeline = PacketStage(Outputs(registry))
    convert, encode = pipeline.packets.to_avro, registry.encode
    for packet in packets[:500]:  # warm-up: caches, allocator, branch predictors
        pipeline.decode_packet(encode(PACKET_SCHEMA, convert(packet)))

    lat: list[float] = []
    start = clock()
    for packet in packets:  # the conversion alone, its result dropped (the stages keep no datum either)
        t0 = clock()
        convert(packet)
        lat.append((clock() - t0) * 1e6)
    converted = line("JSON dict -> Avro datum (to_avro alone)", len(packets), clock() - start, lat)

    encoded: list[bytes] = []
    lat = []
    start = clock()
    for packet in packets:
        t0 = clock()
        value = encode(PACKET_SCHEMA, convert(packet))
        lat.append((clock() - t0) * 1e6)
        encoded.append(value)
    figures: dict[str, Any] = {"convert": converted,
                               "encode": line("JSON dict -> Avro datum -> bytes (encode)", len(packets),
                                              clock() - start, lat)}

    decoded: list[dict[str, object]] = []
    lat = []
    start = clock()
    for value in encoded:
        t0 = clock()
        packet_back = pipeline.decode_packet(value)
        lat.append((clock() - t0) * 1e6)
        decoded.append(packet_back)
    figures["decode"] = line("bytes -> Avro datum -> JSON dict (decode)", len(encoded), clock() - start, lat)

    raws = [to_json_bytes(p) for p in packets]
    source = Source("bench", 0, 0)
    lat = []
    start = clock()
    for raw in raws:
        t0 = clock()
        pipeline.ingress(raw, source)
        lat.append((clock() - t0) * 1e6)
    figures["ingress"] = line("ingress stage: JSON bytes -> Emit (parse+enc)", len(raws), clock() - start, lat)

    mismatches = sum(a != b for a, b in zip(packets, decoded, strict=True))
    json_size, avro_size = sum(map(len, raws)) / len(raws), sum(map(len, encoded)) / len(encoded)
    print(f"  sizes: JSON {json_size:.0f} B/packet, Avro single-object {avro_size:.0f} B/packet;"
          f" round-trip mismatches: {mismatches}")
    return {**figures, "mismatches": mismatches, "json_bytes": json_size, "avro_bytes": avro_size}


# ---------------------------------------------------------------------------------------------- 2. replay
def stopwatch(stage: PacketStage) -> defaultdict[str, float]:
    """Seconds spent in each of `stage`'s steps, its methods wrapped on the instance (about 1 µs per call)."""
    seconds: defaultdict[str, float] = defaultdict(float)
    def timed(real: Callable[..., Any], name: str) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            t0 = clock()
            try:
                return real(*args, **kwargs)
            finally:
                seconds[name] += clock() - t0
        return call
    for method, name in (("ingress", "ingress"), ("decode_packet", "decode"), ("packet", "validator")):
        setattr(stage, method, timed(getattr(stage, method), name))
    return seconds


def timed_reads(records: Iterator[InputRecord], seconds: defaultdict[str, float]) -> Iterator[InputRecord]:
    """`records`, adding the time spent producing each one (file read + record construction) to `seconds`."""
    while True:
        t0 = clock()
        try:
            record = next(records)
        except StopIteration:
            seconds["read"] += clock() - t0
            return
        seconds["read"] += clock() - t0
        yield record


def write_jsonl(path: Path, packets: list[dict[str, Any]]) -> None:
    with path.open("wb") as handle:
        for packet in packets:
            handle.write(to_json_bytes(packet) + b"\n")


def bench_replay(registry: SchemaRegistry, packets: list[dict[str, Any]], profile_top: int) -> dict[str, Any]:
    """Replayer over a JSONL file: plain, with a per-stage stopwatch, with JSONL output, and under cProfile.
    Returns the figures: `plain`, `stopwatch`, `out_jsonl` (see `line`), `split_us` (µs/event per stage),
    `verdicts` (statuses), `dead_letters`, `episodes`."""
    with tempfile.TemporaryDirectory(prefix="omega-bench-") as tmp:
        path = Path(tmp) / "episodes.jsonl"
        write_jsonl(path, packets)
        print(f"  input: {path.stat().st_size / 1e6:.1f} MB JSONL, {len(packets):,} lines")

        replayer = Replayer(Outputs(registry))
        start = clock()
        summary = replayer.run(read_inputs([path]))
        figures: dict[str, Any] = {"plain": line("replay (no output)", summary.events_in, clock() - start)}
        figures.update(verdicts=dict(summary.verdicts), dead_letters=sum(summary.dead_letters.values()),
                       episodes=summary.episodes)
        print(f"    verdicts {dict(summary.verdicts)}, dead letters {sum(summary.dead_letters.values())},"
              f" episodes {summary.episodes}")

        replayer = Replayer(Outputs(registry))
        s = stopwatch(replayer.packet_stage)
        start = clock()
        replayer.run(timed_reads(read_inputs([path]), s))
        total = clock() - start
        figures["stopwatch"] = line("replay with per-stage stopwatch", replayer.summary.events_in, total)
        parts = {
            "file read + InputRecord": s["read"],
            "ingress (parse, convert, encode)": s["ingress"],
            "validator: decode + from_avro": s["decode"],
            "validator: evolve + encode verdict": s["validator"] - s["decode"],
            "Replayer bookkeeping (rest)": total - s["read"] - s["ingress"] - s["validator"],
        }
        n = max(replayer.summary.events_in, 1)
        figures["split_us"] = {name: seconds / n * 1e6 for name, seconds in parts.items()}
        for name, seconds in parts.items():
            print(f"    {name:<36} {seconds:7.3f} s  {seconds / total:6.1%}  {seconds / n * 1e6:7.1f} µs/event")

        replayer = Replayer(Outputs(registry))
        with (Path(tmp) / "out.jsonl").open("w", encoding="utf-8") as out:
            start = clock()
            replayer.run(read_inputs([path]), out)
            elapsed = clock() - start
        figures["out_jsonl"] = line("replay with --out JSONL (as `omega replay`)", replayer.summary.events_in,
                                    elapsed)

        if profile_top:
            replayer = Replayer(Outputs(registry))
            print_profile("one replay (no output)", lambda: replayer.run(read_inputs([path])), profile_top)
    return figures


def write_avro_container(path: Path, registry: SchemaRegistry, packets: list[dict[str, Any]]) -> None:
    """The packets as an Avro object container file of `PACKET_SCHEMA` records (what `omega replay` reads)."""
    import fastavro

    convert = PacketStage(Outputs(registry)).packets.to_avro
    with path.open("wb") as handle:
        fastavro.writer(handle, registry.get(PACKET_SCHEMA).parsed, (convert(p) for p in packets))


def bench_replay_avro(registry: SchemaRegistry, packets: list[dict[str, Any]]) -> dict[str, Any]:
    """Replayer over an Avro object container file (written first, not timed), as `omega replay FILE.avro`:
    container read, Avro datum -> JSON, ingress, validator. Returns `avro` (see `line`) and `verdicts`."""
    with tempfile.TemporaryDirectory(prefix="omega-bench-") as tmp:
        path = Path(tmp) / "episodes.avro"
        write_avro_container(path, registry, packets)
        print(f"  input: {path.stat().st_size / 1e6:.1f} MB Avro object container file, {len(packets):,} records")
        replayer = Replayer(Outputs(registry))
        start = clock()
        summary = replayer.run(read_inputs([path]))
        figure = line("replay from an Avro container file", summary.events_in, clock() - start)
        print(f"    verdicts {dict(summary.verdicts)}, dead letters {sum(summary.dead_letters.values())}")
    return {"avro": figure, "verdicts": dict(summary.verdicts), "dead_letters": sum(summary.dead_letters.values())}


def print_profile(label: str, run: Any, top: int) -> None:
    """Run `run()` under cProfile and print the `top` functions by own time, then by cumulative time."""
    profiler = cProfile.Profile()
    profiler.enable()
    run()
    profiler.disable()
    report = io.StringIO()
    stats = pstats.Stats(profiler, stream=report)
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top)
    print(f"  cProfile of {label}, by own time then by cumulative time:")
    print("\n".join("    " + row for row in report.getvalue().splitlines() if row.strip()))


# ---------------------------------------------------------------------------------------------- 2b. core
def mixed_workload(events: int, episodes: int) -> list[dict[str, Any]]:
    """`events` packets over `episodes` concurrent episodes built from the bundled examples (accepted, warned
    and rejected packets, re-sent duplicates, dangling directives, 1 in 25 episodes over budget), merged by
    send time: the workload of tests/integration/test_two_workers_equivalence.py."""
    per, extra = divmod(events, episodes)
    start = datetime(2025, 12, 21, 9, 0, tzinfo=UTC)
    return merged_log([mixed_episode(ep, per + (1 if ep < extra else 0), start + timedelta(seconds=2 * ep),
                                     tight_budget=ep % 25 == 7) for ep in range(episodes)])


def judge_all(packets: list[dict[str, Any]], lat_us: list[float] | None = None) -> Counter[str]:
    """`evolve` over every packet with a dict of ledgers as the table; returns the verdict statuses."""
    ledgers: dict[str, EpisodeLedger] = {}
    statuses: Counter[str] = Counter()
    for packet in packets:
        key = packet["header"]["correlation_id"]
        if lat_us is None:
            ledger, outputs = evolve(ledgers.get(key), packet)
        else:
            t0 = clock()
            ledger, outputs = evolve(ledgers.get(key), packet)
            lat_us.append((clock() - t0) * 1e6)
        ledgers[key] = ledger
        statuses[str(getattr(outputs[0], "status", "?"))] += 1
    return statuses


def bench_core(workloads: dict[str, list[dict[str, Any]]], profile_top: int) -> dict[str, Any]:
    """The pure core alone: `omega.packets.validator.evolve` over pre-parsed packet dicts, one core.

    No JSON, no Avro, no Kafka: what every shell (worker, replay) pays per packet at the least. Returns, per
    workload name, `rate` and `timed` (see `line`) and `statuses`. The process stays pinned afterwards."""
    print(f"  {pin_to_one_core()}; gc on; ledgers in a dict per correlation_id, fresh for each run")
    figures: dict[str, Any] = {}
    for name, packets in workloads.items():
        parsed = [json.loads(to_json_bytes(p)) for p in packets]  # as a JSON parser hands them over
        judge_all(parsed[: min(len(parsed), 2_000)])  # warm-up
        start = clock()
        statuses = judge_all(parsed)
        plain = line(f"evolve, {name}", len(parsed), clock() - start)
        lat: list[float] = []
        start = clock()
        judge_all(parsed, lat)
        timed = line(f"evolve, {name}, timed per packet", len(parsed), clock() - start, lat)
        print(f"    statuses {dict(statuses)}")
        figures[name] = {"rate": plain, "timed": timed, "statuses": dict(statuses)}
    if profile_top:
        name, packets = list(workloads.items())[-1]
        parsed = [json.loads(to_json_bytes(p)) for p in packets]
        print_profile(f"one core run ({name})", lambda: judge_all(parsed), profile_top)
    return figures


# ---------------------------------------------------------------------------------------------- 3. live
class WorkerProcess:
    """`python -m streams.cli.main worker` as a child process, its log drained by a thread (a full pipe blocks it)."""

    def __init__(self, bootstrap: str, prefix: str, app_id: str, data_dir: Path, partitions: int) -> None:
        env = {**os.environ, "KAFKA_BOOTSTRAP_SERVERS": bootstrap, "OMEGA_LOG_LEVEL": "INFO",
               "PYTHONUNBUFFERED": "1"}
        argv = [sys.executable, "-m", "streams.cli.main", "worker", "--prefix", prefix, "--app-id", app_id,
                "--data-dir", str(data_dir), "--partitions", str(partitions)]
        self.proc = subprocess.Popen(argv, cwd=REPO, env=env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.log: deque[str] = deque(maxlen=40)
        self.ready = threading.Event()
        self.generation = 0  # the consumer group generation of the latest assignment
        self.recovered_generation = -1  # the generation whose table recovery completed last
        self._drain = threading.Thread(target=self._read_log, name="worker-log", daemon=True)
        self._drain.start()

    def _read_log(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            text = raw.decode("utf-8", "replace").rstrip()
            self.log.append(text)
            synced = SYNCED.search(text)
            if synced:
                self.generation = int(synced.group(1))
            elif "Recovery]: Recovery complete" in text:
                self.recovered_generation = self.generation
            if text.endswith("Ready"):
                self.ready.set()

    def wait_ready(self, timeout: float) -> bool:
        deadline = clock() + timeout
        while clock() < deadline and self.proc.poll() is None:
            if self.ready.wait(0.2):
                return True
        return False

    def stop(self) -> int | None:
        """SIGTERM (Faust shuts down cleanly), SIGKILL after 30 s; returns the exit code."""
        return stop_child(self.proc, self._drain)


def stop_child(proc: subprocess.Popen[Any], drain: threading.Thread) -> int | None:
    """SIGTERM, SIGKILL after 30 s, then the log reader joined and the pipe closed; returns the exit code."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
    drain.join(5)
    if proc.stdout is not None:
        proc.stdout.close()
    return proc.returncode


@dataclass
class LiveResult:
    published: int = 0
    publish_seconds: float = 0.0
    sent_at: dict[str, float] = field(default_factory=dict)
    arrived_at: dict[str, float] = field(default_factory=dict)
    statuses: Counter[str] = field(default_factory=Counter)
    duplicates: int = 0
    cpu_seconds: dict[str, float] = field(default_factory=dict)  # per process role, over the phase


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of process `pid` so far (/proc/PID/stat), or None when it cannot be read."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime: fields 14, 15


def cpu_of(pids: Mapping[str, int]) -> dict[str, float]:
    """CPU seconds so far of each named process (left out when unreadable)."""
    read = {role: cpu_seconds(pid) for role, pid in pids.items()}
    return {role: value for role, value in read.items() if value is not None}


def avro_encoder(registry: SchemaRegistry) -> Any:
    """Packet dict -> the Avro record an Avro producer writes to the packets topic (no ingress hop)."""
    pipeline = PacketStage(Outputs(registry, 1 << 20))
    return lambda packet: registry.encode(PACKET_SCHEMA, pipeline.packets.to_avro(packet))


async def _drive(bootstrap: str, prefix: str, registry: SchemaRegistry, warmup: list[dict[str, Any]],
                 packets: list[dict[str, Any]], per_second: float, timeout: float,
                 avro: bool = False, pids: Mapping[str, int] | None = None,
                 linger_ms: float = GENERATOR_LINGER_MS) -> tuple[LiveResult, LiveResult]:
    """Publish the warm-up, wait for its verdicts, then publish `packets` while a task receives verdicts; as
    JSON to the ingress topic, or (`avro`) as Avro straight to the packets topic, through a producer lingering
    `linger_ms`. The CPU time of each process in `pids` (and of this one, as "bench") is read at the start and end
    of each phase."""
    watched = {**(pids or {}), "bench": os.getpid()}
    from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition

    json_topic = topic_name(PACKETS if avro else PACKETS_JSON, prefix)
    verdict_topic = topic_name(VERDICTS, prefix)
    encode = avro_encoder(registry) if avro else to_json_bytes
    # A short long-poll, as a real-time consumer of verdicts would set: with aiokafka's 500 ms, a fetch of the
    # other partitions held a partition's verdicts back while its buffered ones were read (see kafka/transport.py).
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False,
                                auto_offset_reset="earliest", fetch_max_wait_ms=RECEIVER_FETCH_MAX_WAIT_MS)
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all", enable_idempotence=True, linger_ms=linger_ms)
    await consumer.start()
    await producer.start()
    try:
        metadata = await consumer._client.fetch_all_metadata()  # no public per-topic lookup
        ids = metadata.partitions_for_topic(verdict_topic) or set()
        if not ids:
            raise RuntimeError(f"the worker did not create {verdict_topic}")
        consumer.assign([TopicPartition(verdict_topic, p) for p in sorted(ids)])
        await consumer.seek_to_beginning()
        phases = (LiveResult(), LiveResult())
        for phase, batch in zip(phases, (warmup, packets), strict=True):
            raws = [(p["header"]["packet_id"], p["header"]["correlation_id"].encode(), encode(p))
                    for p in batch]
            receiver = asyncio.create_task(_receive(consumer, registry, phase, len(raws)))
            cpu_before = cpu_of(watched)
            start = clock()
            for n, (packet_id, key, raw) in enumerate(raws, start=1):
                if per_second:
                    await asyncio.sleep(max(0.0, start + n / per_second - clock()))
                elif n % 100 == 0:
                    await asyncio.sleep(0)  # let the receiver stamp arrivals while a burst is being sent
                phase.sent_at[packet_id] = clock()
                await producer.send(json_topic, value=raw, key=key)
            await producer.flush()
            phase.published, phase.publish_seconds = len(raws), clock() - start
            try:
                await asyncio.wait_for(receiver, timeout)
            except TimeoutError:
                print(f"  TIMEOUT: {len(phase.arrived_at)}/{len(raws)} verdicts after {timeout:.0f} s")
                break
            finally:
                cpu_after = cpu_of(watched)
                phase.cpu_seconds = {role: cpu_after[role] - cpu_before[role]
                                     for role in cpu_before.keys() & cpu_after.keys()}
        return phases
    finally:
        await producer.stop()
        await consumer.stop()


async def _receive(consumer: Any, registry: SchemaRegistry, phase: LiveResult, expected: int) -> None:
    """Stamp each verdict with the time its batch came back from `getmany` (the consumer's receive time)."""
    while len(phase.arrived_at) < expected:
        batch = await consumer.getmany(timeout_ms=100)
        now = clock()
        for messages in batch.values():
            for message in messages:
                _, verdict = registry.decode(message.value)
                packet_id = verdict["packet_id"]
                if packet_id not in phase.sent_at:
                    continue  # a warm-up verdict arriving late, or a foreign record
                if packet_id in phase.arrived_at:
                    phase.duplicates += 1
                    continue
                phase.arrived_at[packet_id] = now
                phase.statuses[str(verdict["status"])] += 1


async def _changelog_records(bootstrap: str, stem: str) -> dict[str, int]:
    """Records written to each changelog topic of the run (the sum of its partitions' end offsets)."""
    from aiokafka import AIOKafkaConsumer, TopicPartition
    from aiokafka.admin import AIOKafkaAdminClient

    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        names = sorted(t for t in await admin.list_topics() if t.startswith(stem) and t.endswith("-changelog"))
    finally:
        await admin.close()
    consumer = AIOKafkaConsumer(*names, bootstrap_servers=bootstrap)  # subscribed: their partitions are known
    await consumer.start()
    try:
        counts: dict[str, int] = {}
        for topic in names:
            parts = [TopicPartition(topic, p) for p in consumer.partitions_for_topic(topic) or ()]
            counts[topic] = sum((await consumer.end_offsets(parts)).values())
        return counts
    finally:
        await consumer.stop()


async def _delete_topics(bootstrap: str, stem: str) -> list[str]:
    from aiokafka.admin import AIOKafkaAdminClient

    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        names = [t for t in await admin.list_topics() if t.startswith(stem)]
        if names:
            await admin.delete_topics(names)
        return names
    finally:
        await admin.close()


def delete_bench_topics(bootstrap: str, stem: str, indent: str = "  ") -> None:
    """Delete the run's topics (names starting with `stem`) and say how many went; best effort: a failure is
    printed, never raised, so the run's figures stand."""
    try:
        deleted = asyncio.run(_delete_topics(bootstrap, stem))
        print(f"{indent}deleted {len(deleted)} bench topic(s)")
    except Exception as exc:  # noqa: BLE001 - cleanup is best effort, the figures stand
        print(f"{indent}could not delete the bench topics: {exc!r}")


def report_live(label: str, phase: LiveResult) -> dict[str, Any]:
    """Print one phase's figures; returns them (`published`, `verdicts`, `per_second` end to end, latency
    `p50_ms`/`p95_ms`/`p99_ms`/`max_ms`, `statuses`, `duplicates`), or {} for a phase that never ran."""
    if not phase.sent_at:
        return {}
    first_sent = min(phase.sent_at.values())
    received = len(phase.arrived_at)
    span = (max(phase.arrived_at.values()) - first_sent) if received else 0.0
    lat_ms = [(phase.arrived_at[p] - phase.sent_at[p]) * 1e3 for p in phase.arrived_at]
    pct = percentiles(lat_ms, (50, 95, 99, 100))
    print(f"  {label}: published {phase.published:,} in {phase.publish_seconds:.3f} s"
          f" ({rate(phase.published, phase.publish_seconds).strip()}); {received:,} verdicts,"
          f" last one {span:.3f} s after the first publish = {rate(received, span).strip()} end to end")
    print(f"    latency publish -> verdict received: p50 {pct[50]:.1f} ms  p95 {pct[95]:.1f} ms"
          f"  p99 {pct[99]:.1f} ms  max {pct[100]:.1f} ms; statuses {dict(phase.statuses)},"
          f" duplicates {phase.duplicates}")
    if phase.publish_seconds >= 2.0 and lat_ms:  # paced: where in time does the tail come from?
        print("    " + tail_buckets(phase, first_sent))
    cpu_ms = {role: seconds * 1e3 / phase.published for role, seconds in sorted(phase.cpu_seconds.items())}
    if cpu_ms:
        print("    CPU per packet (/proc/PID/stat, publish start -> last verdict): "
              + ", ".join(f"{role} {ms:.3f} ms" for role, ms in cpu_ms.items())
              + f"; all {sum(cpu_ms.values()):.3f} ms")
        if span > 0:  # a paced run's tail means little once these processes want every core the machine has
            busy = sum(phase.cpu_seconds.values()) / span
            print(f"    cores busy (the processes above, publish start -> last verdict): {busy:.2f} of"
                  f" {usable_cores()} usable")
    return {"published": phase.published, "publish_seconds": phase.publish_seconds, "verdicts": received,
            "seconds": span, "per_second": received / span if span > 0 else math.nan,
            **{f"p{p}_ms" if p < 100 else "max_ms": pct[p] for p in (50, 95, 99, 100)},
            "statuses": dict(phase.statuses), "duplicates": phase.duplicates, "cpu_ms_per_packet": cpu_ms}


def tail_buckets(phase: LiveResult, first_sent: float, width: float = 0.5, worst: int = 5) -> str:
    """The p99 of each half-second of publishing (by publish time): the worst few buckets, and how many buckets
    have a p99 above 100 ms, so a tail from a periodic stall (a commit, a tick, a GC) shows as such."""
    buckets: dict[int, list[float]] = {}
    for packet_id, arrived in phase.arrived_at.items():
        sent = phase.sent_at[packet_id]
        buckets.setdefault(int((sent - first_sent) / width), []).append((arrived - sent) * 1e3)
    p99s = {b: percentiles(lats, (99,))[99] for b, lats in buckets.items()}
    over = sum(1 for v in p99s.values() if v > 100.0)
    top = sorted(p99s.items(), key=lambda item: -item[1])[:worst]
    series = " ".join(f"{p99s[b]:.0f}" if b in p99s else "-" for b in range(max(p99s) + 1))
    return (f"p99 per {width:g} s of publishing: {over}/{len(p99s)} buckets over 100 ms; worst "
            + ", ".join(f"t={b * width:.1f}s {v:.0f} ms" for b, v in top)
            + f"\n    p99 (ms) of each {width:g} s in publishing order: {series}")


def settled(workers: list[WorkerProcess]) -> int | None:
    """The group generation once every worker holds it and finished recovering its tables for it."""
    generations = {w.generation for w in workers}
    if len(generations) == 1 and all(w.recovered_generation == w.generation > 0 for w in workers):
        return generations.pop()
    return None


def wait_settled(workers: list[WorkerProcess], timeout: float, quiet_for: float = 2.0) -> int | None:
    """Wait until the group has been settled at one generation for `quiet_for` seconds (no rebalance pending)."""
    deadline = clock() + timeout
    since, seen = clock(), None
    while clock() < deadline and all(w.proc.poll() is None for w in workers):
        now = settled(workers)
        if now != seen:
            since, seen = clock(), now
        elif now is not None and clock() - since >= quiet_for:
            return now
        time.sleep(0.1)
    return None


def bench_live(
    bootstrap: str, registry: SchemaRegistry, packets: list[dict[str, Any]], args: argparse.Namespace
) -> dict[str, Any]:
    """Real workers (`--live-workers`, one consumer group) on a real broker, under fresh topic names; the
    workers are stopped whatever happens. Returns `ok` (every verdict arrived), `workers`, `rate` (0: burst),
    `warmup` and `measured` (see `report_live`, empty when the run failed before them)."""
    app_id = f"bench-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    prefix = f"{app_id}."
    warmup = [p for ep in range(args.episodes, args.episodes + 4) for p in episode_packets(ep, 10, distinct_times=True)]
    print(f"  broker {bootstrap}, app id / topic prefix {prefix}, {args.live_partitions} partitions,"
          f" {args.live_workers} worker process(es), {len(packets):,} packets"
          + (f" at {args.live_rate:,.0f}/s" if args.live_rate else " as a burst")
          + (", Avro to the packets topic" if args.live_avro else ", JSON to the ingress topic")
          + f", generator linger {args.live_linger_ms:g} ms")
    result: dict[str, Any] = {"ok": False, "workers": args.live_workers, "rate": args.live_rate,
                              "warmup": {}, "measured": {}}
    with tempfile.TemporaryDirectory(prefix="omega-bench-worker-") as data_dir:
        started = clock()
        workers = [WorkerProcess(bootstrap, prefix, app_id, Path(data_dir) / f"worker-{n}", args.live_partitions)
                   for n in range(args.live_workers)]
        try:
            for n, worker in enumerate(workers):
                if not worker.wait_ready(args.live_timeout):
                    print(f"  worker {n} not ready (exit code {worker.proc.poll()}); its last log lines:")
                    print("\n".join("    " + t for t in worker.log))
                    return result
            print(f"  worker(s) ready after {clock() - started:.1f} s")
            generation = wait_settled(workers, args.live_timeout)
            if generation is None:
                print("  the consumer group did not settle; last log lines of each worker:")
                for worker in workers:
                    print("\n".join("    " + t for t in worker.log))
                return result
            print(f"  group settled at generation {generation} after {clock() - started:.1f} s")
            pids = {f"worker {n}": w.proc.pid for n, w in enumerate(workers)}
            if args.broker_pid:
                pids["broker"] = args.broker_pid
            warm, measured = asyncio.run(_drive(bootstrap, prefix, registry, warmup, packets,
                                                args.live_rate, args.live_timeout, args.live_avro, pids,
                                                args.live_linger_ms))
            result["warmup"] = report_live(f"warm-up ({len(warmup)} packets)", warm)
            result["measured"] = report_live("measured", measured)
            result["ok"] = len(measured.arrived_at) == len(packets)
            if {w.generation for w in workers} != {generation}:
                print(f"  NOTE: the group rebalanced during the run (generations {[w.generation for w in workers]})")
        finally:
            codes = [worker.stop() for worker in workers]
            print(f"  worker(s) stopped (exit code(s) {codes})")
            try:  # changelog volume: what the workers' table writes cost the broker per packet judged
                judged = len(warmup) + len(packets)
                for topic, count in asyncio.run(_changelog_records(bootstrap, app_id)).items():
                    if count:
                        print(f"  changelog {topic.rsplit('.', 1)[-1]}: {count:,} records = {count / judged:.2f} "
                              f"per packet")
            except Exception as exc:  # noqa: BLE001 - a figure beside the others, not a condition of the run
                print(f"  could not count the changelog records: {exc!r}")
            if not args.keep_topics:
                delete_bench_topics(bootstrap, app_id)
    return result


# ---------------------------------------------------------------------------------------------- main
def parser() -> argparse.ArgumentParser:
    """The command line of `python -m tests.bench.bench_pipeline` (also what `tests.bench.suite` passes)."""
    parser = argparse.ArgumentParser(prog="python -m tests.bench.bench_pipeline", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=50_000, help="packets for the codec and replay figures")
    parser.add_argument("--episodes", type=int, default=500, help="episodes the packets are spread over")
    parser.add_argument("--skip-codec", action="store_true")
    parser.add_argument("--skip-replay", action="store_true")
    parser.add_argument("--avro-replay", action="store_true",
                        help="also replay the packets from an Avro object container file (as `omega replay x.avro`)")
    parser.add_argument("--profile", type=int, nargs="?", const=15, default=0, metavar="TOP",
                        help="also run one replay under cProfile and print the TOP functions (default 15)")
    parser.add_argument("--live", metavar="BOOTSTRAP", help="also measure a real worker against this broker")
    parser.add_argument("--live-events", type=int, default=5_000, help="packets published in the live run")
    parser.add_argument("--live-rate", type=float, default=0.0, help="publish rate (packets/s); 0 = burst")
    parser.add_argument("--live-linger-ms", type=float, default=GENERATOR_LINGER_MS,
                        help="the load generator's producer linger (default 5, the Java client's and librdkafka's"
                             " default; 0 sends each paced packet in a request of its own)")
    parser.add_argument("--live-partitions", type=int, default=4)
    parser.add_argument("--live-timeout", type=float, default=180.0,
                        help="seconds to wait for the worker to be ready, and for each phase's verdicts")
    parser.add_argument("--live-avro", action="store_true",
                        help="publish Avro straight to the packets topic (as Avro producers do) instead of JSON to"
                             " the ingress topic")
    parser.add_argument("--live-workers", type=int, default=1,
                        help="worker processes in the live run, all in one consumer group")
    parser.add_argument("--keep-topics", action="store_true", help="leave the bench-* topics on the broker")
    parser.add_argument("--broker-pid", type=int, default=0,
                        help="also report the CPU time of this process (the broker's) per packet")
    parser.add_argument("--core-only", action="store_true",
                        help="only the pure core: validator `evolve` over pre-parsed dicts, pinned to one core"
                             " (factory and mixed workloads; --profile profiles the mixed run)")
    return parser


def run(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Run the figures `argv` asks for, printing them; returns them by section (`codec`, `replay`,
    `avro_replay`, `core`, `live`: the dicts of `bench_codec`, `bench_replay`, ...) and `ok` (False only
    when a live run did not get every verdict in time)."""
    cli = parser()
    args = cli.parse_args(argv)
    if args.events < 1 or args.episodes < 1:
        cli.error("--events and --episodes must be positive")
    if args.live_workers < 1:
        cli.error("--live-workers must be positive")
    if args.live_linger_ms < 0:
        cli.error("--live-linger-ms must not be negative")

    print(f"machine: {machine()}")
    figures: dict[str, Any] = {"ok": True}
    if args.core_only:
        print(f"\n2b. pure core ({args.events:,} packets over {args.episodes:,} episodes, pre-parsed dicts)")
        figures["core"] = bench_core({
            "factory workload": workload(args.events, args.episodes),
            "factory workload, shared timestamps": workload(args.events, args.episodes,
                                                                             distinct_times=False),
            "mixed workload": mixed_workload(args.events, args.episodes)}, args.profile)
        return figures
    started = clock()
    registry = SchemaRegistry.from_directory()
    print(f"schemas parsed in {(clock() - started) * 1e3:.0f} ms")
    packets = workload(args.events, args.episodes)
    if not args.skip_codec:
        print(f"\n1. codec ({len(packets):,} packets, per-event latency in µs)")
        figures["codec"] = bench_codec(registry, packets)
    if not args.skip_replay:
        print(f"\n2. embedded replay ({len(packets):,} packets over {args.episodes:,} episodes, JSONL file)")
        figures["replay"] = bench_replay(registry, packets, args.profile)
    if args.avro_replay:
        print(f"\n2c. replay from an Avro container file ({len(packets):,} packets over {args.episodes:,} episodes)")
        figures["avro_replay"] = bench_replay_avro(registry, packets)
    if args.live:
        # same packets per episode as the replay figure, so the ledgers grow to the same size
        live_episodes = max(1, round(args.live_events * args.episodes / args.events))
        live_packets = workload(args.live_events, live_episodes)
        print(f"\n3. live worker(s) ({len(live_packets):,} packets over {live_episodes:,} episodes)")
        figures["live"] = bench_live(args.live, registry, live_packets, args)
        figures["ok"] = figures["live"]["ok"]
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    return 0 if run(argv)["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
