"""The anchor, built into the benchmark (issue 24): Faust workers against the raw loop, same broker, same run.

    python -m tests.bench.bench_anchor [--events 30000] [--processes 2] [--rounds 2] [--bootstrap B] [--broker-pid P]

Per round, alternated: (a) the Faust workers of `bench_pipeline --live B --live-workers N --live-avro`, and (b) N
raw loop processes (tests/bench/raw_loop.py: aiokafka getmany -> the validator step over a dict -> batched sends ->
commit; no changelog), on the same broker, 4 partitions, the same workload, published and received by the same
functions of bench_pipeline. Printed per round: verdicts/s end to end, p50/p99 latency, CPU ms per packet per
process (/proc/PID/stat), the ratio Faust/raw, and the pure `evolve` cost per packet beside them. Without
--bootstrap a broker is started with deploy/kafka/kafka.sh on free ports and stopped at the end. Never asserts
on time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import threading
import time
import uuid
from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any

from streams.stages.base import Outputs
from streams.stages.packets import PacketStage
from streams.wire.codec import SchemaRegistry
from tests.bench import bench_pipeline, raw_loop
from tests.bench.bench_pipeline import REPO, clock
from tests.factories import episode_packets

PARTITIONS = 4


class RawProcess:
    """`python -m tests.bench.raw_loop` as a child process, its output drained by a thread (a full pipe blocks it)."""

    def __init__(self, bootstrap: str, prefix: str, group: str, partitions: int, changelog: bool = False) -> None:
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        argv = [sys.executable, "-m", "tests.bench.raw_loop", "--bootstrap", bootstrap, "--group", group,
                "--prefix", prefix, "--partitions", str(partitions)] + (["--changelog"] if changelog else [])
        self.proc = subprocess.Popen(argv, cwd=REPO, env=env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.log: deque[str] = deque(maxlen=40)
        self.ready = threading.Event()
        self.assigned: frozenset[int] | None = None  # the partitions of its latest assignment
        self.changed = clock()  # when the assignment last changed
        self._drain = threading.Thread(target=self._read_log, name="raw-loop-log", daemon=True)
        self._drain.start()

    def _read_log(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            text = raw.decode("utf-8", "replace").rstrip()
            self.log.append(text)
            if text == raw_loop.READY:
                self.ready.set()
            elif text.startswith(raw_loop.ASSIGNED):
                partitions = text[len(raw_loop.ASSIGNED):].strip(" []")
                self.assigned = frozenset(int(p) for p in partitions.split(",") if p.strip())
                self.changed = clock()

    def stop(self) -> int | None:
        """SIGTERM (the loop leaves its group), SIGKILL after 30 s; returns the exit code."""
        return bench_pipeline.stop_child(self.proc, self._drain)


def wait_assigned(processes: list[RawProcess], partitions: int, timeout: float, quiet_for: float = 2.0) -> bool:
    """Wait until the processes' assignments split every partition between them, unchanged for `quiet_for` s."""
    deadline = clock() + timeout
    while clock() < deadline and all(p.proc.poll() is None for p in processes):
        sets = [p.assigned for p in processes]
        if all(s is not None for s in sets):
            owned = [q for s in sets if s is not None for q in s]
            if sorted(owned) == list(range(partitions)) and clock() - max(p.changed for p in processes) >= quiet_for:
                return True
        time.sleep(0.1)
    return False


def live_workload(events: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(warm-up, measured packets) exactly as `bench_pipeline --live --live-events events` builds them."""
    defaults = bench_pipeline.parser().parse_args([])
    episodes = max(1, round(events * defaults.episodes / defaults.events))  # as bench_pipeline.run
    warmup = [p for ep in range(defaults.episodes, defaults.episodes + 4)
              for p in episode_packets(ep, 10, distinct_times=True)]  # as bench_pipeline.bench_live
    return warmup, bench_pipeline.workload(events, episodes)


def raw_run(bootstrap: str, packets: list[dict[str, Any]], warmup: list[dict[str, Any]], processes: int,
            timeout: float, broker_pid: int | None, changelog: bool = False) -> dict[str, Any]:
    """N raw loops (with `changelog`, sending their table entries too) in one group under fresh topic names, driven
    and measured by bench_pipeline's `_drive`; returns `ok` and `measured` (see bench_pipeline.report_live); the
    processes are stopped whatever happens."""
    app_id = f"anchor-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    prefix = f"{app_id}."
    print(f"  broker {bootstrap}, topic prefix {prefix}, {PARTITIONS} partitions, {processes} raw loop process(es),"
          f" {len(packets):,} packets as a burst, Avro to the packets topic"
          + (", table entries to a changelog" if changelog else ""))
    result: dict[str, Any] = {"ok": False, "measured": {}}
    registry = SchemaRegistry.from_directory()
    started = clock()
    loops = [RawProcess(bootstrap, prefix, app_id, PARTITIONS, changelog) for _ in range(processes)]
    try:
        for n, loop in enumerate(loops):
            if not loop.ready.wait(timeout):
                print(f"  raw loop {n} not ready (exit code {loop.proc.poll()}); its last lines:")
                print("\n".join("    " + t for t in loop.log))
                return result
        if not wait_assigned(loops, PARTITIONS, timeout):
            print("  the raw loops' group did not settle; their last lines:")
            for loop in loops:
                print("\n".join("    " + t for t in loop.log))
            return result
        print(f"  raw loops ready and assigned after {clock() - started:.1f} s"
              f" ({[sorted(loop.assigned or ()) for loop in loops]})")
        pids = {f"raw {n}": loop.proc.pid for n, loop in enumerate(loops)}
        if broker_pid:
            pids["broker"] = broker_pid
        warm, measured = asyncio.run(bench_pipeline._drive(bootstrap, prefix, registry, warmup, packets, 0.0,
                                                           timeout, True, pids))
        bench_pipeline.report_live(f"warm-up ({len(warmup)} packets)", warm)
        result["measured"] = bench_pipeline.report_live("measured", measured)
        result["ok"] = len(measured.arrived_at) == len(packets)
    finally:
        codes = [loop.stop() for loop in loops]
        print(f"  raw loop(s) stopped (exit code(s) {codes})")
        bench_pipeline.delete_bench_topics(bootstrap, app_id)
    return result


def faust_run(bootstrap: str, events: int, processes: int, timeout: float, broker_pid: int | None) -> dict[str, Any]:
    """bench_pipeline's live run of `processes` Faust workers; returns `ok` and `measured`."""
    argv = ["--skip-codec", "--skip-replay", "--live", bootstrap, "--live-workers", str(processes), "--live-avro",
            "--live-events", str(events), "--live-partitions", str(PARTITIONS), "--live-timeout", str(timeout)]
    if broker_pid:
        argv += ["--broker-pid", str(broker_pid)]
    figures = bench_pipeline.run(argv)
    live = figures.get("live", {})
    return {"ok": bool(live.get("ok")), "measured": live.get("measured", {})}


def per_process_cpu(measured: Mapping[str, Any], prefix: str) -> list[float]:
    """CPU ms per packet of each judging process (roles `worker N` or `raw N`)."""
    return [ms for role, ms in sorted(measured.get("cpu_ms_per_packet", {}).items()) if role.startswith(prefix)]


def summary_line(label: str, measured: Mapping[str, Any], role: str) -> str:
    if not measured:
        return f"    {label:<13} no figures (the run failed)"
    cpu = per_process_cpu(measured, role)
    return (f"    {label:<13} {measured['per_second']:>9,.0f} verdicts/s   p50 {measured['p50_ms']:8.1f} ms"
            f"   p99 {measured['p99_ms']:8.1f} ms   CPU/packet per process "
            + (", ".join(f"{ms:.3f}" for ms in cpu) + f" ms (all {sum(cpu):.3f} ms)" if cpu else "n/a"))


def evolve_cost(packets: list[dict[str, Any]]) -> tuple[float, float]:
    """(ms per packet of the pure `evolve` over pre-parsed dicts, ms per packet of the raw loop's whole step:
    decode, evolve, encode, dict table), in CPU time of this process (as /proc/PID/stat counts the workers'), the
    same packets; CPU time, not wall time, so that other load on the machine does not inflate them."""
    parsed = [json.loads(bench_pipeline.to_json_bytes(p)) for p in packets]
    bench_pipeline.judge_all(parsed[:2_000])  # warm-up
    start = time.process_time()
    bench_pipeline.judge_all(parsed)
    core = (time.process_time() - start) / len(parsed) * 1e3

    registry = SchemaRegistry.from_directory()
    encode = bench_pipeline.avro_encoder(registry)
    records = [_Record(n, p["header"]["correlation_id"].encode(), encode(p)) for n, p in enumerate(packets)]
    judge = raw_loop.RawJudge(PacketStage(Outputs(registry)), PARTITIONS)
    start = time.process_time()
    for at in range(0, len(records), 500):
        judge.batch(records[at:at + 500])
    step = (time.process_time() - start) / len(records) * 1e3
    return core, step


class _Record:
    """A packets-topic record for the offline timing of the raw loop's step (one partition)."""

    def __init__(self, offset: int, key: bytes, value: bytes) -> None:
        self.topic, self.partition, self.offset, self.timestamp = "bench", 0, offset, 0
        self.key: bytes | None = key
        self.value: bytes | None = value


def run(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Measure and print; returns `rounds` (per round and side: `ok`, `measured`), `faust` and `raw` (the median
    verdicts/s of each side), `ratios` (side -> the median over rounds of Faust / that side, each pair from one
    round), `processes` and `ok` (every run delivered every verdict)."""
    cli = argparse.ArgumentParser(prog="python -m tests.bench.bench_anchor", description=__doc__,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
    cli.add_argument("--events", type=int, default=30_000, help="packets published per run (a burst)")
    cli.add_argument("--processes", type=int, default=2, help="Faust workers, and raw loops, per run")
    cli.add_argument("--rounds", type=int, default=2, help="rounds of (Faust, raw), alternated")
    cli.add_argument("--bootstrap", help="a broker to use (default: start one with deploy/kafka/kafka.sh)")
    cli.add_argument("--broker-pid", type=int, default=0, help="the broker's pid, for its CPU per packet")
    cli.add_argument("--timeout", type=float, default=180.0, help="seconds for readiness and for each phase")
    cli.add_argument("--raw-changelog", action="store_true",
                     help="a third side each round: raw loops that also send their table entries to a changelog")
    args = cli.parse_args(argv)
    if min(args.events, args.processes, args.rounds) < 1:
        cli.error("--events, --processes and --rounds must be positive")

    from tests.bench.suite import Resources

    resources = Resources(args.bootstrap, None, use_postgres=False)
    rows: list[dict[str, Any]] = []
    try:
        bootstrap = resources.bootstrap()
        broker_pid = args.broker_pid or resources.broker_pid()
        print(f"machine: {bench_pipeline.machine()}")
        warmup, packets = live_workload(args.events)
        sides = ["faust", "raw"] + (["raw+changelog"] if args.raw_changelog else [])
        for n in range(1, args.rounds + 1):
            # alternated: the side that runs first rotates each round, so none always meets a warmer broker
            order = sides[(n - 1) % len(sides):] + sides[:(n - 1) % len(sides)]
            row: dict[str, Any] = {}
            for side in order:
                print(f"\n== round {n}/{args.rounds}: {side} ({args.processes} process(es), {len(packets):,} packets)")
                row[side] = (faust_run(bootstrap, args.events, args.processes, args.timeout, broker_pid)
                             if side == "faust" else
                             raw_run(bootstrap, packets, warmup, args.processes, args.timeout, broker_pid,
                                     changelog=side == "raw+changelog"))
            rows.append(row)
    finally:
        resources.close()

    print(f"\n== summary: {args.processes} process(es) each side, Avro burst of {args.events:,},"
          f" {PARTITIONS} partitions, {args.rounds} round(s)")
    ratios: dict[str, list[float]] = {}
    for n, row in enumerate(rows, start=1):
        faust = row["faust"]["measured"]
        print(f"  round {n}:")
        print(summary_line("faust", faust, "worker"))
        for side in (s for s in row if s != "faust"):
            print(summary_line(side, row[side]["measured"], "raw"))
        for side in (s for s in row if s != "faust"):
            anchor = row[side]["measured"]
            if faust and anchor and anchor["per_second"] > 0:
                ratios.setdefault(side, []).append(faust["per_second"] / anchor["per_second"])
                print(f"    Faust/{side} throughput {ratios[side][-1]:.1%}")
    for side, values in ratios.items():
        print(f"  median Faust/{side} throughput over {len(values)} round(s): {statistics.median(values):.1%}")
    core_ms, step_ms = evolve_cost(packets)
    print(f"  CPU per packet in this process, same packets: pure evolve {core_ms:.3f} ms; the validator step"
          f" (decode, evolve, encode, dict table) {step_ms:.3f} ms; beside the judging processes' 'all' above")
    ok = all(row[side].get("ok") for row in rows for side in row)
    medians = {side: statistics.median(rates) for side in sides
               if (rates := [row[side]["measured"]["per_second"] for row in rows if row[side]["measured"]])}
    return {"rounds": rows, **medians, "ratios": {side: statistics.median(v) for side, v in ratios.items()},
            "processes": args.processes, "ok": ok}


def main(argv: Sequence[str] | None = None) -> int:
    return 0 if run(argv)["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
