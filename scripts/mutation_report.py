"""Per-module mutation scores from `mutmut results --all true` (issue 20): killed / (mutants that ran), survivors
listed by name. Prints a Markdown table; `scripts/mutation.sh` writes it for docs/mutation.md.

    python scripts/mutation_report.py out/mutation-results.txt omega.oracle omega.grounding \
        [--sample out/mutation-sample.txt]

Rows are source modules (`omega.packets.fsm`); the prefixes given pick which modules are reported. Survivors named
in docs/mutation-equivalent.txt (`name  reason`, one per line) are left out of the "adjusted" score and listed
apart from the survivors not yet reviewed. A module whose mutants did not all run is scored on its seeded sample
(scripts/mutation_sample.py) when one is given, with the 95% Wilson interval ("mutants" is then the sample's size,
marked "of" the module's); without a sample, on the mutants that ran, which need not be representative (mutmut
runs the mutants with the fastest tests first).
"""

from __future__ import annotations

import argparse
import gzip
import math
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

RAN = ("killed", "survived", "timeout", "suspicious")
EQUIVALENT = Path(__file__).resolve().parent.parent / "docs" / "mutation-equivalent.txt"


def module_of(name: str) -> str:
    """`<module>.x_<function>__mutmut_N` or `<module>.xǁ<Class>ǁ<method>__mutmut_N` -> `<module>`."""
    return re.split(r"\.x[_ǁ]", name)[0]


def equivalent_names(path: Path = EQUIVALENT) -> dict[str, str]:
    """The survivors shown equivalent, name -> reason (`#` starts a comment line)."""
    if not path.exists():
        return {}
    named: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, _, reason = line.strip().partition(" ")
            named[name] = reason.strip()
    return named


def wilson(killed: int, ran: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion killed/ran (ran > 0)."""
    p = killed / ran
    centre = (p + z * z / (2 * ran)) / (1 + z * z / ran)
    half = z * math.sqrt(p * (1 - p) / ran + z * z / (4 * ran * ran)) / (1 + z * z / ran)
    return max(0.0, centre - half), min(1.0, centre + half)


def main(argv: list[str]) -> int:
    """Read the results file, keep the modules under the prefixes given (all if none), print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, help="`mutmut results --all true` output (.gz too)")
    parser.add_argument("prefixes", nargs="*")
    parser.add_argument("--sample", type=Path, help="scripts/mutation_sample.py output")
    parser.add_argument("--before", type=Path, help="an earlier results file: its score becomes a column")
    args = parser.parse_args(argv)
    sample = set(_read(args.sample).split()) if args.sample else set()
    counts, survivors, whole, sampled = tally(args.results, args.prefixes, sample)
    before = tally(args.before, args.prefixes, sample)[0] if args.before else {}
    lines = ["| module | mutants | ran | killed (timeouts count) | survived | equivalent | not reviewed | "
             + ("score before | " if args.before else "") + "score (killed / ran) | adjusted (equivalent left out) |",
             "|---|---|---|---|---|---|---|---|---|" + ("---|" if args.before else "")]
    total: Counter[str] = Counter()
    for module in sorted(counts):
        total.update(counts[module])
        label = f"`{module}`" + (f" (sample of {whole[module]})" if module in sampled else "")
        earlier = _score(before[module], module in sampled)[0] if module in before else "n/a"
        lines.append(_row(label, counts[module], module in sampled, earlier if args.before else None))
    if len(counts) > 1 and not sampled:  # a sum of whole modules and samples would estimate nothing
        lines.append(_row("**all**", total, before=_score(sum(before.values(), Counter()))[0] if before else None))
    for module in sorted(survivors):
        if survivors[module]:
            lines += ["", f"Survivors not yet reviewed in `{module}` ({len(survivors[module])}):", ""]
            lines += [f"- `{name}`" for name in sorted(survivors[module])]
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def tally(results: Path, prefixes: list[str], sample: set[str]) -> tuple[
        dict[str, Counter[str]], dict[str, list[str]], Counter[str], set[str]]:
    """Per module: status counts (with "equivalent"), the survivors not reviewed, the module's size, and which
    modules are scored on their sample (those with mutants not run)."""
    equivalent = equivalent_names()
    status = read_results(results, prefixes)
    whole: Counter[str] = Counter(module_of(name) for name in status)
    unrun = {module_of(name) for name, state in status.items() if state == "not checked"}
    sampled = unrun & {module_of(name) for name in sample}
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    survivors: dict[str, list[str]] = defaultdict(list)
    for name, state in status.items():
        module = module_of(name)
        if module in sampled and name not in sample:
            continue
        counts[module][state] += 1
        if state == "survived":
            if name in equivalent:
                counts[module]["equivalent"] += 1
            else:
                survivors[module].append(name)
    return counts, survivors, whole, sampled


def read_results(results: Path, prefixes: list[str]) -> dict[str, str]:
    """`mutmut results --all true` output (plain or .gz): mutant name -> status, for the names under the prefixes
    (all if none)."""
    status: dict[str, str] = {}
    for line in _read(results).splitlines():
        name, _, state = line.strip().rpartition(": ")
        if name and (not prefixes or any(name.startswith(p + ".") for p in prefixes)):
            status[name] = state
    return status


def _read(path: Path) -> str:
    return gzip.decompress(path.read_bytes()).decode() if path.suffix == ".gz" else path.read_text("utf-8")


def _score(c: Counter[str], sample: bool = False) -> tuple[str, str]:
    """The score (with its interval on a sample) and the adjusted score of one row's counts."""
    ran = sum(c[s] for s in RAN)
    caught = c["killed"] + c["timeout"]
    score = adjusted = "n/a"
    if ran:
        score = f"{caught / ran:.1%}"
        if sample:
            low, high = wilson(caught, ran)
            score += f" ({low:.0%}-{high:.0%})"
    if ran - c["equivalent"]:
        adjusted = f"{caught / (ran - c['equivalent']):.1%}"
    return score, adjusted


def _row(label: str, c: Counter[str], sample: bool = False, before: str | None = None) -> str:
    ran = sum(c[s] for s in RAN)
    mutants = sum(n for status, n in c.items() if status != "equivalent")
    score, adjusted = _score(c, sample)
    earlier = "" if before is None else f"{before} | "
    return (f"| {label} | {mutants} | {ran} | {c['killed'] + c['timeout']} | {c['survived']} | {c['equivalent']} | "
            f"{c['survived'] - c['equivalent']} | {earlier}{score} | {adjusted} |")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
