"""A/B run of one benchmark: the code of a base commit against the working tree, alternated, in one run.

    python -m tests.bench.ab --base e11c599 --rounds 3 --figure 'p99 ([0-9.,]+),' -- bench_grounding --repeat 100
    python -m tests.bench.ab --base e11c599 --figure '"false_support_rate":([0-9.]+)' -- omega check grounding F --eval
    python -m tests.bench.ab --base HEAD --new-env OMEGA_PRODUCER_LINGER_MS=20 \
        --figure 'measured: published .* = +([0-9,]+)/s end to end' -- bench_pipeline --skip-codec --skip-replay \
        --live 127.0.0.1:29092 --live-workers 2 --live-avro --live-events 15000

The base is checked out with `git worktree add --detach` in a temporary directory (removed afterwards) and run
with this virtualenv; each round runs the base, then the working tree (`python -m tests.bench.<module> ARGS`, or
`python -m streams.cli.main ARGS` for `omega ARGS`; the same arguments, each side from its own tree). `--figure REGEX`
names the figure to compare: the first match of its first group in each run's output (thousands separators
dropped; a bench that prints a warm-up phase first needs a pattern that skips it, as `measured:` above); the
table gives base, new and new/base per round and the median ratio. On a shared machine only the
ratio of runs beside each other means anything. `--new-env NAME=VALUE` (repeatable) sets a variable for the new
side only (and the processes it starts): with `--base HEAD`, a setting measured against its default on the same
code. Prints, never asserts; exit 1 when a run's figure was not found (its last lines are printed).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def parser() -> argparse.ArgumentParser:
    """The command line of `python -m tests.bench.ab`."""
    cli = argparse.ArgumentParser(prog="python -m tests.bench.ab", description=__doc__,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
    cli.add_argument("--base", required=True, help="the commit to compare against (any git revision)")
    cli.add_argument("--rounds", type=int, default=3, help="base/new pairs, alternated (default 3)")
    cli.add_argument("--figure", required=True, type=re.compile,
                     help="regular expression whose first group is the figure, e.g. 'factory workload: +([0-9,.]+)'")
    cli.add_argument("--new-env", action="append", default=[], metavar="NAME=VALUE",
                     help="an environment variable for the new side only (repeatable)")
    cli.add_argument("--show", type=re.compile, default=None,
                     help="also print the output lines matching this expression, per run")
    cli.add_argument("bench", nargs=argparse.REMAINDER,
                     help="-- MODULE [ARGS...]: a module of tests/bench, or `omega` and a command of the CLI")
    return cli


def figure_in(output: str, pattern: re.Pattern[str]) -> float | None:
    """The first match of `pattern`'s first group in `output`, as a number (',' dropped), or None."""
    match = pattern.search(output)
    if match is None:
        return None
    return float(match.group(1).replace(",", ""))


def command(module: str, args: Sequence[str]) -> list[str]:
    """`omega ARGS` runs the CLI of the tree (`python -m streams.cli.main`); anything else is a tests/bench module."""
    if module == "omega":
        return [sys.executable, "-m", "streams.cli.main", *args]
    return [sys.executable, "-m", f"tests.bench.{module}", *args]


def environment(pairs: Sequence[str]) -> dict[str, str]:
    """`NAME=VALUE` pairs as a mapping; raises ValueError on one without `=` or without a name."""
    env = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise ValueError(f"--new-env takes NAME=VALUE, got {pair!r}")
        env[name] = value
    return env


def _run(tree: Path, module: str, args: Sequence[str], extra: dict[str, str] | None = None) -> tuple[int, str]:
    done = subprocess.run(command(module, args), cwd=tree, capture_output=True, text=True, check=False,
                          env={**os.environ, **(extra or {}), "PYTHONPATH": str(tree)})
    return done.returncode, done.stdout + done.stderr


def _worktree(base: str, where: Path) -> None:
    subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", "--quiet", str(where), base], check=True)
    shared = REPO.parent / "shared"
    if shared.exists() and not (where.parent / "shared").exists():
        (where.parent / "shared").symlink_to(shared)  # the base's tests find the specs and data at ../shared


def main(argv: Sequence[str] | None = None) -> int:
    """Run the A/B comparison; prints the table."""
    cli = parser()
    args = cli.parse_args(argv)
    bench = args.bench[1:] if args.bench[:1] == ["--"] else list(args.bench)  # only the separator, not a later "--"
    if not bench:
        cli.error("name the benchmark module after --, e.g. -- bench_grounding --repeat 100")
    if args.rounds < 1:
        cli.error("--rounds must be positive")
    module, bench_args = bench[0], bench[1:]
    try:
        new_env = environment(args.new_env)
    except ValueError as exc:
        cli.error(str(exc))
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", args.base], capture_output=True,
                            text=True, check=True).stdout.strip()
    head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True, check=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True, check=True).stdout.strip()
    shown = " ".join(["omega" if module == "omega" else f"python -m tests.bench.{module}", *bench_args])
    with_env = f", new side with {' '.join(args.new_env)}" if new_env else ""
    print(f"A/B: base {commit} against the working tree (HEAD {head}{', with changes' if dirty else ''}{with_env}),"
          f" {args.rounds} round(s) of `{shown}`")
    rows: list[tuple[float, float]] = []
    failed = False
    with tempfile.TemporaryDirectory(prefix="omega-ab-") as tmp:
        base_tree = Path(tmp) / "base"
        _worktree(args.base, base_tree)
        try:
            for round_no in range(1, args.rounds + 1):
                values: list[float | None] = []
                for side, tree in (("base", base_tree), ("new", REPO)):
                    code, output = _run(tree, module, bench_args, new_env if side == "new" else None)
                    value = figure_in(output, args.figure)
                    if args.show is not None:
                        for line in output.splitlines():
                            if args.show.search(line):
                                print(f"  round {round_no} {side}: {line.strip()}")
                    if value is None:  # an exit code other than 0 alone is data (a check that found faults)
                        failed = True
                        found = "not found" if value is None else value
                        print(f"  round {round_no} {side}: exit {code}, figure {found}")
                        print("\n".join("    " + t for t in output.splitlines()[-15:]))
                    values.append(value)
                base_value, new_value = values
                if base_value is not None and new_value is not None:
                    rows.append((base_value, new_value))
        finally:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(base_tree)], check=False)
    print("\n| round | base | new | new / base |\n|---|---|---|---|")
    for n, (base_value, new_value) in enumerate(rows, start=1):
        ratio = new_value / base_value if base_value else float("nan")
        print(f"| {n} | {base_value:,.6g} | {new_value:,.6g} | {ratio:.3g} |")
    if rows:
        ratios = [new / base for base, new in rows if base]
        print(f"median new / base over {len(ratios)} round(s): {statistics.median(ratios):.2f}")
    return 1 if failed or not rows else 0


if __name__ == "__main__":
    sys.exit(main())
