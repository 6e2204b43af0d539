"""Throughput of `omega check oracle` on one core: the public Phase Q cases, repeated, judged end to end.

    python -m tests.bench.bench_oracle [--repeat N]

Two figures: the pure core (parse + Oracle-A/B/C + evidence, no I/O) and the command itself (a subprocess
over an NDJSON file, stdout to /dev/null, report written), both pinned to one CPU where the OS allows it.
It prints figures and never asserts on time. Timers are `time.perf_counter`.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from omega.oracle.case import parse_case
from omega.oracle.report import build_report, judge_case
from streams.stages.oracle import bundled_config_path, read_config
from tests.bench.pinning import pin_to_one_core
from tests.external_data import PHASE_Q_DEV

REPO = Path(__file__).resolve().parents[2]
# the 34 public cases when the team's shelf is beside the clone (tests.external_data), else the bundled examples
CASES = PHASE_Q_DEV if PHASE_Q_DEV.exists() else REPO / "examples" / "oracle" / "cases.ndjson"


def run(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Run both measurements and print cases/s; returns `core` and `cli` ({count, seconds, per_second}) and
    `exit_code` (of the command). Pins the process to one CPU and leaves it pinned."""
    parser = argparse.ArgumentParser(prog="python -m tests.bench.bench_oracle", description=__doc__)
    parser.add_argument("--repeat", type=int, default=300, help="copies of the 34 public cases (default 300)")
    args = parser.parse_args(argv)
    pinned = pin_to_one_core()
    lines = [json.loads(raw) for raw in CASES.read_text(encoding="utf-8").split("\n") if raw.strip()]
    workload = [{**line, "id": f"{line['id']}-{n}"} for n in range(args.repeat) for line in lines]
    config = read_config()  # the bundled config

    start = time.perf_counter()
    judged = [judge_case(parse_case(line), config) for line in workload]
    build_report(judged, config)
    core = time.perf_counter() - start
    print(f"core: {len(workload)} cases in {core:.2f} s = {len(workload) / core:,.0f} cases/s ({pinned})")

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cases.ndjson"
        path.write_text("\n".join(json.dumps(line) for line in workload) + "\n", encoding="utf-8")
        command = [sys.executable, "-m", "streams.cli.main", "check", "oracle", str(path), "--config",
                   str(bundled_config_path()), "--report", str(Path(tmp) / "report.json")]
        if hasattr(os, "sched_getaffinity") and Path("/usr/bin/taskset").exists():
            command = ["taskset", "-c", str(min(os.sched_getaffinity(0))), *command]
        start = time.perf_counter()
        done = subprocess.run(command, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
        cli = time.perf_counter() - start
    print(f"omega check oracle: {len(workload)} cases in {cli:.2f} s = {len(workload) / cli:,.0f} cases/s "
          f"(exit {done.returncode}, start-up included)")
    return {"core": {"count": len(workload), "seconds": core, "per_second": len(workload) / core},
            "cli": {"count": len(workload), "seconds": cli, "per_second": len(workload) / cli},
            "exit_code": done.returncode}


def main(argv: Sequence[str] | None = None) -> None:
    run(argv)


if __name__ == "__main__":
    main()
