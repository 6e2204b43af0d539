"""A seeded uniform sample of a shard's mutants, for shards too large to run whole in a session (issue 20).

    python scripts/mutation_sample.py out/mutation-results.txt 800 omega.agents \
        --exclude omega.agents.crossrefs omega.agents.roster
    python scripts/mutation_sample.py out/mutation-results.txt 20 omega.grounding.tokens

Prints the names of the sample that have not run yet, one per line, for `mutmut run NAME...`. The same seed gives the
same sample, so a stopped run resumes where it stopped; scripts/mutation_report.py gives the sample's score with its
95% interval.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    """Sample `size` mutants under the prefix (less the excluded modules) with the seed; print those unchecked."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, help="`mutmut results --all true` output")
    parser.add_argument("size", type=int)
    parser.add_argument("prefix", help="a module or package, e.g. omega.agents")
    parser.add_argument("--exclude", nargs="*", default=[], help="modules left out (sampled on their own)")
    parser.add_argument("--seed", type=int, default=20)
    args = parser.parse_args(argv)
    status: dict[str, str] = {}
    for line in args.results.read_text(encoding="utf-8").splitlines():
        name, _, state = line.strip().rpartition(": ")
        module = re.split(r"\.x[_ǁ]", name)[0]
        if name.startswith(args.prefix + ".") and module not in args.exclude:
            status[name] = state
    names = sorted(status)
    sample = random.Random(args.seed).sample(names, min(args.size, len(names)))  # noqa: S311 a sample, not a secret
    sys.stdout.write("".join(f"{name}\n" for name in sorted(sample) if status[name] == "not checked"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
