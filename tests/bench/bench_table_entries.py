"""What measuring a table entry before it is stored costs (streams/stages/base.py `oversized_entry`, called by
`put_checked` for every entry since issue 24), per kind of entry, beside the json module's dumps it replaced.

    python -m tests.bench.bench_table_entries [--events N] [--copies C]

The entries are the ones replay stores: episode ledgers and judgements of `--events` factory packets over 500
episodes, and the OMEGA-57 sessions of the monitor bench's workload (`--copies` of each simulated session). Each
figure is the best of 9 passes over all entries of its kind, in µs per entry. Prints, never asserts.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from streams.replay.inputs import read_inputs
from streams.replay.replayer import Replayer
from streams.stages.base import Outputs, Source, oversized_entry
from streams.stages.messages import MonitorStage, SessionSteps
from streams.stages.packets import PacketStage
from streams.wire.codec import SchemaRegistry
from tests.bench import bench_monitor
from tests.bench.bench_pipeline import machine, workload, write_jsonl

Entries = list[tuple[str, Any]]


def entries(events: int, copies: int) -> dict[str, Entries]:
    """The stored entries by kind: `ledger`, `judgement`, `session`."""
    pipeline = PacketStage(Outputs(SchemaRegistry.from_directory()))
    with tempfile.TemporaryDirectory(prefix="omega-bench-") as tmp:
        path = Path(tmp) / "episodes.jsonl"
        write_jsonl(path, workload(events, 500))
        replayer = Replayer(pipeline.outputs)
        replayer.run(read_inputs([path]))
    sessions: dict[str, Any] = {}
    steps = SessionSteps(MonitorStage(pipeline.outputs), sessions)
    for offset, (session_id, raw) in enumerate(bench_monitor.workload(copies)):
        steps.record(raw, Source("raw", 0, offset, session_id.encode()))
    stored = list(replayer.episodes.items())
    return {"ledger": [(k, v) for k, v in stored if isinstance(v, dict)],
            "judgement": [(k, v) for k, v in stored if not isinstance(v, dict)],
            "session": list(sessions.items())}


def best_us(measure: Callable[[str, Any], object], items: Entries, passes: int = 9) -> float:
    """The best of `passes` passes of `measure` over `items`, in µs per entry."""
    best = float("inf")
    for _ in range(passes):
        start = time.perf_counter()
        for key, value in items:
            measure(key, value)
        best = min(best, time.perf_counter() - start)
    return best / len(items) * 1e6


def _json_module(key: str, value: Any) -> int:
    return len(key.encode("utf-8", "surrogatepass")) + len(json.dumps(value).encode("utf-8", "surrogatepass"))


def main(argv: Sequence[str] | None = None) -> int:
    cli = argparse.ArgumentParser(prog="python -m tests.bench.bench_table_entries", description=__doc__,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
    cli.add_argument("--events", type=int, default=20_000)
    cli.add_argument("--copies", type=int, default=2)
    args = cli.parse_args(argv)
    if args.events < 1 or args.copies < 1:
        cli.error("--events and --copies must be positive")
    by_kind = entries(args.events, args.copies)
    gc.collect()
    gc.freeze()  # the entries are kept for the whole run: collections would scan them again and again
    print(f"machine: {machine()}")
    for kind, items in by_kind.items():
        size = sum(_json_module(k, v) for k, v in items) / len(items)
        print(f"  {kind:<9} {len(items):6,} entries, {size:9,.0f} bytes each (json module form): "
              f"oversized_entry {best_us(oversized_entry, items):7.1f} µs, "
              f"json module dumps {best_us(_json_module, items):7.1f} µs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
