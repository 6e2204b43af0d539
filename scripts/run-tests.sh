#!/usr/bin/env bash
# `make test`: quality gates, then the whole suite against a real broker, which is stopped even on failure.
# Broker order (docs/design.md, "Real parts in tests"): KAFKA_BOOTSTRAP_SERVERS if set; else the local KRaft broker from
# deploy/kafka; else a testcontainers Kafka where a Docker engine answers (tests/conftest.py).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=.venv/bin

echo "== ruff"; $BIN/ruff check omega streams projections tests
echo "== mypy"; $BIN/mypy

started=""
stop_broker() { if [[ -n "$started" ]]; then bash deploy/kafka/kafka.sh down || true; fi; }
trap stop_broker EXIT

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
# A missing broker is a failure in this run, never a skip; so is a PostgreSQL that the projection store
# contract suite cannot start (it runs deploy/postgres/pg.sh itself and stops the server afterwards).
export OMEGA_REQUIRE_BROKER=1
export OMEGA_REQUIRE_POSTGRES=1
# ... and a Schema Registry (Apicurio from Maven Central) that deploy/registry/registry.sh cannot start.
export OMEGA_REQUIRE_REGISTRY=1
# The live page's browser test needs Debian's chromium and chromedriver: installed here when missing, and then a
# missing browser fails that test instead of skipping it.
echo "== chromium"; bash scripts/ensure-chromium.sh && export OMEGA_REQUIRE_BROWSER=1

echo "== pytest"
set +e
$BIN/python -m pytest "$@"
rc=$?
set -e
if [[ $rc -eq 5 ]]; then echo "pytest collected no tests: that is a failure" >&2; exit 1; fi
exit $rc
