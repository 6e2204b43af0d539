"""A seeded uniform sample of each module's mutants, for shards too large to run whole in a session (issue 20).

    python scripts/mutation_sample.py out/mutation-results.txt 30 omega.agents omega.oracle \
        --slow omega.agents.crossrefs omega.agents.roster --slow-size 12 > out/mutation-sample.txt

Prints the sample, one name per line: for every module under the prefixes given, `size` of its mutants drawn with
the seed (`slow-size` for the slow modules: those whose every mutant re-imports our packages, see
tests/mutation_shim.py). The same seed gives the same sample, so a stopped run resumes where it stopped.
`scripts/mutation_report.py --sample out/mutation-sample.txt` scores a module that did not run whole on its sample,
with the 95% interval.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import defaultdict
from pathlib import Path

from mutation_report import module_of, read_results  # scripts/ is on the path of a script run from it


def main(argv: list[str]) -> int:
    """Print `size` (or `slow-size`) seeded mutants of every module under the prefixes."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, help="`mutmut results --all true` output")
    parser.add_argument("size", type=int)
    parser.add_argument("prefixes", nargs="+", help="modules or packages, e.g. omega.agents")
    parser.add_argument("--slow", nargs="*", default=[], help="modules sampled with --slow-size")
    parser.add_argument("--slow-size", type=int, default=12)
    parser.add_argument("--seed", type=int, default=20)
    args = parser.parse_args(argv)
    by_module: dict[str, list[str]] = defaultdict(list)
    for name in read_results(args.results, args.prefixes):
        by_module[module_of(name)].append(name)
    for module, names in sorted(by_module.items()):
        size = args.slow_size if module in args.slow else args.size
        rng = random.Random(f"{args.seed}:{module}")  # noqa: S311 a sample, not a secret
        sys.stdout.write("".join(f"{n}\n" for n in sorted(rng.sample(sorted(names), min(size, len(names))))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
