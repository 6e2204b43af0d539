#!/usr/bin/env bash
# A throwaway local PostgreSQL server for the projections' read models and their contract tests, run from
# the Debian package binaries (/usr/lib/postgresql/*/bin) without touching the system cluster.
#
#   deploy/postgres/pg.sh up | down | status
#
# Env: OMEGA_PG_DIR (runtime dir: data, socket, log; default /tmp/omega-pg), OMEGA_PG_PORT (55432),
#      OMEGA_PG_TIMEOUT (seconds to wait for start and stop, 60).
# Prints the URL on `up` and `status`: postgresql://postgres@127.0.0.1:PORT/omega (trust auth, loopback only).
# PostgreSQL refuses to run as root: as root, initdb and the server run as the `postgres` user, which owns
# the runtime dir. Exit codes: 0 ok, 1 failure, 2 usage, 3 `status` found the server down.
set -euo pipefail

HOST=127.0.0.1
PORT="${OMEGA_PG_PORT:-55432}"
DIR="${OMEGA_PG_DIR:-/tmp/omega-pg}"
TIMEOUT="${OMEGA_PG_TIMEOUT:-60}"
DB=omega
SUPERUSER=postgres
URL="postgresql://$SUPERUSER@$HOST:$PORT/$DB"

log() { echo "pg.sh: $*" >&2; }
die() { log "$*"; exit 1; }

# The bin dir of the newest installed major version (empty when there is none).
newest_bin() {
  local found=(/usr/lib/postgresql/*/bin/pg_ctl)
  [[ -x "${found[0]}" ]] || return 0
  printf '%s\n' "${found[@]%/pg_ctl}" | sort -V | tail -n 1
}

# The binaries; as root, install the package when none is there.
find_bin() {
  local dir
  dir="$(newest_bin)"
  if [[ -z "$dir" ]]; then
    if [[ "$(id -u)" -ne 0 ]]; then
      die "no PostgreSQL binaries under /usr/lib/postgresql/*/bin; install them (apt-get install -y postgresql) as root"
    fi
    log "no PostgreSQL binaries; installing the postgresql package"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
    dir="$(newest_bin)"
    [[ -n "$dir" ]] || die "apt-get installed postgresql but no /usr/lib/postgresql/*/bin appeared"
  fi
  echo "$dir"
}

BIN="$(find_bin)"
DATA="$DIR/data"
LOG="$DIR/server.log"

# Run a server-side command as the owner of the data dir: the `postgres` user when we are root.
as_owner() {
  if [[ "$(id -u)" -eq 0 ]]; then
    getent passwd postgres >/dev/null || die "running as root but there is no 'postgres' user to run the server"
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

prepare_dir() {
  mkdir -p "$DIR"
  if [[ "$(id -u)" -eq 0 ]]; then
    chown postgres: "$DIR"
    chmod 0700 "$DIR"
    runuser -u postgres -- test -w "$DIR" ||
      die "$DIR is not writable by the postgres user (a parent directory is not traversable?); set OMEGA_PG_DIR"
  fi
}

# Two concurrent `up`s (two test runs) would both run initdb or pg_ctl start: serialise them. The lock file
# sits beside the runtime dir, which root hands over to the postgres user.
lock() {
  mkdir -p "$(dirname "$DIR")"
  exec 9>"$DIR.lock"
  flock -w "$TIMEOUT" 9 || die "another pg.sh holds $DIR.lock"
}

running() { [[ -f "$DATA/postmaster.pid" ]] && as_owner "$BIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1; }
ready() { "$BIN/pg_isready" -q -h "$HOST" -p "$PORT" -d postgres -U "$SUPERUSER" -t 2 >/dev/null 2>&1; }
port_busy() { (exec 3<>"/dev/tcp/$HOST/$PORT") 2>/dev/null; }
psql_q() { "$BIN/psql" -X -q -t -A -h "$HOST" -p "$PORT" -U "$SUPERUSER" -d postgres -v ON_ERROR_STOP=1 -c "$1"; }

init_cluster() {
  [[ -f "$DATA/PG_VERSION" ]] && return 0 # keep an existing cluster (and its data) across restarts
  log "initdb $DATA"
  as_owner "$BIN/initdb" -D "$DATA" -U "$SUPERUSER" --auth=trust --encoding=UTF8 --locale=C >"$DIR/initdb.log" 2>&1 ||
    { tail -n 20 "$DIR/initdb.log" >&2; die "initdb failed (full output: $DIR/initdb.log)"; }
  # Loopback TCP only; the socket lives in the runtime dir, so no system directory is needed.
  cat >>"$DATA/postgresql.conf" <<EOF
# added by deploy/postgres/pg.sh
listen_addresses = '$HOST'
port = $PORT
unix_socket_directories = '$DIR'
fsync = off
synchronous_commit = off
full_page_writes = off
EOF
}

cmd_up() {
  lock
  prepare_dir
  if running; then
    ready || die "the server in $DATA runs but does not answer on $HOST:$PORT (another port? see $LOG)"
  else
    if port_busy; then die "port $HOST:$PORT is already in use by another process; set OMEGA_PG_PORT"; fi
    init_cluster
    # -w waits until the server accepts connections; setsid keeps it out of the caller's process group
    # (a test runner's Ctrl-C must not kill it half-way, `down` stops it).
    # 9>&-: the server must not inherit the lock, or it would hold it for its whole life.
    as_owner setsid "$BIN/pg_ctl" -D "$DATA" -l "$LOG" -w -t "$TIMEOUT" -o "-p $PORT" start >/dev/null 9>&- ||
      { tail -n 30 "$LOG" >&2 || true; die "the server did not start (log: $LOG)"; }
  fi
  if [[ "$(psql_q "SELECT 1 FROM pg_database WHERE datname = '$DB'")" != "1" ]]; then
    psql_q "CREATE DATABASE $DB" >/dev/null || die "could not create database $DB"
  fi
  echo "$URL"
}

cmd_down() {
  lock
  if ! running; then
    echo "already down"
    return 0
  fi
  as_owner "$BIN/pg_ctl" -D "$DATA" -m fast -w -t "$TIMEOUT" stop >/dev/null ||
    as_owner "$BIN/pg_ctl" -D "$DATA" -m immediate -w -t "$TIMEOUT" stop >/dev/null ||
    die "the server in $DATA did not stop"
  echo "down"
}

cmd_status() {
  if ! running; then echo "down $URL"; exit 3; fi
  if ready; then echo "up $URL"; return 0; fi
  echo "unresponsive $URL"
  exit 1
}

case "${1:-}" in
  up) cmd_up ;;
  down) cmd_down ;;
  status) cmd_status ;;
  *) echo "usage: $0 up|down|status" >&2; exit 2 ;;
esac
