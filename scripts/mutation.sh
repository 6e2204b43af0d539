#!/usr/bin/env bash
# Mutation score of the modules that carry the guarantees (issue 20), against the fast suites (unit + agents).
#
#   make mutation MODULES="omega.oracle omega.packets"    # one shard per module prefix, results kept between runs
#   MUTATION_SAMPLE=30 make mutation MODULES="omega.agents omega.oracle"   # a seeded sample of 30 per module
#
# Not in CI: a whole run of omega/ takes hours on 2 cores. mutmut copies the tree to mutants/, records which tests
# reach which function (once, cached in mutants/mutmut-stats.json), then runs, for each mutant of the shard, only the
# tests that reach it. scripts/mutation_report.py turns `mutmut results` into docs/mutation.md.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=.venv/bin
# mutmut 3.7.0: the newest whose click requirement faust-streaming (click < 8.4) accepts
"$BIN/pip" install --quiet "mutmut==3.7.0" "click>=8.1,<8.4"
MODULES=${MODULES:-streams omega.packets omega.agents omega.oracle omega.answers omega.grounding}
# The tests find the specs and data at ../shared from the tree they run in; in mutants/ that is ./shared here.
if [ ! -e shared ]; then
    ln -s ../shared shared
    trap 'rm -f shared' EXIT
fi
CHILDREN=${MUTATION_CHILDREN:-2}
# MUTATION_SAMPLE=N: instead of every mutant, a seeded sample of N per module (two fifths of N, at least 10, for the
# modules whose every mutant re-imports our packages: the shim's IMPORT_TIME), for shards too large for a session;
# run again with the same N to resume. Needs the mutants generated (any earlier shard run generates all of them).
SAMPLE=${MUTATION_SAMPLE:-}
mkdir -p out
if [ -n "$SAMPLE" ]; then
    "$BIN/mutmut" results --all true > out/mutation-results.txt
    read -r -a slow < <("$BIN/python" -c "from tests.mutation_shim import IMPORT_TIME; print(*IMPORT_TIME)")
    "$BIN/python" scripts/mutation_sample.py out/mutation-results.txt "$SAMPLE" $MODULES \
        --slow "${slow[@]}" --slow-size $(( SAMPLE * 2 / 5 > 10 ? SAMPLE * 2 / 5 : 10 )) > out/mutation-sample.txt
    mapfile -t names < <(grep -xFf out/mutation-sample.txt <(grep ': not checked$' out/mutation-results.txt \
        | sed 's/: not checked$//; s/^ *//'))
    echo "== mutation: a sample of $SAMPLE per module, ${#names[@]} not yet run"
    if [ "${#names[@]}" -gt 0 ]; then
        "$BIN/mutmut" run --max-children "$CHILDREN" "${names[@]}" || true  # survivors are data, not a failure
    fi
else
    for module in $MODULES; do
        echo "== mutation: $module"
        "$BIN/mutmut" run --max-children "$CHILDREN" "${module}.*" || true  # survivors are data, not a failure
    done
fi
"$BIN/mutmut" results --all true > out/mutation-results.txt
"$BIN/python" scripts/mutation_report.py out/mutation-results.txt $MODULES ${SAMPLE:+--sample out/mutation-sample.txt}
