#!/usr/bin/env bash
# `make test`: quality gates, then the whole suite against a real broker, which is stopped even on failure.
# Broker order (docs/design.md, "Real parts in tests"): KAFKA_BOOTSTRAP_SERVERS if set; else the local KRaft broker from
# deploy/kafka; else a testcontainers Kafka where a Docker engine answers (tests/conftest.py).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=.venv/bin
T0=$SECONDS

echo "== ruff"; $BIN/ruff check omega streams projections tests
echo "== mypy"; $BIN/mypy
# The docs site (mkdocs.yml): a broken link, a missing anchor or a page outside the nav fails here.
echo "== mkdocs"; $BIN/mkdocs build --strict --quiet

started=""
pg_started=""
registry_started=""
wall=""
finish() {
  if [[ -n "$registry_started" ]]; then bash deploy/registry/registry.sh down >/dev/null || true; fi
  if [[ -n "$pg_started" ]]; then bash deploy/postgres/pg.sh down >/dev/null || true; fi
  if [[ -n "$started" ]]; then bash deploy/kafka/kafka.sh down || true; fi
  echo "== wall time: $(( (SECONDS - T0) / 60 ))m $(( (SECONDS - T0) % 60 ))s${wall}"
}
trap finish EXIT

if [[ -z "${KAFKA_BOOTSTRAP_SERVERS:-}" ]]; then
  if command -v java >/dev/null && command -v mvn >/dev/null; then
    # Only a broker this run started is stopped at the end; one already up is left alone.
    if ! bash deploy/kafka/kafka.sh status >/dev/null 2>&1; then started=1; fi
    echo "== kafka"; bash deploy/kafka/kafka.sh up
    export KAFKA_BOOTSTRAP_SERVERS="127.0.0.1:${OMEGA_KAFKA_PORT:-9092}"
  elif ! docker info >/dev/null 2>&1; then
    echo "no Java+Maven for the local broker and no Docker engine for testcontainers" >&2
    exit 1
  fi
fi
# A missing broker is a failure in this run, never a skip; so is a PostgreSQL that cannot start (started below).
export OMEGA_REQUIRE_BROKER=1
export OMEGA_REQUIRE_POSTGRES=1
# ... and a Schema Registry (Apicurio from Maven Central) that deploy/registry/registry.sh cannot start.
export OMEGA_REQUIRE_REGISTRY=1
# The live page's browser test needs Debian's chromium and chromedriver: installed here when missing, and then a
# missing browser fails that test instead of skipping it.
echo "== chromium"; bash scripts/ensure-chromium.sh && export OMEGA_REQUIRE_BROWSER=1

# Three passes (tests/conftest.py marks `serial` every test under tests/integration/ and every test that asks for a
# shared server's fixture, and `alone` the serial ones asserting a wall-clock bound): first the rest with
# pytest-xdist, OMEGA_TEST_WORKERS processes (2: the cores of the dev machine); then the serial ones but `alone` on
# OMEGA_SERIAL_WORKERS workers (below), each module on one worker and the tests starting brokers of their own on one worker together
# (`--dist loadscope`, tests/conftest.py): they mostly wait (worker start-up, broker round trips), each under its own topic
# prefix, consumer group, schema and subjects; then the `alone` ones in one process, with the servers to themselves.
# PostgreSQL and the registry are started here, before the workers: each worker's session would race to start them
# (tests/local_service.py). Arguments go to every pass.
if [[ -z "${OMEGA_PG_URL:-}" ]]; then
  if ! bash deploy/postgres/pg.sh status >/dev/null 2>&1; then pg_started=1; fi
  echo "== postgres"; OMEGA_PG_URL="$(bash deploy/postgres/pg.sh up | tail -n 1)"
  export OMEGA_PG_URL
fi
if [[ -z "${OMEGA_SCHEMA_REGISTRY_URL:-}" ]]; then
  if ! bash deploy/registry/registry.sh status >/dev/null 2>&1; then registry_started=1; fi
  echo "== registry"; OMEGA_SCHEMA_REGISTRY_URL="$(bash deploy/registry/registry.sh up | sed -n 's/^url=//p')"
  export OMEGA_SCHEMA_REGISTRY_URL
fi

run_pass() {  # run_pass NAME PYTEST-ARGS...: runs one pass, notes its wall time, returns pytest's code
  local name=$1 t=$SECONDS rc
  shift
  echo "== pytest ($name)"
  set +e
  $BIN/python -m pytest "$@"
  rc=$?
  set -e
  wall="$wall; $name $(( (SECONDS - t) / 60 ))m $(( (SECONDS - t) % 60 ))s"
  return $rc
}
workers=${OMEGA_TEST_WORKERS:-2}
rc1=0; rc2=0; rc3=0
run_pass "parallel, -n $workers" -m "not serial" -n "$workers" "$@" || rc1=$?
# The serial tests on OMEGA_SERIAL_WORKERS workers (default 1: one process, as before; 2 was measured once on a loaded
# machine, with one failure not yet told apart from load: BENCHMARKS.md, "make test wall time")
serial_workers=${OMEGA_SERIAL_WORKERS:-1}
serial_args=()
if [[ $serial_workers -gt 1 ]]; then serial_args=(-n "$serial_workers" --dist loadscope); fi
# --durations: the serial pass is the suite's long pole (issue 45); its slowest tests are printed on every run
run_pass "serial, $serial_workers worker(s)" -m "serial and not alone" --durations=30 "${serial_args[@]}" "$@" || rc2=$?
run_pass "alone" -m alone "$@" || rc3=$?
# Exit 5 is "no tests collected". Without arguments every pass must find tests; with arguments (a path, -k) some
# of them may find none, but not all.
if [[ $rc1 -eq 5 && $rc2 -eq 5 && $rc3 -eq 5 ]] || { [[ $# -eq 0 ]] && [[ $rc1 -eq 5 || $rc2 -eq 5 || $rc3 -eq 5 ]]; }; then
  echo "pytest collected no tests (exit codes: parallel pass $rc1, serial pass $rc2, alone $rc3): that is a failure" >&2
  exit 1
fi
for rc in $rc1 $rc2 $rc3; do if [[ $rc -ne 0 && $rc -ne 5 ]]; then exit "$rc"; fi; done
exit 0
