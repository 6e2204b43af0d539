"""What a replayed packet costs at the least (issue 24): each step replay-equals-live needs, timed alone on the same
packets as `evolve`, and what share of their sum `evolve` is.

    python -m tests.bench.bench_replay_floor [--events N] [--episodes M] [--rounds R] [--workload factory|mixed]

The steps, each run over the previous step's results (CPU time of this process, pinned to one core, best of R
rounds): the strict JSON parse of the line; JSON -> Avro datum; the packet's Avro bytes (what the state-size check
measures and a dead letter carries); datum -> packet; `evolve` over a dict of ledgers; each output's Avro encode;
its `--out` line; the episode's table entries (the ledger's form, the judgement) and their changelog measure.
Their sum is the floor of an embedded replay that keeps replay-equals-live and does nothing else: `evolve`'s share
of it is the highest replay / `evolve` ratio `bench_replay_speed` could show with every other cost removed. The
same run times `omega replay --jobs 1` on the same packets for the share the floor leaves. Never asserts on time.
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from omega.packets.ledger import EpisodeLedger
from omega.packets.validator import evolve
from streams.replay import jobs as replay_jobs
from streams.replay.replayer import output_line
from streams.stages.base import Outputs, oversized_entry, parse_json_object
from streams.stages.episodes import judgement_key
from streams.stages.packets import PacketStage
from streams.wire.codec import SchemaRegistry
from streams.wire.omen_avro import PACKET_SCHEMA
from tests.bench.bench_pipeline import machine, to_json_bytes, write_jsonl
from tests.bench.bench_replay_speed import one_core, workload_arguments

MAX_EVENT_BYTES = 1_048_576  # the worker's default (Settings.max_event_bytes)


def best_cpu_us(step: Callable[[], object], count: int, rounds: int) -> float:
    """The least CPU time of `rounds` runs of `step`, in microseconds per item of its `count`."""
    best = float("inf")
    for _ in range(rounds):
        start = time.process_time()
        step()
        best = min(best, time.process_time() - start)
    return best / count * 1e6


def judged(packets: list[dict[str, Any]]) -> list[tuple[str, EpisodeLedger | None, EpisodeLedger, list[Any]]]:
    """(episode, ledger before, ledger after, outputs) per packet, `evolve` over a dict of ledgers."""
    ledgers: dict[str, EpisodeLedger] = {}
    steps = []
    for packet in packets:
        key = packet["header"]["correlation_id"]
        before = ledgers.get(key)
        after, outputs = evolve(before, packet)
        ledgers[key] = after
        steps.append((key, before, after, outputs))
    return steps


def floor(packets: list[dict[str, Any]], rounds: int) -> dict[str, float]:
    """Microseconds of CPU per packet of each step (module docstring), in the order a replay takes them."""
    registry = SchemaRegistry.from_directory()
    pipeline = PacketStage(Outputs(registry))
    convert = pipeline.packets
    lines = [to_json_bytes(p) for p in packets]
    parsed = [parse_json_object(line, MAX_EVENT_BYTES) for line in lines]
    datums = [convert.to_avro(p) for p in parsed]
    judged_packets = [convert.from_avro(d) for d in datums]
    steps = judged(judged_packets)
    emits = [pipeline.outputs.output(o, None) for _, _, _, outputs in steps for o in outputs]
    n = len(packets)

    def entries() -> None:
        for key, before, after, _ in steps:  # as stages/episodes.py `_entries` and `put_checked` make them
            older = None if before is None else before.applied
            for seq, packet_id, judgement in after.applied.added_since(older):
                oversized_entry(judgement_key(key, packet_id), [seq, judgement.to_list()])
            oversized_entry(key, after.to_dict(judgements=False))

    costs = {
        "strict JSON parse": best_cpu_us(lambda: [parse_json_object(x, MAX_EVENT_BYTES) for x in lines], n, rounds),
        "JSON -> Avro datum": best_cpu_us(lambda: [convert.to_avro(p) for p in parsed], n, rounds),
        "packet's Avro bytes": best_cpu_us(lambda: [registry.encode(PACKET_SCHEMA, d) for d in datums], n, rounds),
        "datum -> packet": best_cpu_us(lambda: [convert.from_avro(d) for d in datums], n, rounds),
        "evolve": best_cpu_us(lambda: judged(judged_packets), n, rounds),
        "outputs' Avro encode": best_cpu_us(
            lambda: [pipeline.outputs.output(o, None) for _, _, _, outputs in steps for o in outputs], n, rounds),
        "--out lines": best_cpu_us(lambda: [output_line(e) for e in emits], n, rounds),
        "table entries and their measure": best_cpu_us(entries, n, rounds),
    }
    return costs


def replay_us(packets: list[dict[str, Any]], rounds: int) -> float:
    """Microseconds of CPU per packet of `omega replay --jobs 1 --out` on the same packets, best of `rounds`."""
    pipeline = PacketStage(Outputs(SchemaRegistry.from_directory()))
    with tempfile.TemporaryDirectory(prefix="omega-bench-") as tmp:
        path, out_path = Path(tmp) / "episodes.jsonl", Path(tmp) / "out.jsonl"
        write_jsonl(path, packets)

        def once() -> None:
            with out_path.open("w", encoding="utf-8") as out:
                replay_jobs.replay([path], pipeline.outputs, 0, 1, out)

        return best_cpu_us(once, len(packets), rounds)


def run(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Measure and print; returns the step costs (`costs`), their sum (`floor_us`), `evolve`'s share of it
    (`evolve_share`), and replay's own cost per packet (`replay_us`)."""
    args, packets = workload_arguments("python -m tests.bench.bench_replay_floor", __doc__, argv)
    with one_core() as pinned:
        print(f"machine: {machine()}; {pinned}")
        print(f"{len(packets):,} packets over {args.episodes:,} episodes ({args.workload} workload), CPU time, "
              f"best of {args.rounds}")
        costs = floor(packets, args.rounds)
        replay = replay_us(packets, args.rounds)
    total = sum(costs.values())
    for name, us in costs.items():
        print(f"  {name:<34} {us:8.1f} us/packet  {us / total:6.1%}")
    print(f"  {'floor (the sum)':<34} {total:8.1f} us/packet")
    share = costs["evolve"] / total
    print(f"  omega replay --jobs 1 --out        {replay:8.1f} us/packet (the floor is {total / replay:.0%} of it)")
    print(f"  evolve / floor = {share:.1%}: the highest replay / evolve ratio with nothing but these steps; "
          f"replay / evolve now {costs['evolve'] / replay:.1%}")
    return {"costs": costs, "floor_us": total, "evolve_share": share, "replay_us": replay}


def main(argv: Sequence[str] | None = None) -> int:
    run(argv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
