"""A seeded uniform sample of a shard's mutants, for shards too large to run whole in a session (issue 20).

    python scripts/mutation_sample.py out/mutation-results.txt omega.agents 1500 [SEED]

Prints the names of the sample that have not run yet, one per line, for `mutmut run NAME...`. The same seed gives the
same sample, so a stopped run resumes where it stopped; scripts/mutation_report.py gives the sample's score with its
95% interval.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    """Sample `size` mutants of the prefix with the seed (default 20); print those still unchecked."""
    results, prefix, size, *rest = argv
    seed = int(rest[0]) if rest else 20
    status: dict[str, str] = {}
    for line in Path(results).read_text(encoding="utf-8").splitlines():
        name, _, state = line.strip().rpartition(": ")
        if name.startswith(prefix + "."):
            status[name] = state
    sample = random.Random(seed).sample(sorted(status), min(int(size), len(status)))  # noqa: S311 a sample, not a secret
    sys.stdout.write("".join(f"{name}\n" for name in sorted(sample) if status[name] == "not checked"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
