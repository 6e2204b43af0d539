"""Throughput of the OMEGA-57 session monitor stage: agent messages judged per second on one core.

    python -m tests.bench.bench_monitor [--copies N]

The workload is the simulated sessions of tests/data/omega57/generate.py (the nine sessions, built in memory,
not read from their YAML files), each copied `--copies` times under distinct session ids; every message is one
record (its YAML text, as an agent emits it), and the records of all sessions are interleaved round-robin the
way a shared log carries concurrent sessions. What is timed is `streams.stages.messages.MonitorStage.messages` per
record (parse, validate, the session `evolve`, Avro encoding of the accepted message and of every alert,
escalation and termination), session states kept in a dict as replay does; pinned to one CPU where the OS
allows. It prints figures and never asserts on time.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from omega.agents.model import MessageRejected
from omega.agents.session import SessionState
from streams.stages.base import Outputs, Source
from streams.stages.messages import MonitorStage
from streams.wire.codec import SchemaRegistry
from tests.bench.pinning import pin_to_one_core

GENERATOR = Path(__file__).resolve().parents[1] / "data" / "omega57" / "generate.py"
clock = time.perf_counter


def _generator() -> Any:
    """tests/data/omega57/generate.py as a module (the data directory is not a package)."""
    spec = importlib.util.spec_from_file_location("omega57_generate", GENERATOR)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def workload(copies: int) -> list[tuple[str, bytes]]:
    """(session id, one message's YAML) records: every simulated session `copies` times, interleaved."""
    generate = _generator()
    sessions: list[tuple[str, list[bytes]]] = []
    for build in generate.ALL_SESSIONS:
        session = build()
        records = [("---\n" + yaml.dump(doc, Dumper=generate._Dumper, sort_keys=False, allow_unicode=True,
                                        width=110)).encode("utf-8") for doc in session.docs]
        sessions += [(f"{session.name}-{copy}", records) for copy in range(copies)]
    longest = max(len(records) for _, records in sessions)
    return [(sid, records[n]) for n in range(longest) for sid, records in sessions if n < len(records)]


def judge_all(stage: MonitorStage, records: list[tuple[str, bytes]], lat_us: list[float] | None = None) -> Counter[str]:
    """Every record through the stage with fresh session states; counts of what came out, by topic."""
    states: dict[str, SessionState | None] = {}
    counts: Counter[str] = Counter()
    for offset, (session_id, raw) in enumerate(records):
        t0 = clock()
        step = stage.messages(states.get(session_id), raw, Source("bench", 0, offset), session_id)
        if lat_us is not None:
            lat_us.append((clock() - t0) * 1e6)
        states[session_id] = step.state
        counts["rejected"] += sum(isinstance(e, MessageRejected) for e in step.events)
        counts.update(emit.topic.logical for emit in step.emits)
    return counts


def _percentile(ordered: list[float], p: float) -> float:
    return ordered[min(len(ordered) - 1, max(0, math.ceil(p / 100 * len(ordered)) - 1))] if ordered else math.nan


def run(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Measure and print; returns `sessions`, `count` (messages), `seconds`, `per_second`, `p50_us`, `p95_us`,
    `p99_us` (per message, from a second, timed run) and `outputs` (counts by topic). Leaves the process pinned."""
    parser = argparse.ArgumentParser(prog="python -m tests.bench.bench_monitor", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--copies", type=int, default=50, help="copies of each of the 9 sessions (default 50)")
    args = parser.parse_args(argv)
    if args.copies < 1:
        parser.error("--copies must be positive")
    pinned = pin_to_one_core()
    records = workload(args.copies)
    sessions = len({sid for sid, _ in records})
    stage = MonitorStage(Outputs(SchemaRegistry.from_directory()))
    judge_all(stage, records[: min(len(records), 500)])  # warm-up
    start = clock()
    outputs = judge_all(stage, records)
    seconds = clock() - start
    lat: list[float] = []
    judge_all(stage, records, lat)
    lat.sort()
    pct = {p: _percentile(lat, p) for p in (50, 95, 99)}
    size = sum(len(raw) for _, raw in records) / len(records)
    print(f"monitor stage: {len(records):,} messages of {sessions} sessions ({size:,.0f} bytes of YAML each on"
          f" average) in {seconds:.2f} s = {len(records) / seconds:,.0f} messages/s ({pinned})")
    print("per-message latency (µs): " + ", ".join(f"p{p} {v:.0f}" for p, v in pct.items())
          + f"; outputs {dict(sorted(outputs.items()))}")
    return {"sessions": sessions, "count": len(records), "seconds": seconds, "per_second": len(records) / seconds,
            **{f"p{p}_us": v for p, v in pct.items()}, "outputs": dict(outputs)}


def main(argv: Sequence[str] | None = None) -> None:
    run(argv)


if __name__ == "__main__":
    main()
