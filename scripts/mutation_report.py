"""Per-module mutation scores from `mutmut results --all true` (issue 20): killed / (mutants that ran), survivors
listed by name. Prints a Markdown table; `scripts/mutation.sh` writes it for docs/mutation.md.

    python scripts/mutation_report.py out/mutation-results.txt omega.oracle omega.grounding
"""

from __future__ import annotations

import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

RAN = ("killed", "survived", "timeout", "suspicious")


def main(argv: list[str]) -> int:
    """Read the results file, group by the module prefixes given (or by file), print the table."""
    results, *prefixes = argv
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    survivors: dict[str, list[str]] = defaultdict(list)
    for line in Path(results).read_text(encoding="utf-8").splitlines():
        name, _, status = line.strip().rpartition(": ")
        if not name:
            continue
        # a mutant is `<module>.x_<function>__mutmut_N` or `<module>.xǁ<Class>ǁ<method>__mutmut_N`
        module = next((p for p in prefixes if name.startswith(p + ".")), re.split(r"\.x[_ǁ]", name)[0])
        counts[module][status] += 1
        if status == "survived":
            survivors[module].append(name)
    lines = ["| module | mutants | ran | killed | survived | timeout | no tests | score (killed / ran) |",
             "|---|---|---|---|---|---|---|---|"]
    for module in sorted(counts):
        c = counts[module]
        ran = sum(c[s] for s in RAN)
        score = f"{(c['killed'] + c['timeout']) / ran:.1%}" if ran else "n/a"
        lines.append(f"| `{module}` | {sum(c.values())} | {ran} | {c['killed']} | {c['survived']} | {c['timeout']} | "
                     f"{c['no tests']} | {score} |")
    for module in sorted(survivors):
        lines += ["", f"Survivors in `{module}` ({len(survivors[module])}):", ""]
        lines += [f"- `{name}`" for name in sorted(survivors[module])]
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
