"""The benchmark suite: every figure of BENCHMARKS.md, run with its standard parameters, collected as data,
and written to the generated section at the top of BENCHMARKS.md (the hand-written analysis below it is kept).

    python -m tests.bench [--quick] [--only NAME ...] [--no-write] [--bootstrap HOST:PORT] [--postgres URL]
    python -m tests.bench.suite ...        (the same)
    make bench [BENCH_ARGS="--quick --no-write"]

Each benchmark is one of the tests/bench modules, run in this process through its `run(argv)` with the argv
its documented command takes (so the command shown beside each figure is exactly what produced it). The end
to end benchmarks start their own broker with deploy/kafka/kafka.sh in a temporary directory on free ports
(unless --bootstrap is given) and stop it afterwards; the projection benchmarks use PostgreSQL when
deploy/postgres/pg.sh can start a throwaway server (or --postgres is given), and SQLite always. The suite
prints figures and never asserts on time; its exit code is 1 when a benchmark failed to run (not when a
target is missed), 2 for bad usage.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import math
import os
import platform
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import traceback
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
BENCHMARKS = REPO / "BENCHMARKS.md"
BEGIN = "<!-- omega bench: begin -->"
END = "<!-- omega bench: end -->"
KAFKA_SH = REPO / "deploy" / "kafka" / "kafka.sh"
PG_SH = REPO / "deploy" / "postgres" / "pg.sh"


# ---------------------------------------------------------------------------------------------- figures
@dataclass(frozen=True)
class Target:
    """A target of the issue: `value <op> bound`, op one of >=, <=, <."""

    text: str
    op: str
    bound: float

    def met(self, value: float) -> bool | None:
        if math.isnan(value):
            return None
        return {">=": value >= self.bound, "<=": value <= self.bound, "<": value < self.bound}[self.op]


# The targets of the issues, attached to every row they apply to, met or not (issue 20): embedded validation on
# one core (issue 3: the core and every embedded replay), the live workers (issue 3), memory rebuilds from the
# log (issue 5: in process and from Kafka), the grounding checker (issue 7).
CORE_TARGET = Target("≥ 20,000 packets/s", ">=", 20_000)
TWO_WORKERS_TARGET = Target("≥ 5,000 packets/s", ">=", 5_000)
P99_TARGET = Target("p99 ≤ 100 ms at 1,000/s", "<=", 100)
REBUILD_TARGET = Target("≥ 10,000 events/s", ">=", 10_000)
GROUNDING_TARGET = Target("< 1 ms per sentence (p99)", "<", 1_000)
FALSE_SUPPORT_TARGET = Target("≤ 1% (FEVER-Symmetric dev)", "<=", 1.0)  # issue 19
RECALL_TARGET = Target("≥ 35% (FEVER-Symmetric dev)", ">=", 35.0)  # issue 19
FEVER_DEV = REPO / "tests" / "data" / "fever_symmetric" / "dev.grounding.json"
GROUNDING_SETS = (("FEVER-Symmetric dev", FEVER_DEV, "tests/data/fever_symmetric/dev.grounding.json"),
                  ("own suite (in-sample)", REPO / "tests" / "data" / "grounding", "tests/data/grounding"),
                  ("blind half", REPO / "tests" / "data" / "grounding_blind", "tests/data/grounding_blind"))


@dataclass(frozen=True)
class Floor:
    """A floor of issue 45: a figure over its anchor, both measured in the same run, at least `share` (a fraction):
    what the machine allows moves both, so the ratio says what the code costs beyond the anchor."""

    share: float
    anchor: str

    @property
    def text(self) -> str:
        return f"≥ {self.share:.0%} of {self.anchor}"


# Issue 45, item 2: the floors, attached to the rows whose run measures their anchor too.
TWO_WORKERS_FLOOR = Floor(0.28, "the raw aiokafka loop")
ONE_WORKER_FLOOR = Floor(0.25, "the raw aiokafka loop")
REPLAY_FLOOR = Floor(0.18, "core `evolve`")
KAFKA_REBUILD_FLOOR = Floor(0.80, "the in-process rebuild")


@dataclass(frozen=True)
class Figure:
    """One measured figure: `value` in `unit` (the headline), `detail` (the rest), the command that made it."""

    bench: str
    label: str
    value: float
    unit: str
    command: str
    detail: str = ""
    target: Target | None = None
    floor: Floor | None = None
    ratio: float = math.nan  # the figure over the floor's anchor, measured in the same run
    anchor: str = ""  # the anchor's own figure, as shown beside the ratio

    @property
    def met(self) -> bool | None:
        return self.target.met(self.value) if self.target else None

    @property
    def floor_met(self) -> bool | None:
        if self.floor is None or math.isnan(self.ratio):
            return None
        return self.ratio >= self.floor.share

    def floor_result(self) -> str:
        if self.floor is None:
            return ""
        if math.isnan(self.ratio):
            return f"{self.floor.text}: anchor not measured"
        verdict = "met" if self.floor_met else "**not met**"
        anchor = f" ({self.anchor})" if self.anchor else ""
        return f"{self.floor.text}: **{self.ratio:.0%}**{anchor}, {verdict}"

    def result(self) -> str:
        if math.isnan(self.value):
            return "n/a" + (f" ({self.detail})" if self.detail else "")
        number = f"{self.value:,.0f}" if abs(self.value) >= 100 else f"{self.value:,.1f}"
        return f"**{number} {self.unit}**" + (f" ({self.detail})" if self.detail else "")

    def to_dict(self) -> dict[str, Any]:
        return {"bench": self.bench, "label": self.label, "value": None if math.isnan(self.value) else self.value,
                "unit": self.unit, "detail": self.detail, "command": self.command,
                "target": self.target.text if self.target else None, "met": self.met,
                "floor": self.floor.text if self.floor else None,
                "ratio": None if math.isnan(self.ratio) else self.ratio, "anchor": self.anchor or None,
                "floor_met": self.floor_met}


@dataclass
class Outcome:
    """What one benchmark gave: its figures, or the reason it did not run (`skipped`) or failed (`error`)."""

    name: str
    figures: list[Figure] = field(default_factory=list)
    skipped: str = ""
    error: str = ""
    seconds: float = 0.0
    raw: dict[str, Any] = field(default_factory=dict)


# ---------------------------------------------------------------------------------------------- resources
def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Resources:
    """The broker and the PostgreSQL server, started on first use and stopped by `close` (only what was started
    here). `bootstrap`/`postgres_url` given up front are used as they are."""

    def __init__(self, bootstrap: str | None, postgres_url: str | None, use_postgres: bool = True) -> None:
        self._bootstrap, self._postgres_url = bootstrap, postgres_url
        self._use_postgres = use_postgres
        self._kafka_env: dict[str, str] | None = None
        self._pg_env: dict[str, str] | None = None
        self._pg_failed = ""
        self.tmp = Path(tempfile.mkdtemp(prefix="omega-bench-suite-"))
        self.notes: list[str] = []

    def bootstrap(self) -> str:
        if self._bootstrap is None:
            env = {**os.environ, "OMEGA_KAFKA_DIR": str(self.tmp / "kafka"),
                   "OMEGA_KAFKA_PORT": str(free_port()), "OMEGA_KAFKA_CONTROLLER_PORT": str(free_port())}
            print(f"suite: starting a broker (deploy/kafka/kafka.sh up, port {env['OMEGA_KAFKA_PORT']})", flush=True)
            self._kafka_env = env
            done = subprocess.run(["bash", str(KAFKA_SH), "up"], env=env, capture_output=True, text=True,
                                  check=False)
            if done.returncode != 0:
                raise RuntimeError(f"kafka.sh up failed (exit {done.returncode}): {done.stderr.strip()[-2000:]}")
            self._bootstrap = f"127.0.0.1:{env['OMEGA_KAFKA_PORT']}"
            self.notes.append(f"`$BOOTSTRAP`: a broker started by `deploy/kafka/kafka.sh up` for the run"
                              f" (OMEGA_KAFKA_DIR in a temporary directory, free ports: {self._bootstrap})")
        return self._bootstrap

    def postgres(self) -> str | None:
        """A PostgreSQL URL, or None when pg.sh cannot start one (the reason is in the notes)."""
        if self._postgres_url is None and self._use_postgres and not self._pg_failed:
            # Not under self.tmp: as root, pg.sh runs the server as `postgres`, who cannot enter a 0700 dir.
            pg_dir = Path(tempfile.gettempdir()) / f"omega-bench-pg-{uuid.uuid4().hex[:8]}"
            env = {**os.environ, "OMEGA_PG_DIR": str(pg_dir), "OMEGA_PG_PORT": str(free_port())}
            print(f"suite: starting PostgreSQL (deploy/postgres/pg.sh up, port {env['OMEGA_PG_PORT']})", flush=True)
            self._pg_env = env
            done = subprocess.run(["bash", str(PG_SH), "up"], env=env, capture_output=True, text=True, check=False)
            urls = [line for line in done.stdout.splitlines() if line.startswith("postgresql://")]
            if done.returncode != 0 or not urls:
                self._pg_failed = f"pg.sh up failed (exit {done.returncode}): {done.stderr.strip()[-500:]}"
                self.notes.append(f"PostgreSQL figures skipped: {self._pg_failed}")
                print(f"suite: {self._pg_failed}", flush=True)
                return None
            self._postgres_url = urls[-1]
            self.notes.append(f"`$PG_URL`: a throwaway PostgreSQL started by `deploy/postgres/pg.sh up` ({urls[-1]})")
        return self._postgres_url

    def close(self) -> None:
        if self._kafka_env is not None:
            done = subprocess.run(["bash", str(KAFKA_SH), "down"], env=self._kafka_env, capture_output=True,
                                  text=True, check=False)
            print(f"suite: broker {done.stdout.strip() or done.stderr.strip()}", flush=True)
        if self._pg_env is not None:
            done = subprocess.run(["bash", str(PG_SH), "down"], env=self._pg_env, capture_output=True, text=True,
                                  check=False)
            print(f"suite: PostgreSQL {done.stdout.strip() or done.stderr.strip()}", flush=True)
            pg_dir = self._pg_env["OMEGA_PG_DIR"]
            shutil.rmtree(pg_dir, ignore_errors=True)
            with contextlib.suppress(OSError):
                Path(pg_dir + ".lock").unlink()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def broker_pid(self) -> int | None:
        """The pid of the broker started here (for its CPU time), None for a given broker."""
        if self._kafka_env is None:
            return None
        try:
            return int((Path(self._kafka_env["OMEGA_KAFKA_DIR"]) / "kafka.pid").read_text().strip())
        except (OSError, ValueError):
            return None

    def redact(self, argv: Sequence[str]) -> list[str]:
        """argv with this run's broker address, broker pid and PostgreSQL URL as `$BOOTSTRAP`, `$BROKER_PID`
        and `$PG_URL`."""
        pid = self.broker_pid()
        names = {self._bootstrap: "$BOOTSTRAP", self._postgres_url: "$PG_URL",
                 **({str(pid): "$BROKER_PID"} if pid else {})}
        return [names.get(arg, arg) if arg else arg for arg in argv]


# ---------------------------------------------------------------------------------------------- benchmarks
@dataclass(frozen=True)
class Context:
    quick: bool
    resources: Resources


def _command(module: str, argv: Sequence[str], ctx: Context) -> str:
    return " ".join(["python -m", f"tests.bench.{module}", *ctx.resources.redact(argv)])


def _us(fig: dict[str, Any], *points: str) -> str:
    return ", ".join(f"p{p} {fig[f'p{p}_us']:,.0f} µs" for p in points if f"p{p}_us" in fig)


def _statuses(counts: dict[str, int]) -> str:
    return ", ".join(f"{status} {n:,}" for status, n in sorted(counts.items()))


def _cpu(measured: dict[str, Any]) -> str:
    per = measured.get("cpu_ms_per_packet") or {}
    if not per:
        return ""
    workers = sum(ms for role, ms in per.items() if role.startswith("worker"))
    parts = [f"workers {workers:.2f} ms"] + [f"{role} {ms:.2f} ms" for role, ms in per.items()
                                             if not role.startswith("worker")]
    return "; CPU per packet: " + ", ".join(parts)


def _ms(fig: dict[str, Any], *points: str) -> str:
    return ", ".join(f"p{p} {fig[f'p{p}_ms']:,.1f} ms" for p in points if f"p{p}_ms" in fig)


def bench_omen_core(ctx: Context, out: Outcome) -> None:
    from tests.bench import bench_pipeline

    argv = ["--core-only", *(["--events", "1000", "--episodes", "10"] if ctx.quick else [])]
    out.raw = bench_pipeline.run(argv)
    command = _command("bench_pipeline", argv, ctx)
    for name, fig in out.raw["core"].items():
        out.figures.append(Figure(out.name, f"OMEN core `evolve`, {name}, one core", fig["rate"]["per_second"],
                                  "packets/s", command, _us(fig["timed"], "50", "99") + " per packet; verdicts "
                                  + _statuses(fig["statuses"]), CORE_TARGET))


def _small(ctx: Context) -> list[str]:
    return ["--events", "500", "--episodes", "5"] if ctx.quick else []


def bench_omen_codec(ctx: Context, out: Outcome) -> None:
    from tests.bench import bench_pipeline

    argv = ["--skip-replay", *_small(ctx)]
    out.raw = bench_pipeline.run(argv)
    command = _command("bench_pipeline", argv, ctx)
    codec = out.raw["codec"]
    for key, label in (("convert", "OMEN codec: packet dict -> Avro datum (conversion alone)"),
                       ("encode", "OMEN codec: packet dict -> Avro bytes"),
                       ("decode", "OMEN codec: Avro bytes -> packet dict"),
                       ("ingress", "OMEN ingress stage: JSON bytes -> Avro packet")):
        out.figures.append(Figure(out.name, label, codec[key]["per_second"], "packets/s", command,
                                  _us(codec[key], "50", "99") + (f"; round-trip mismatches {codec['mismatches']}"
                                                                 if key == "decode" else "")))


def bench_omen_replay(ctx: Context, out: Outcome) -> None:
    from tests.bench import bench_pipeline

    argv = ["--skip-codec", *_small(ctx)]
    out.raw = bench_pipeline.run(argv)
    command = _command("bench_pipeline", argv, ctx)
    replay = out.raw["replay"]
    out.figures.append(Figure(out.name, "OMEN embedded replay from JSONL (no output)", replay["plain"]["per_second"],
                              "packets/s", command, f"verdicts {replay['verdicts']}", CORE_TARGET))
    out.figures.append(Figure(out.name, "OMEN embedded replay from JSONL, `--out` JSONL",
                              replay["out_jsonl"]["per_second"], "packets/s", command, "", CORE_TARGET))


def bench_avro_replay(ctx: Context, out: Outcome) -> None:
    from tests.bench import bench_pipeline

    argv = ["--skip-codec", "--skip-replay", "--avro-replay", *_small(ctx)]
    out.raw = bench_pipeline.run(argv)
    fig = out.raw["avro_replay"]
    out.figures.append(Figure(out.name, "OMEN replay from an Avro object container file", fig["avro"]["per_second"],
                              "packets/s", _command("bench_pipeline", argv, ctx),
                              f"verdicts {fig['verdicts']}, dead letters {fig['dead_letters']}", CORE_TARGET))


def bench_monitor(ctx: Context, out: Outcome) -> None:
    from tests.bench import bench_monitor as module

    argv = ["--copies", "1"] if ctx.quick else []
    out.raw = module.run(argv)
    out.figures.append(Figure(out.name, f"OMEGA-57 monitor stage, {out.raw['sessions']} sessions, one core",
                              out.raw["per_second"], "messages/s", _command("bench_monitor", argv, ctx),
                              _us(out.raw, "50", "99") + " per message"))


def bench_oracle(ctx: Context, out: Outcome) -> None:
    from tests.bench import bench_oracle as module

    if not module.CASES.is_file():
        out.skipped = f"no Phase Q cases at {module.CASES.resolve()}"
        return
    argv = ["--repeat", "1"] if ctx.quick else []
    out.raw = module.run(argv)
    command = _command("bench_oracle", argv, ctx)
    out.figures.append(Figure(out.name, "Phase Q oracle core (parse, Oracle-A/B/C, evidence), one core",
                              out.raw["core"]["per_second"], "cases/s", command))
    out.figures.append(Figure(out.name, "`omega check oracle` end to end (start-up included)",
                              out.raw["cli"]["per_second"], "cases/s", command, f"exit {out.raw['exit_code']}"))


def bench_answers(ctx: Context, out: Outcome) -> None:
    from tests.bench import bench_answers as module

    argv = ["--repeat", "1"] if ctx.quick else []
    out.raw = module.run(argv)
    command = _command("bench_answers", argv, ctx)
    out.figures.append(Figure(out.name, "DS005 ingest (chunk, extract, validate), one core",
                              out.raw["ingest"]["per_second"], "documents/s", command))
    out.figures.append(Figure(out.name, "DS005 answers (plan + answer over the store), one core",
                              out.raw["answer"]["per_second"], "answers/s", command,
                              _us(out.raw["answer"], "50", "99") + f" per answer; {out.raw['passed']}/"
                              f"{out.raw['answer']['questions']} as expected"))


def bench_grounding(ctx: Context, out: Outcome) -> None:
    from tests.bench import bench_grounding as module

    argv = ["--repeat", "1"] if ctx.quick else []
    out.raw = module.run(argv)
    out.figures.append(Figure(out.name, "grounding checker, per sentence (p99), one core", out.raw["p99_us"], "µs",
                              _command("bench_grounding", argv, ctx),
                              f"p50 {out.raw['p50_us']:,.0f} µs, {out.raw['per_second']:,.0f} sentences/s",
                              GROUNDING_TARGET))


def bench_grounding_quality(ctx: Context, out: Outcome) -> None:
    """False support and support recall of the checker on FEVER-Symmetric dev and on both halves of our suite."""
    from tests.bench import bench_grounding as module

    for name, path, shown in GROUNDING_SETS:
        if not path.exists():
            out.figures.append(Figure(out.name, f"grounding on {name}", math.nan, "", "", f"{path} not found"))
            continue
        raw = module.run(["--repeat", "1", "--data", str(path)])
        out.raw[name] = raw
        command = f"python -m tests.bench.bench_grounding --repeat 1 --data {shown}"
        fever = path == FEVER_DEV
        unsupported, supported = raw["labelled_unsupported"], raw["labelled_supported"]
        out.figures.append(Figure(out.name, f"grounding on {name}: false support rate",
                                  100 * raw["false_support_rate"], "%", command,
                                  f"{round(raw['false_support_rate'] * unsupported)} of {unsupported} unsupported"
                                  " sentences pass", FALSE_SUPPORT_TARGET if fever else None))
        out.figures.append(Figure(out.name, f"grounding on {name}: support recall", 100 * raw["support_recall"], "%",
                                  command, f"{round(raw['support_recall'] * supported)} of {supported} supported"
                                  " sentences pass", RECALL_TARGET if fever else None))


# (label, workers, events, rate, quick events, Avro producers): JSON goes through the ingress agent first (two
# agent hops per packet), Avro straight to the validator, as Avro producers publish.
LIVE_RUNS = (
    ("1 worker, burst, JSON", 1, 5_000, 0.0, 200, False),
    ("1 worker, paced at 200/s, JSON", 1, 3_000, 200.0, 200, False),
    ("2 workers, burst, JSON", 2, 10_000, 0.0, 300, False),
    ("2 workers, paced at 1,000/s, JSON", 2, 10_000, 1_000.0, 300, False),
    ("2 workers, burst, Avro", 2, 10_000, 0.0, 300, True),
    ("2 workers, paced at 1,000/s, Avro", 2, 10_000, 1_000.0, 300, True),
)


def bench_e2e(ctx: Context, out: Outcome) -> None:
    from tests.bench import bench_pipeline

    bootstrap = ctx.resources.bootstrap()
    failed = []
    for label, workers, events, rate, quick_events, avro in LIVE_RUNS:
        argv = ["--skip-codec", "--skip-replay", "--live", bootstrap, "--live-workers", str(workers),
                "--live-events", str(quick_events if ctx.quick else events), *(["--live-avro"] if avro else [])]
        if rate:
            argv += ["--live-rate", f"{rate:g}"]
        if ctx.quick:
            argv += ["--live-timeout", "120"]
        broker_pid = ctx.resources.broker_pid()
        if broker_pid:
            argv += ["--broker-pid", str(broker_pid)]
        live = bench_pipeline.run(argv)["live"]
        out.raw[label] = live
        command = _command("bench_pipeline", argv, ctx)
        measured = live["measured"]
        if not live["ok"]:
            failed.append(label)
        if not measured:
            out.figures.append(Figure(out.name, f"end to end, {label}", math.nan, "", command, "the run failed"))
            continue
        shortfall = "" if live["ok"] else f"; only {measured['verdicts']:,}/{measured['published']:,} verdicts"
        if rate:
            out.figures.append(Figure(
                out.name, f"end to end, {label}: latency packet -> verdict (p99)", measured["p99_ms"], "ms", command,
                _ms(measured, "50", "95") + f"; {measured['per_second']:,.0f} verdicts/s{shortfall}"
                + _cpu(measured), P99_TARGET if rate == 1_000.0 else None))
        else:
            out.figures.append(Figure(
                out.name, f"end to end, {label}: throughput", measured["per_second"], "packets/s", command,
                "queueing latency " + _ms(measured, "50", "99") + shortfall + _cpu(measured),
                TWO_WORKERS_TARGET if workers == 2 else None))
    if failed:
        out.error = f"not every verdict arrived in: {', '.join(failed)}"


def bench_projections(ctx: Context, out: Outcome) -> None:
    from tests.bench import bench_projections as module

    url = ctx.resources.postgres()
    argv = [*(["--events", "500", "--sessions", "5"] if ctx.quick else []), *(["--postgres", url] if url else [])]
    out.raw = module.run(argv)
    command = _command("bench_projections", argv, ctx)
    out.figures.append(Figure(out.name, "projection reducers alone, no store", out.raw["reducers"]["per_second"],
                              "events/s", command))
    for store in ("sqlite", "postgres"):
        if store in out.raw:
            fig = out.raw[store]
            name = "SQLite" if store == "sqlite" else "PostgreSQL"
            out.figures.append(Figure(out.name, f"projection rebuild into {name} (`Projector.rebuild`), in process",
                                      fig["rebuild"]["per_second"], "events/s", command, "", REBUILD_TARGET))
            out.figures.append(Figure(out.name, f"projection into {name}, transactions of {fig['live_batch']:,}",
                                      fig["live"]["per_second"], "events/s", command,
                                      "" if fig["same_hash"] else "content hash differs from the rebuild!"))


def bench_projections_kafka(ctx: Context, out: Outcome) -> None:
    from projections.projector import REBUILD_BATCH
    from tests.bench import bench_projections as module

    bootstrap, url = ctx.resources.bootstrap(), ctx.resources.postgres()
    argv = [*(["--events", "500", "--sessions", "5"] if ctx.quick else []), "--kafka", bootstrap, "--kafka-only",
            *(["--postgres", url] if url else [])]
    out.raw = module.run(argv)
    command = _command("bench_projections", argv, ctx)
    for store, batches in out.raw["kafka"].items():
        name = "SQLite" if store == "sqlite" else "PostgreSQL"
        for batch, fig in batches.items():
            out.figures.append(Figure(out.name, f"projection rebuild from Kafka into {name}, transactions <= {batch:,}",
                                      fig["per_second"], "events/s", command,
                                      f"lag {fig['lag']}, undecodable {fig['undecodable']}", REBUILD_TARGET,
                                      KAFKA_REBUILD_FLOOR if batch == REBUILD_BATCH else None,
                                      fig.get("ratio", math.nan),
                                      f"in process {fig['in_process']:,.0f} events/s" if "in_process" in fig else ""))


def bench_anchor(ctx: Context, out: Outcome) -> None:
    from tests.bench import bench_anchor as module

    bootstrap = ctx.resources.bootstrap()
    failed = []
    for processes, floor in ((2, TWO_WORKERS_FLOOR), (1, ONE_WORKER_FLOOR)):
        argv = ["--bootstrap", bootstrap, "--processes", str(processes),
                *(["--events", "1000", "--rounds", "1"] if ctx.quick else [])]
        broker_pid = ctx.resources.broker_pid()
        if broker_pid:
            argv += ["--broker-pid", str(broker_pid)]
        raw = out.raw[f"{processes} processes"] = module.run(argv)
        if not raw["ok"]:
            failed.append(f"{processes} process(es)")
        label = "2 Faust workers" if processes == 2 else "1 Faust worker"
        out.figures.append(Figure(
            out.name, f"{label} against {processes} raw aiokafka loop(s), Avro burst, same run: throughput",
            raw.get("faust", math.nan), "packets/s", _command("bench_anchor", argv, ctx),
            f"median of {len(raw['rounds'])} alternated round(s)", None, floor,
            raw["ratios"].get("raw", math.nan),
            f"raw loop {raw['raw']:,.0f} packets/s" if "raw" in raw else ""))
    if failed:
        out.error = f"not every verdict arrived in: {', '.join(failed)}"


def bench_replay_speed(ctx: Context, out: Outcome) -> None:
    from tests.bench import bench_replay_speed as module

    argv = ["--events", "2000", "--rounds", "1"] if ctx.quick else []
    out.raw = module.run(argv)
    out.figures.append(Figure(
        out.name, "OMEN embedded replay `--jobs 1` against core `evolve`, same packets, same run",
        out.raw["jobs1"], "packets/s", _command("bench_replay_speed", argv, ctx),
        f"median of alternated rounds; `--jobs 2` {out.raw['jobs2']:,.0f} packets/s", CORE_TARGET, REPLAY_FLOOR,
        out.raw["replay_over_core"], f"core {out.raw['core']:,.0f} packets/s"))


@dataclass(frozen=True)
class Bench:
    name: str
    what: str
    run: Callable[[Context, Outcome], None]


BENCHES = (
    Bench("omen-core", "OMEN validator core alone (`evolve`), factory and mixed workloads", bench_omen_core),
    Bench("omen-codec", "OMEN Avro codec and ingress stage", bench_omen_codec),
    Bench("omen-replay", "OMEN embedded replay from a JSONL file", bench_omen_replay),
    Bench("avro-replay", "OMEN replay from an Avro object container file", bench_avro_replay),
    Bench("monitor", "OMEGA-57 messages through the monitor stage", bench_monitor),
    Bench("oracle", "Phase Q oracle, core and `omega check oracle`", bench_oracle),
    Bench("answers", "DS005 ingest and answers over tests/data/answers/suite.json", bench_answers),
    Bench("grounding", "grounding checker per sentence", bench_grounding),
    Bench("grounding-quality", "grounding false support and recall: FEVER-Symmetric dev, own suite, blind half",
          bench_grounding_quality),
    Bench("projections", "projection rebuild into SQLite (and PostgreSQL)", bench_projections),
    Bench("e2e", "end to end through a real broker: 1 and 2 workers, burst and paced", bench_e2e),
    Bench("projections-kafka", "projection rebuild from Kafka into SQLite (and PostgreSQL), against in process",
          bench_projections_kafka),
    Bench("replay-speed", "OMEN embedded replay against core `evolve`, alternated in one run", bench_replay_speed),
    Bench("anchor", "Faust workers (2, then 1) against raw aiokafka loops, alternated in one run", bench_anchor),
)
BY_NAME = {b.name: b for b in BENCHES}


@contextlib.contextmanager
def isolated() -> Iterator[None]:
    """Undo what a benchmark does to the process: CPU pinning, and a frozen heap."""
    affinity = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    try:
        yield
    finally:
        if affinity is not None:
            os.sched_setaffinity(0, affinity)
        gc.unfreeze()


def run_benches(names: Sequence[str], ctx: Context) -> list[Outcome]:
    outcomes = []
    for name in names:
        bench, outcome = BY_NAME[name], Outcome(name)
        print(f"\n== {name}: {bench.what}", flush=True)
        start = time.perf_counter()
        try:
            with isolated():
                bench.run(ctx, outcome)
        except Exception as exc:  # noqa: BLE001 - one broken benchmark must not hide the others' figures
            outcome.error = f"{type(exc).__name__}: {exc}"
            traceback.print_exc()
        except SystemExit as exc:  # argparse refused the argv: a bug of this suite, reported as a failure
            outcome.error = f"exited with {exc.code}"
        outcome.seconds = time.perf_counter() - start
        if outcome.skipped:
            print(f"   skipped: {outcome.skipped}")
        outcomes.append(outcome)
    return outcomes


# ---------------------------------------------------------------------------------------------- machine
def _run(argv: Sequence[str]) -> str:
    try:
        done = subprocess.run(list(argv), cwd=REPO, capture_output=True, text=True, check=False, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return (done.stdout + done.stderr).strip() if done.returncode == 0 else ""


def machine() -> dict[str, str]:
    """CPU, cores, memory, OS, Python, Java, Kafka, git commit: what every figure depends on."""
    cpu, memory = "unknown", "unknown"
    with contextlib.suppress(OSError):
        cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                    if line.startswith("model name")), cpu)
    with contextlib.suppress(OSError, StopIteration, ValueError):
        kib = next(int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines()
                   if line.startswith("MemTotal:"))
        memory = f"{kib / 1024 ** 2:.1f} GiB"
    java = _run(["java", "-version"]).splitlines()
    kafka = re.search(r"^KAFKA_VERSION=(\S+)", KAFKA_SH.read_text(), re.M) if KAFKA_SH.is_file() else None
    commit = _run(["git", "rev-parse", "--short", "HEAD"]) or "unknown"
    if _run(["git", "status", "--porcelain", "--untracked-files=no"]):
        commit += " with uncommitted changes"
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    return {"cpu": cpu, "cores": f"{os.cpu_count()} CPU(s), {usable} usable", "memory": memory,
            "os": f"{platform.system()} {platform.release()}", "python": platform.python_version(),
            "java": java[0] if java else "not found", "kafka": kafka.group(1) if kafka else "unknown",
            "commit": commit, "load": " ".join(f"{x:.2f}" for x in load) if load else "unknown"}


# ---------------------------------------------------------------------------------------------- BENCHMARKS.md
def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render(outcomes: Sequence[Outcome], info: dict[str, str], when: datetime, argv: Sequence[str],
           notes: Sequence[str]) -> str:
    """The generated section, markers included."""
    quick = "--quick" in argv
    lines = [
        BEGIN,
        "## Latest run (generated by `python -m tests.bench`; edits between these markers are overwritten)",
        "",
        f"Measured {when:%Y-%m-%d %H:%M} UTC by `python -m tests.bench{''.join(' ' + a for a in argv)}`"
        + (" (a smoke run with small counts: not figures to compare)." if quick else "."),
        "",
        f"- Machine: {info['cpu']}, {info['cores']}, {info['memory']} RAM; {info['os']}; load average at the start"
        f" {info['load']}, at the end {info.get('load_end', 'unknown')}",
        f"- Python {info['python']}; Java: {info['java']}; Kafka {info['kafka']} (`deploy/kafka/kafka.sh`,"
        " single node on the same machine)",
        f"- Code: commit `{info['commit']}`",
        *(f"- {note}" for note in notes),
        "",
        "| figure | result | target | floor (issue 45: a ratio to its anchor, same run) | command |",
        "|---|---|---|---|---|",
    ]
    for outcome in outcomes:
        for fig in outcome.figures:
            target = ""
            if fig.target is not None:
                verdict = {True: "met", False: "**not met**", None: "n/a"}[fig.met]
                target = f"{fig.target.text}: {verdict}"
            lines.append(f"| {_cell(fig.label)} | {_cell(fig.result())} | {_cell(target)} | "
                         f"{_cell(fig.floor_result())} | `{fig.command}` |")
        if outcome.skipped:
            lines.append(f"| {outcome.name} | skipped: {_cell(outcome.skipped)} | | | |")
        if outcome.error:
            lines.append(f"| {outcome.name} | **failed**: {_cell(outcome.error[:300])} | | | |")
    lines += ["", "Every figure is printed by its command (the `tests/bench` modules, which never assert on time);"
              " the sections below say what each one measures.", END]
    return "\n".join(lines) + "\n"


def rewrite(text: str, section: str) -> str:
    """`text` with the generated section replaced (between the markers) or inserted after the `# ` title;
    everything else byte-identical."""
    begin, end = text.find(BEGIN), text.find(END)
    if begin != -1 and end > begin:
        stop = end + len(END)
        if text.startswith("\n", stop):
            stop += 1
        return text[:begin] + section + text[stop:]
    title = re.search(r"^# .*\n", text, re.M)
    if title is None:
        return section + "\n" + text
    return text[:title.end()] + "\n" + section + text[title.end():]


def write_benchmarks(path: Path, section: str) -> None:
    text = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n"
    scratch = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    scratch.write_text(rewrite(text, section), encoding="utf-8")
    os.replace(scratch, path)


def summary_table(outcomes: Sequence[Outcome]) -> str:
    rows = []
    for outcome in outcomes:
        for fig in outcome.figures:
            target = "" if fig.target is None else f"  [{fig.target.text}: " + \
                {True: "met", False: "NOT MET", None: "n/a"}[fig.met] + "]"
            floor = f"  [{fig.floor_result().replace('**', '')}]" if fig.floor else ""
            rows.append(f"  {fig.label:<72} {fig.result().replace('**', '')}{target}{floor}")
        if outcome.skipped:
            rows.append(f"  {outcome.name:<72} skipped: {outcome.skipped}")
        if outcome.error:
            rows.append(f"  {outcome.name:<72} FAILED: {outcome.error}")
    return "\n".join(rows)


# ---------------------------------------------------------------------------------------------- main
def parser() -> argparse.ArgumentParser:
    cli = argparse.ArgumentParser(prog="python -m tests.bench", description=__doc__,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
    cli.add_argument("--quick", action="store_true", help="a smoke run with small counts (a few minutes)")
    cli.add_argument("--only", action="append", default=[], metavar="NAME", choices=list(BY_NAME),
                     help="run only this benchmark (repeatable): " + ", ".join(BY_NAME))
    cli.add_argument("--no-write", action="store_true", help="print the figures, leave BENCHMARKS.md alone")
    cli.add_argument("--file", type=Path, default=BENCHMARKS, help="the file to rewrite (default BENCHMARKS.md)")
    cli.add_argument("--json", type=Path, metavar="PATH", help="also write the figures as JSON here")
    cli.add_argument("--bootstrap", metavar="HOST:PORT",
                     help="use this broker instead of starting one with deploy/kafka/kafka.sh")
    cli.add_argument("--postgres", metavar="URL",
                     help="use this PostgreSQL instead of starting one with deploy/postgres/pg.sh")
    cli.add_argument("--no-postgres", action="store_true", help="SQLite only")
    return cli


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    shown = list(sys.argv[1:] if argv is None else argv)
    names = [b.name for b in BENCHES if not args.only or b.name in args.only]
    info = machine()
    when = datetime.now(UTC)  # noqa: TID251 - the shell's wall clock: the date of the run, not event time
    print(f"python -m tests.bench: {', '.join(names)}{' (quick)' if args.quick else ''}\n"
          f"machine: {info['cpu']}, {info['cores']}, {info['memory']}; Python {info['python']};"
          f" commit {info['commit']}; load {info['load']}", flush=True)
    resources = Resources(args.bootstrap, args.postgres, use_postgres=not args.no_postgres)
    try:
        outcomes = run_benches(names, Context(args.quick, resources))
    finally:
        resources.close()
    info["load_end"] = machine()["load"]
    print("\n== figures\n" + summary_table(outcomes))
    if args.json:
        args.json.write_text(json.dumps({"date": when.isoformat(), "machine": info, "argv": shown,
                                         "figures": [f.to_dict() for o in outcomes for f in o.figures],
                                         "outcomes": [{**asdict(o), "figures": None} for o in outcomes]},
                                        indent=2, default=str), encoding="utf-8")
    if not args.no_write:
        write_benchmarks(args.file, render(outcomes, info, when, shown, resources.notes))
        print(f"rewrote the generated section of {args.file}")
    return 1 if any(o.error for o in outcomes) else 0


if __name__ == "__main__":
    sys.exit(main())
