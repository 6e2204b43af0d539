"""Throughput of DS005 answers: ingesting the suite's corpus, then answering its questions, on one core.

    python -m tests.bench.bench_answers [--repeat N]

The workload is tests/data/answers/suite.json (its documents and manual facts, its questions), the suite of
`omega check answers`. Two figures: *ingest* is `omega.answers.suite.build_store` (chunking, rule-based
extraction, validation, manual facts) repeated `--repeat` times, in documents per second; *answer* is
`answer_question` (plan, then answer over the store) for every question, `--repeat` times, in answers per
second with per-answer latency percentiles. Pinned to one CPU where the OS allows. It prints figures and
never asserts on time.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from omega.answers.suite import answer_question, build_store, parse_suite, passed
from tests.bench.pinning import pin_to_one_core

SUITE = Path(__file__).resolve().parents[1] / "data" / "answers" / "suite.json"
clock = time.perf_counter


def _percentile(ordered: list[float], p: float) -> float:
    return ordered[min(len(ordered) - 1, max(0, math.ceil(p / 100 * len(ordered)) - 1))] if ordered else math.nan


def run(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Measure and print; returns `ingest` ({documents, count, seconds, per_second}) and `answer` ({questions,
    count, seconds, per_second, p50_us, p95_us, p99_us}) and `passed` (questions meeting their expectations
    in the first round). Leaves the process pinned."""
    parser = argparse.ArgumentParser(prog="python -m tests.bench.bench_answers", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=500,
                        help="ingests of the corpus, answers of each question (default 500)")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be positive")
    pinned = pin_to_one_core()
    suite = parse_suite(json.loads(SUITE.read_text(encoding="utf-8")))
    store, _ = build_store(suite)  # warm-up
    start = clock()
    for _ in range(args.repeat):
        store, rejections = build_store(suite)
    ingest_seconds = clock() - start
    documents = len(suite.corpus) * args.repeat
    print(f"ingest: {len(suite.corpus)} documents x {args.repeat} in {ingest_seconds:.2f} s ="
          f" {documents / ingest_seconds:,.0f} documents/s; {len(store)} facts,"
          f" {len(rejections)} rejections ({pinned})")

    verdicts: Counter[str] = Counter()
    ok = sum(passed(q, answer_question(q, store, suite.vocabulary)) for q in suite.questions)  # warm-up
    lat: list[float] = []
    start = clock()
    for _ in range(args.repeat):
        for question in suite.questions:
            t0 = clock()
            got = answer_question(question, store, suite.vocabulary)
            lat.append((clock() - t0) * 1e6)
            verdicts[got.verdict] += 1
    answer_seconds = clock() - start
    lat.sort()
    pct = {p: _percentile(lat, p) for p in (50, 95, 99)}
    print(f"answer: {len(suite.questions)} questions x {args.repeat} in {answer_seconds:.2f} s ="
          f" {len(lat) / answer_seconds:,.0f} answers/s; per answer (µs) "
          + ", ".join(f"p{p} {v:.0f}" for p, v in pct.items())
          + f"; verdicts {dict(verdicts)}; {ok}/{len(suite.questions)} questions as expected")
    return {"ingest": {"documents": len(suite.corpus), "count": documents, "seconds": ingest_seconds,
                       "per_second": documents / ingest_seconds},
            "answer": {"questions": len(suite.questions), "count": len(lat), "seconds": answer_seconds,
                       "per_second": len(lat) / answer_seconds, **{f"p{p}_us": v for p, v in pct.items()}},
            "passed": ok}


def main(argv: Sequence[str] | None = None) -> None:
    run(argv)


if __name__ == "__main__":
    main()
