"""Per-sentence latency of the deterministic grounding checker over a labelled set, and its contract metrics.

    python -m tests.bench.bench_grounding [--repeat N] [--data FILE_OR_DIR]
    python -m tests.bench.bench_grounding --data tests/data/fever_symmetric/dev.grounding.json

(the second is `make grounding-eval`). Each sentence of tests/data/grounding/*.json (or of `--data`) is judged
`--repeat` times by `verify_sentence` (citations, conflicts, entailment, qualifiers, scope, numbers; facts
analysed once and memoised, as in a paragraph); one `perf_counter` pair per call; nearest-rank percentiles of
every judgement, and of each sentence's median judgement (a sentence's own cost, without the pauses a shared
machine adds to a few of its judgements).
Pinned to one CPU where the OS allows. It prints figures and never asserts on time; with labels it also prints
false_support_rate and support recall.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from omega.grounding.metrics import contract_metrics
from omega.grounding.paragraph import verify_in_turn
from omega.grounding.qualifiers import Established
from omega.grounding.request import parse_facts, parse_request
from omega.grounding.verdict import Evidence, Sentence, verify_sentence
from tests.bench.pinning import pin_to_one_core

SUITE = Path(__file__).resolve().parents[1] / "data" / "grounding"


def _percentile(sorted_values: list[float], p: float) -> float:
    return sorted_values[min(len(sorted_values) - 1, max(0, round(p / 100 * len(sorted_values) + 0.5) - 1))]


def _workload(data_path: Path) -> list[tuple[Sentence, Evidence, Established, bool, bool | None]]:
    """Each sentence with its evidence, the qualifiers its paragraph established before it, its verdict as its
    paragraph judges it (for the metrics) and its label."""
    work = []
    for path in sorted(data_path.glob("*.json")) if data_path.is_dir() else [data_path]:
        data = json.loads(path.read_text(encoding="utf-8"))
        facts = parse_facts(data["facts"])
        for paragraph in data["paragraphs"]:
            request = parse_request(paragraph, facts)
            work += [(sentence, request.evidence, established, verdict.passed, label)
                     for sentence, (verdict, established), label in zip(
                         request.sentences, verify_in_turn(request), request.expected_supported, strict=True)]
    return work


def run(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Measure and print the percentiles in microseconds; returns `sentences`, `count`, `seconds`,
    `per_second` and `p50_us`, `p90_us`, `p99_us`, `p99.9_us`, `max_us`, `median_p50_us`, `median_p90_us`,
    `median_p99_us`. Leaves the process pinned."""
    parser = argparse.ArgumentParser(prog="python -m tests.bench.bench_grounding", description=__doc__)
    parser.add_argument("--repeat", type=int, default=200, help="judgements of each sentence (default 200)")
    parser.add_argument("--data", type=Path, default=SUITE, help="a `{facts, paragraphs}` file or a folder of them "
                                                                   "(default: the labelled suite)")
    args = parser.parse_args(argv)
    pinned = pin_to_one_core()
    work = _workload(args.data)
    # the paragraphs judged once (the labelled outcomes for the metrics) memoised the fact analyses, as after a
    # paragraph's first sentence
    metrics = contract_metrics([(passed, label) for *_, passed, label in work], [])
    per_sentence: list[list[float]] = [[] for _ in work]
    start = time.perf_counter()
    for _ in range(args.repeat):
        for (sentence, evidence, established, _passed, _label), own in zip(work, per_sentence, strict=True):
            t0 = time.perf_counter()
            verify_sentence(sentence, evidence, None, established)
            own.append(time.perf_counter() - t0)
    wall = time.perf_counter() - start
    times = sorted(t for own in per_sentence for t in own)
    micro = {p: _percentile(times, p) * 1e6 for p in (50, 90, 99, 99.9)}
    # each sentence's median judgement: what the sentence costs, without the pauses a shared machine adds to a few
    medians = sorted(statistics.median(own) for own in per_sentence)
    typical = {p: _percentile(medians, p) * 1e6 for p in (50, 90, 99)}
    print(f"deterministic checker: {len(work)} sentences x {args.repeat} = {len(times)} judgements in {wall:.2f} s "
          f"({len(times) / wall:,.0f} sentences/s, {pinned})")
    print("per-sentence latency (µs): " + ", ".join(f"p{p:g} {v:.0f}" for p, v in micro.items())
          + f", max {times[-1] * 1e6:.0f}")
    print(f"each sentence's median of {args.repeat} (µs): " + ", ".join(f"p{p:g} {v:.0f}" for p, v in typical.items())
          + f", max {medians[-1] * 1e6:.0f}")
    recall = None if metrics.over_refusal_rate is None else 1 - metrics.over_refusal_rate
    if metrics.false_support_rate is not None and recall is not None:
        false = round(metrics.false_support_rate * metrics.labelled_unsupported)
        passed = round(recall * metrics.labelled_supported)
        print(f"{args.data}: false_support_rate {metrics.false_support_rate:.4f} ({false} of "
              f"{metrics.labelled_unsupported}), support recall {recall:.4f} "
              f"({passed} of {metrics.labelled_supported})")
    return {"false_support_rate": metrics.false_support_rate, "support_recall": recall,
            "labelled_supported": metrics.labelled_supported, "labelled_unsupported": metrics.labelled_unsupported,
            "sentences": len(work), "count": len(times), "seconds": wall, "per_second": len(times) / wall,
            **{f"p{p:g}_us": v for p, v in micro.items()}, "max_us": times[-1] * 1e6,
            **{f"median_p{p:g}_us": v for p, v in typical.items()}}


def main(argv: Sequence[str] | None = None) -> None:
    run(argv)


if __name__ == "__main__":
    main()
