"""`python -m tests.bench [--quick] [--only NAME ...] [--no-write] ...`: the benchmark suite (tests/bench/suite.py),
from the source checkout; the installed `omega` command carries no tests."""

import sys

from tests.bench.suite import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
