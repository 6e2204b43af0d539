"""A fixed amount of grounding work for instruction counts (callgrind), where wall clock on a shared machine is noise:

    valgrind --tool=callgrind --callgrind-out-file=/dev/null python -m tests.bench.grounding_passes DATA N

judges every sentence of DATA (a `{facts, paragraphs}` file or a folder of them) once, paragraph by paragraph,
then N more times. The instructions of N=1 minus those of N=0, divided by the sentences, are the cost of one
judgement with the facts already analysed (BENCHMARKS.md, issue 42)."""

from __future__ import annotations

import sys
from pathlib import Path

from omega.grounding.verdict import verify_sentence
from tests.bench.bench_grounding import _workload


def main(argv: list[str]) -> None:
    work = _workload(Path(argv[0]))
    for _ in range(int(argv[1])):
        for sentence, evidence, established, _passed, _label in work:
            verify_sentence(sentence, evidence, None, established)


if __name__ == "__main__":
    main(sys.argv[1:])
