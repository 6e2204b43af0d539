#!/usr/bin/env bash
# A local Apicurio Registry 3.0.9 (Confluent-compatible API at /apis/ccompat/v7), run from the Maven Central
# distribution because there is no Docker engine on the dev/CI machines. Storage is in memory: every start is an
# empty registry, so schema ids are not stable across restarts (tests never assume them).
#
#   deploy/registry/registry.sh up | down | status
#
# Env: OMEGA_REGISTRY_PORT (18081), OMEGA_REGISTRY_DIR (state dir: pid file, log; default <repo>/.registry),
#      OMEGA_REGISTRY_HOME (the unpacked distribution, a cache outside the work tree;
#      default ~/.cache/omega/apicurio-registry-3.0.9), OMEGA_REGISTRY_TIMEOUT (start and stop, seconds, 60).
# Prints the Confluent API URL on `up` and `status`: url=http://127.0.0.1:PORT/apis/ccompat/v7
# Exit codes: 0 ok, 1 failure (also: the download's sha256 is not the pinned one), 2 usage, 3 `status` found it down.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
VERSION=3.0.9
ARTIFACT="io.apicurio:apicurio-registry-app:$VERSION:tar.gz:all"
TARBALL="apicurio-registry-app-$VERSION-all.tar.gz"
RUNNER="apicurio-registry-app-$VERSION-runner.jar"
SHA256=2b28181501a20cbf6efcd77f9b7153908fc01f3d3a7c32024c0bd9e1b04c8a43
HOST=127.0.0.1
PORT="${OMEGA_REGISTRY_PORT:-18081}"
DIR="${OMEGA_REGISTRY_DIR:-$ROOT/.registry}"
DIST="${OMEGA_REGISTRY_HOME:-$HOME/.cache/omega/apicurio-registry-$VERSION}"
TIMEOUT="${OMEGA_REGISTRY_TIMEOUT:-60}"
API_PATH=/apis/ccompat/v7
URL="http://$HOST:$PORT$API_PATH"

log() { echo "registry.sh: $*" >&2; }
die() { log "$*"; exit 1; }
usage() { echo "usage: $0 up|down|status" >&2; exit 2; }

[[ "$PORT" =~ ^[0-9]+$ ]] && ((PORT > 0 && PORT < 65536)) || { log "OMEGA_REGISTRY_PORT must be a port number, not '$PORT'"; exit 2; }
mkdir -p "$DIR"
DIR="$(cd "$DIR" && pwd)" # absolute: it marks our process on the java command line
PIDFILE="$DIR/registry.pid" LOG="$DIR/registry.log"

# kill -0 also succeeds on a zombie, which an exited server stays when nobody reaps it.
alive() { local st; st="$(ps -o stat= -p "$1" 2>/dev/null)" && [[ "$st" != Z* ]]; }

# The distribution, fetched and unpacked once. The stamp holds the checked digest: a missing stamp means an
# interrupted fetch, so it starts afresh. The lock keeps two concurrent `up`s from filling the cache together.
ensure_dist() {
  local stamp="$DIST/.complete" work="$DIST.partial" got
  mkdir -p "$(dirname "$DIST")"
  exec 8>"$DIST.lock"
  flock -w 600 8 || die "another registry.sh holds $DIST.lock"
  if [[ "$(cat "$stamp" 2>/dev/null)" != "$SHA256" ]]; then
    command -v mvn >/dev/null || die "mvn is needed to fetch $ARTIFACT from Maven Central"
    log "fetching Apicurio Registry $VERSION into $DIST (first run only)"
    rm -rf "$DIST" "$work"
    mkdir -p "$work/download"
    # the 2.8 plugin: the 3.x dependency plugin needs a parent POM that is not served
    if ! mvn -B -q org.apache.maven.plugins:maven-dependency-plugin:2.8:copy -Dartifact="$ARTIFACT" \
      -DoutputDirectory="$work/download" >"$work/mvn.log" 2>&1; then
      tail -n 40 "$work/mvn.log" >&2; die "the download failed (full output: $work/mvn.log)"
    fi
    [[ -f "$work/download/$TARBALL" ]] || die "mvn wrote no $TARBALL into $work/download"
    got="$(sha256sum "$work/download/$TARBALL" | cut -d' ' -f1)"
    if [[ "$got" != "$SHA256" ]]; then
      # the bad file may sit in the local Maven repository too, where mvn would find it again
      die "sha256 mismatch for $TARBALL: expected $SHA256, got $got (not unpacked; remove" \
        "~/.m2/repository/io/apicurio/apicurio-registry-app/$VERSION and retry)"
    fi
    mkdir -p "$work/dist"
    tar -xzf "$work/download/$TARBALL" -C "$work/dist" || die "could not unpack $TARBALL"
    [[ -f "$work/dist/$RUNNER" ]] || die "$TARBALL holds no $RUNNER"
    mv "$work/dist" "$DIST"
    rm -rf "$work"
    echo "$SHA256" >"$stamp"
  fi
  exec 8>&-
}

# A process is our registry only if its command line names our state dir: pids get reused, and another
# registry (another checkout, another port) runs the same jar.
is_ours() {
  local argv
  mapfile -d '' -t argv 2>/dev/null <"/proc/$1/cmdline" || return 1
  [[ "${argv[*]}" == *"-Domega.registry.dir=$DIR "*"$RUNNER"* ]]
}

# The pid file is only a hint: when it is lost, find the server by its command line, so `down` never leaves one
# running behind our back.
server_pid() {
  local pid p
  pid="$(cat "$PIDFILE" 2>/dev/null)" || pid=""
  if [[ "$pid" =~ ^[0-9]+$ ]] && is_ours "$pid"; then echo "$pid"; return 0; fi
  for p in /proc/[0-9]*; do
    if is_ours "${p#/proc/}"; then echo "${p#/proc/}"; return 0; fi
  done
  return 1
}

port_busy() { (exec 3<>"/dev/tcp/$HOST/$PORT") 2>/dev/null; }

# The subjects listing answers 200 once the Confluent API is served (bash's /dev/tcp: no curl needed).
probe() {
  (
    exec 3<>"/dev/tcp/$HOST/$PORT" || exit 1
    printf 'GET %s/subjects HTTP/1.0\r\nHost: %s:%s\r\nAccept: application/json\r\n\r\n' "$API_PATH" "$HOST" "$PORT" >&3
    IFS= read -r -t 5 line <&3 || exit 1
    [[ "$line" == "HTTP/1."[01]" 200"* ]]
  ) 2>/dev/null
}

wait_ready() {
  local pid="$1" deadline=$((SECONDS + TIMEOUT))
  while ((SECONDS < deadline)); do
    alive "$pid" || { log "registry process $pid exited during startup"; return 1; }
    probe && return 0
    sleep 0.5
  done
  log "registry not answering on $URL after ${TIMEOUT}s"
  return 1
}

lock() {
  exec 9>"$DIR/.lock"
  flock -w "$TIMEOUT" 9 || die "another registry.sh holds $DIR/.lock"
}

cmd_up() {
  local pid
  ensure_dist
  lock
  if pid="$(server_pid)"; then
    # most likely another `up` that has just started it: wait for it as for our own
    wait_ready "$pid" || { cmd_down >&2; die "the registry (pid $pid) did not answer; stopped it (log: $LOG)"; }
    echo "already up (pid $pid)"
    echo "url=$URL"
    return 0
  fi
  rm -f "$PIDFILE" # stale: its process is gone or is no longer our registry
  if port_busy; then die "port $HOST:$PORT is already in use by another process; set OMEGA_REGISTRY_PORT"; fi
  if [[ -f "$LOG" ]]; then mv -f "$LOG" "$LOG.1"; fi # one run per log, so a failed start's tail shows that start
  # setsid: the server outlives this shell and the caller's process group (a test runner's Ctrl-C must not kill it
  # half-way; `down` stops it). Without job control setsid does not fork, so $! is the java pid itself.
  # 8>&- 9>&-: the server must not inherit the locks, or it would hold them for its whole life.
  (cd "$DIR" && exec setsid nohup java -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
    -Domega.registry.dir="$DIR" -Dquarkus.http.host="$HOST" -Dquarkus.http.port="$PORT" \
    -jar "$DIST/$RUNNER" >"$LOG" 2>&1 </dev/null 8>&- 9>&-) &
  pid=$!
  echo "$pid" >"$PIDFILE"
  if ! wait_ready "$pid"; then
    { echo "---- last 40 lines of $LOG ----"; tail -n 40 "$LOG" 2>/dev/null || true; } >&2
    cmd_down >&2
    exit 1
  fi
  echo "up (pid $pid)"
  echo "url=$URL"
}

cmd_down() {
  local pid i
  if ! pid="$(server_pid)"; then
    rm -f "$PIDFILE"
    echo "already down"
    return 0
  fi
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < TIMEOUT * 10; i++)); do alive "$pid" || break; sleep 0.1; done
  if alive "$pid"; then
    log "pid $pid ignored SIGTERM for ${TIMEOUT}s; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    for ((i = 0; i < 100; i++)); do alive "$pid" || break; sleep 0.1; done
  fi
  rm -f "$PIDFILE"
  echo "down (was pid $pid)"
}

cmd_status() {
  local pid
  if ! pid="$(server_pid)"; then echo "down url=$URL"; exit 3; fi
  if probe; then echo "up (pid $pid) url=$URL"; return 0; fi
  echo "unresponsive (pid $pid) url=$URL"
  exit 1
}

case "${1:-}" in
  up) cmd_up ;;
  down) lock; cmd_down ;;
  status) cmd_status ;;
  *) usage ;;
esac
