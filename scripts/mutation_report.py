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
    parser.add_argument("results", type=Path, help="`mutmut results --all true` output")
    parser.add_argument("prefixes", nargs="*")
    parser.add_argument("--sample", type=Path, help="scripts/mutation_sample.py output")
    args = parser.parse_args(argv)
    equivalent = equivalent_names()
    status: dict[str, str] = {}
    for line in args.results.read_text(encoding="utf-8").splitlines():
        name, _, state = line.strip().rpartition(": ")
        if name and (not args.prefixes or any(name.startswith(p + ".") for p in args.prefixes)):
            status[name] = state
    whole: Counter[str] = Counter(module_of(name) for name in status)
    unrun = {module_of(name) for name, state in status.items() if state == "not checked"}
    sample = set(args.sample.read_text(encoding="utf-8").split()) if args.sample else set()
    sampled = {module for module in unrun if any(module_of(name) == module for name in sample)}
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    survivors: dict[str, list[str]] = defaultdict(list)
    for name, state in status.items():
        module = module_of(name)
        if module in sampled and name not in sample:
            continue
        counts[module][state] += 1
        if state == "survived":
            survivors[module].append(name)
    lines = ["| module | mutants | ran | killed (timeouts count) | survived | equivalent | not reviewed | "
             "score (killed / ran) | adjusted (equivalent left out) |",
             "|---|---|---|---|---|---|---|---|---|"]
    total: Counter[str] = Counter()
    for module in sorted(counts):
        c = counts[module]
        c["equivalent"] = sum(1 for name in survivors[module] if name in equivalent)
        total.update(c)
        lines.append(_row(f"`{module}`" + (f" (sample of {whole[module]})" if module in sampled else ""), c,
                          module in sampled))
    if len(counts) > 1 and not sampled:  # a sum of whole modules and samples would estimate nothing
        lines.append(_row("**all**", total))
    for module in sorted(survivors):
        left = sorted(name for name in survivors[module] if name not in equivalent)
        if left:
            lines += ["", f"Survivors not yet reviewed in `{module}` ({len(left)}):", ""]
            lines += [f"- `{name}`" for name in left]
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def _row(label: str, c: Counter[str], sample: bool = False) -> str:
    ran = sum(c[s] for s in RAN)
    caught = c["killed"] + c["timeout"]
    mutants = sum(n for status, n in c.items() if status != "equivalent")
    score = adjusted = "n/a"
    if ran:
        score = f"{caught / ran:.1%}"
        if sample:
            low, high = wilson(caught, ran)
            score += f" ({low:.0%}-{high:.0%})"
    if ran - c["equivalent"]:
        adjusted = f"{caught / (ran - c['equivalent']):.1%}"
    return (f"| {label} | {mutants} | {ran} | {caught} | {c['survived']} | {c['equivalent']} | "
            f"{c['survived'] - c['equivalent']} | {score} | {adjusted} |")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
