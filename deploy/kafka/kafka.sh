#!/usr/bin/env bash
# Local single-node Apache Kafka 3.9.1 (KRaft) broker, run straight from Maven Central jars
# because there is no Docker engine on the dev/CI machines.
#
#   deploy/kafka/kafka.sh up | down | status | logs [-f] | acls        one broker (the default)
#   deploy/kafka/kafka.sh up | down | status | logs [-f] --brokers N   a local N-node cluster (2..9)
#
# Env: OMEGA_KAFKA_DIR (runtime dir, default <repo>/.kafka), OMEGA_KAFKA_PORT (9092),
#      OMEGA_KAFKA_CONTROLLER_PORT (9093), OMEGA_KAFKA_LIBS (jar cache outside the work tree),
#      OMEGA_KAFKA_HEAP ("-Xmx1g -Xms256m"), OMEGA_KAFKA_TIMEOUT (readiness, seconds, 90),
#      OMEGA_KAFKA_PARTITIONS (num.partitions, 4).
# Secure mode (opt-in, fixed when the runtime dir is first formatted): OMEGA_KAFKA_SECURITY=sasl gives a
#      SASL_PLAINTEXT client listener (SCRAM-SHA-512), StandardAuthorizer ACLs, no anonymous access.
#      Users (fixed names, passwords from env, dev defaults): admin (super user) OMEGA_KAFKA_ADMIN_PASSWORD,
#      omega-worker OMEGA_KAFKA_WORKER_PASSWORD, omega-producer OMEGA_KAFKA_PRODUCER_PASSWORD.
#      `acls` grants the worker and producer their ACLs for OMEGA_TOPIC_PREFIX ("") and OMEGA_APP_ID
#      (omega-verifier); $OMEGA_KAFKA_DIR/admin.properties is a client config with the admin credentials.
# Cluster mode (--brokers N, plaintext only): N combined broker+controller KRaft nodes forming one controller
#      quorum, node K in $OMEGA_KAFKA_CLUSTER_DIR/node-K (default <repo>/.kafka-cluster) with client port
#      OMEGA_KAFKA_CLUSTER_PORT+K-1 (19092..) and controller port OMEGA_KAFKA_CLUSTER_CONTROLLER_PORT+K-1 (19192..),
#      one cluster id, default replication factor min(N,3) and min.insync.replicas one less (at least 1), heap
#      OMEGA_KAFKA_HEAP (default "-Xmx768m -Xms256m" per node: 3 nodes fit beside the single broker and the
#      workers in 24 GiB). `up` starts the nodes that are down (so it also restarts a killed one) and waits
#      until every node answers and the cluster lists all N brokers; `down` stops them all; `logs` shows node 1's
#      (OMEGA_KAFKA_NODE=K another's). Each node's pid is in node-K/kafka.pid.
# Exit codes: 0 ok, 1 failure, 2 usage, 3 `status` found the broker (or a node of the cluster) down.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
KAFKA_VERSION=3.9.1
HOST=127.0.0.1
usage() { echo "usage: $0 up|down|status|logs [-f]|acls [--brokers N]" >&2; exit 2; }
COMMAND="${1:-}"; shift || true
BROKERS=1 FOLLOW=""
while (($#)); do
  case "$1" in
    --brokers) BROKERS="${2:-}"; shift 2 || usage ;;
    --brokers=*) BROKERS="${1#*=}"; shift ;;
    -f) FOLLOW=-f; shift ;;
    *) usage ;;
  esac
done
[[ "$BROKERS" =~ ^[1-9]$ ]] || { echo "kafka.sh: --brokers takes 1 to 9, not '$BROKERS'" >&2; exit 2; }
LIBS="${OMEGA_KAFKA_LIBS:-$HOME/.cache/omega/kafka-$KAFKA_VERSION/libs}"
TIMEOUT="${OMEGA_KAFKA_TIMEOUT:-90}"
SECURITY="${OMEGA_KAFKA_SECURITY:-plaintext}"
case "$SECURITY" in plaintext | sasl) ;; *) echo "kafka.sh: OMEGA_KAFKA_SECURITY must be plaintext or sasl" >&2; exit 2 ;; esac
ADMIN_USER=admin WORKER_USER=omega-worker PRODUCER_USER=omega-producer
ADMIN_PASSWORD="${OMEGA_KAFKA_ADMIN_PASSWORD:-admin-secret}"
WORKER_PASSWORD="${OMEGA_KAFKA_WORKER_PASSWORD:-worker-secret}"
PRODUCER_PASSWORD="${OMEGA_KAFKA_PRODUCER_PASSWORD:-producer-secret}"
if ((BROKERS == 1)); then
  PORT="${OMEGA_KAFKA_PORT:-9092}"
  CPORT="${OMEGA_KAFKA_CONTROLLER_PORT:-9093}"
  DIR="${OMEGA_KAFKA_DIR:-$ROOT/.kafka}"
  HEAP="${OMEGA_KAFKA_HEAP:--Xmx1g -Xms256m}"
  NODE_ID=1 VOTERS="1@$HOST:$CPORT" REPLICATION=1
else
  [[ "$SECURITY" == plaintext ]] || { echo "kafka.sh: --brokers runs plaintext only" >&2; exit 2; }
  [[ "$COMMAND" != acls ]] || { echo "kafka.sh: acls needs the single secure broker" >&2; exit 2; }
  CLUSTER_DIR="${OMEGA_KAFKA_CLUSTER_DIR:-$ROOT/.kafka-cluster}"
  CLUSTER_PORT="${OMEGA_KAFKA_CLUSTER_PORT:-19092}"
  CLUSTER_CPORT="${OMEGA_KAFKA_CLUSTER_CONTROLLER_PORT:-19192}"
  HEAP="${OMEGA_KAFKA_HEAP:--Xmx768m -Xms256m}"
  REPLICATION=$((BROKERS < 3 ? BROKERS : 3))
  VOTERS="" CLUSTER_BOOTSTRAP=""
  for ((k = 1; k <= BROKERS; k++)); do
    VOTERS+="${VOTERS:+,}$k@$HOST:$((CLUSTER_CPORT + k - 1))"
    CLUSTER_BOOTSTRAP+="${CLUSTER_BOOTSTRAP:+,}$HOST:$((CLUSTER_PORT + k - 1))"
  done
  mkdir -p "$CLUSTER_DIR"
  CLUSTER_DIR="$(cd "$CLUSTER_DIR" && pwd)"
  PORT="$CLUSTER_PORT" CPORT="$CLUSTER_CPORT" DIR="$CLUSTER_DIR/node-1" NODE_ID=1
fi
MIN_ISR=$((REPLICATION > 1 ? REPLICATION - 1 : 1))

# Point every per-node variable at one node (the single broker is node 1 of 1).
use_node() {
  if ((BROKERS > 1)); then
    NODE_ID="$1" PORT=$((CLUSTER_PORT + $1 - 1)) CPORT=$((CLUSTER_CPORT + $1 - 1)) DIR="$CLUSTER_DIR/node-$1"
  fi
  mkdir -p "$DIR/logs"
  DIR="$(cd "$DIR" && pwd)" # absolute, so the pid check can find it on the java command line
  BOOTSTRAP="$HOST:$PORT"
  PIDFILE="$DIR/kafka.pid" LOG="$DIR/logs/server.log" DATA="$DIR/data"
  MODEFILE="$DIR/security-mode" # the mode $DATA was formatted in: SCRAM users live in the metadata log
}
use_node "${OMEGA_KAFKA_NODE:-1}"

log() { echo "kafka.sh: $*" >&2; }
# kill -0 also succeeds on a zombie, which an exited broker stays when nobody reaps it.
alive() { local st; st="$(ps -o stat= -p "$1" 2>/dev/null)" && [[ "$st" != Z* ]]; }

# The stamp holds the pom's hash: a missing stamp means an interrupted download, a different
# hash means the dependency list changed; either way fetch afresh. The lock keeps two
# concurrent `up`s (e.g. a test broker next to the main one) from filling the cache together.
ensure_jars() {
  local want stamp="$LIBS/.complete"
  want="$(sha256sum "$HERE/pom.xml" | cut -d' ' -f1)"
  mkdir -p "$(dirname "$LIBS")"
  exec 9>"$LIBS.lock"
  flock 9
  if [[ "$(cat "$stamp" 2>/dev/null)" != "$want" ]]; then
    log "fetching Kafka $KAFKA_VERSION jars into $LIBS (first run takes a while)"
    rm -rf "$LIBS" "$LIBS.partial"
    if ! mvn -q -B -f "$HERE/pom.xml" dependency:copy-dependencies \
      -DoutputDirectory="$LIBS.partial" -DincludeScope=runtime >"$LIBS.mvn.log" 2>&1; then
      tail -n 40 "$LIBS.mvn.log" >&2; log "jar download failed (full output: $LIBS.mvn.log)"; exit 1
    fi
    mv "$LIBS.partial" "$LIBS"
    echo "$want" >"$stamp"
  fi
  exec 9>&-
}

# A process is our broker only if its command line names our server.properties: pids get
# reused, and other brokers (the main test broker, another checkout) run the same main class.
is_ours() {
  local argv
  mapfile -d '' -t argv 2>/dev/null <"/proc/$1/cmdline" || return 1
  [[ "${argv[*]}" == *"kafka.Kafka $DIR/server.properties"* ]]
}

# The pidfile is only a hint: when it is lost or clobbered, find the broker by command line,
# so `down` never leaves one running behind our back.
broker_pid() {
  local pid p
  pid="$(cat "$PIDFILE" 2>/dev/null)" || pid=""
  if [[ "$pid" =~ ^[0-9]+$ ]] && is_ours "$pid"; then echo "$pid"; return 0; fi
  for p in /proc/[0-9]*; do
    if is_ours "${p#/proc/}"; then echo "${p#/proc/}"; return 0; fi
  done
  return 1
}

port_busy() { (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null; }

# A real AdminClient describeCluster round trip; comparing the cluster id proves the answer
# came from our broker and not from some other one that happens to own the port.
probe() {
  local want got
  want="$(sed -n 's/^cluster.id=//p' "$DATA/meta.properties" 2>/dev/null)"
  got="$(timeout 20 java -Xmx256m -cp "$LIBS/*" -Dlog4j.configuration="file:$DIR/tools-log4j.properties" \
    org.apache.kafka.tools.ClusterTool cluster-id --bootstrap-server "$BOOTSTRAP" \
    --config "$DIR/probe.properties" 2>/dev/null | sed -n 's/^Cluster ID: //p')" || return 1
  [[ -n "$want" && "$got" == "$want" ]]
}

# Secure mode: every listener authenticates, so no connection is ever User:ANONYMOUS.
#  - CLIENT (the bootstrap port): SASL_PLAINTEXT with SCRAM-SHA-512; it is also the inter-broker
#    listener, where the broker itself logs in as the admin super user.
#  - CONTROLLER: SASL_PLAINTEXT with PLAIN and a single static user, admin (KRaft cannot use SCRAM
#    here: the SCRAM credentials live in the metadata log the controller serves).
# StandardAuthorizer with allow.everyone.if.no.acl.found=false: what no ACL allows is denied.
sasl_listener_config() {
  local scram plain
  scram="org.apache.kafka.common.security.scram.ScramLoginModule required"
  plain="org.apache.kafka.common.security.plain.PlainLoginModule required"
  cat <<EOF
listeners=CLIENT://$HOST:$PORT,CONTROLLER://$HOST:$CPORT
advertised.listeners=CLIENT://$HOST:$PORT
inter.broker.listener.name=CLIENT
listener.security.protocol.map=CLIENT:SASL_PLAINTEXT,CONTROLLER:SASL_PLAINTEXT
sasl.enabled.mechanisms=SCRAM-SHA-512
sasl.mechanism.inter.broker.protocol=SCRAM-SHA-512
listener.name.client.sasl.enabled.mechanisms=SCRAM-SHA-512
listener.name.client.scram-sha-512.sasl.jaas.config=$scram username="$ADMIN_USER" password="$ADMIN_PASSWORD";
sasl.mechanism.controller.protocol=PLAIN
listener.name.controller.sasl.enabled.mechanisms=PLAIN
listener.name.controller.plain.sasl.jaas.config=$plain username="$ADMIN_USER" password="$ADMIN_PASSWORD" user_$ADMIN_USER="$ADMIN_PASSWORD";
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
allow.everyone.if.no.acl.found=false
super.users=User:$ADMIN_USER
EOF
}

# Client properties of the admin user, for the probe and `acls` (and operators: --command-config).
admin_client_config() {
  printf '%s\n' "security.protocol=SASL_PLAINTEXT" "sasl.mechanism=SCRAM-SHA-512" \
    "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username=\"$ADMIN_USER\" password=\"$ADMIN_PASSWORD\";"
}

write_config() {
  local f
  rm -f "$DIR/admin.properties"
  for f in server.properties probe.properties; do # they may hold passwords
    rm -f "$DIR/$f"; (umask 077 && touch "$DIR/$f")
  done
  cat >"$DIR/server.properties" <<EOF
# Generated by deploy/kafka/kafka.sh on every \`up\`; edits are overwritten.
process.roles=broker,controller
node.id=$NODE_ID
controller.quorum.voters=$VOTERS
controller.listener.names=CONTROLLER
log.dirs=$DATA
num.partitions=${OMEGA_KAFKA_PARTITIONS:-4}
auto.create.topics.enable=true
default.replication.factor=$REPLICATION
min.insync.replicas=$MIN_ISR
offsets.topic.replication.factor=$REPLICATION
transaction.state.log.replication.factor=$REPLICATION
transaction.state.log.min.isr=$MIN_ISR
group.initial.rebalance.delay.ms=0
EOF
  if [[ "$SECURITY" == sasl ]]; then sasl_listener_config; else cat <<EOF
listeners=PLAINTEXT://$HOST:$PORT,CONTROLLER://$HOST:$CPORT
advertised.listeners=PLAINTEXT://$HOST:$PORT
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
EOF
  fi >>"$DIR/server.properties"
  cat >"$DIR/log4j.properties" <<EOF
log4j.rootLogger=INFO, file
log4j.appender.file=org.apache.log4j.FileAppender
log4j.appender.file.File=$LOG
log4j.appender.file.layout=org.apache.log4j.PatternLayout
log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n
# Per-request and state-change chatter drowns the lines that explain a failed start.
log4j.logger.kafka.request.logger=WARN
log4j.logger.state.change.logger=WARN
log4j.logger.org.apache.kafka.clients=WARN
EOF
  cat >"$DIR/tools-log4j.properties" <<EOF
log4j.rootLogger=ERROR, stderr
log4j.appender.stderr=org.apache.log4j.ConsoleAppender
log4j.appender.stderr.Target=System.err
log4j.appender.stderr.layout=org.apache.log4j.SimpleLayout
EOF
  # Fail each probe fast: the AdminClient otherwise retries for its 60 s default.
  printf 'request.timeout.ms=5000\ndefault.api.timeout.ms=8000\n' >"$DIR/probe.properties"
  if [[ "$SECURITY" == sasl ]]; then
    admin_client_config >>"$DIR/probe.properties"
    (umask 077 && admin_client_config >"$DIR/admin.properties")
  fi
}

format_storage() {
  [[ -f "$DATA/meta.properties" ]] && return 0 # keep data and cluster id across restarts
  local id
  if ((BROKERS > 1)); then id="$(cluster_id)"; else id="$(new_uuid)"; fi
  local -a scram=()
  if [[ "$SECURITY" == sasl ]]; then # SCRAM users are written into the bootstrap metadata
    scram=(--add-scram "SCRAM-SHA-512=[name=$ADMIN_USER,password=$ADMIN_PASSWORD]"
      --add-scram "SCRAM-SHA-512=[name=$WORKER_USER,password=$WORKER_PASSWORD]"
      --add-scram "SCRAM-SHA-512=[name=$PRODUCER_USER,password=$PRODUCER_PASSWORD]")
  fi
  java -cp "$LIBS/*" -Dlog4j.configuration="file:$DIR/tools-log4j.properties" \
    kafka.tools.StorageTool format -t "$id" -c "$DIR/server.properties" "${scram[@]}" >&2
  printf '%s\n%s\n' "$SECURITY" "$(credentials_hash)" >"$MODEFILE"
}

new_uuid() {
  java -cp "$LIBS/*" -Dlog4j.configuration="file:$DIR/tools-log4j.properties" kafka.tools.StorageTool random-uuid
}

# Every node of a cluster is formatted with the same cluster id, made once and kept in the cluster dir.
cluster_id() {
  local file="$CLUSTER_DIR/cluster.id"
  [[ -s "$file" ]] || new_uuid >"$file"
  cat "$file"
}

# The mode the data dir was formatted in (dirs from before the secure mode existed are plaintext).
formatted_mode() { head -n 1 "$MODEFILE" 2>/dev/null || echo plaintext; }
# A hash of the SCRAM passwords, so a restart with other ones fails clearly instead of at the first login.
credentials_hash() {
  [[ "$SECURITY" == sasl ]] || return 0
  printf '%s\0' "$ADMIN_PASSWORD" "$WORKER_PASSWORD" "$PRODUCER_PASSWORD" | sha256sum | cut -d' ' -f1
}

wait_ready() {
  local pid="$1" deadline=$((SECONDS + TIMEOUT))
  while ((SECONDS < deadline)); do
    alive "$pid" || { log "broker process $pid exited during startup"; return 1; }
    probe && return 0
    sleep 1
  done
  log "broker not answering on $BOOTSTRAP after ${TIMEOUT}s"
  return 1
}

# Starts this node unless it runs already; prints its pid (the caller waits for it to answer).
start_node() {
  local pid p
  if pid="$(broker_pid)"; then
    echo "$pid"
    return 0
  fi
  rm -f "$PIDFILE" # stale: its process is gone or is no longer our broker
  if [[ -f "$DATA/meta.properties" && "$(formatted_mode)" != "$SECURITY" ]]; then
    log "$DATA was formatted with OMEGA_KAFKA_SECURITY=$(formatted_mode), not $SECURITY; use another OMEGA_KAFKA_DIR"
    return 1
  fi
  if [[ -f "$DATA/meta.properties" && "$SECURITY" == sasl && "$(sed -n 2p "$MODEFILE")" != "$(credentials_hash)" ]]; then
    log "the OMEGA_KAFKA_*_PASSWORD values differ from those $DATA was formatted with (SCRAM users live in"
    log "its metadata): use the original ones, change them with kafka-configs, or use another OMEGA_KAFKA_DIR"
    return 1
  fi
  for p in "$PORT" "$CPORT"; do
    if port_busy "$p"; then log "port $HOST:$p is already in use"; return 1; fi
  done
  write_config
  format_storage
  # One run per log file, so a failed start's tail shows that start and not the last stop.
  if [[ -f "$LOG" ]]; then mv -f "$LOG" "$LOG.1"; fi
  # setsid: the broker must outlive this shell and the caller's terminal/process group.
  # Without job control setsid does not fork, so $! is the java pid itself.
  # shellcheck disable=SC2086 # HEAP is a list of JVM flags
  setsid nohup java $HEAP -XX:+UseG1GC -XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true \
    -Dlog4j.configuration="file:$DIR/log4j.properties" \
    -cp "$LIBS/*" kafka.Kafka "$DIR/server.properties" \
    >"$DIR/logs/stdout.log" 2>&1 </dev/null &
  pid=$!
  echo "$pid" >"$PIDFILE"
  echo "$pid"
}

# Waits for this node to answer; on failure shows its log and stops it.
await_node() {
  wait_ready "$1" && return 0
  { echo "---- last 50 lines of $LOG ----"; tail -n 50 "$LOG" 2>/dev/null || true
    tail -n 20 "$DIR/logs/stdout.log" 2>/dev/null || true; } >&2
  cmd_down >&2
  return 1
}

cmd_up() {
  local pid
  ensure_jars
  if pid="$(broker_pid)" && probe; then echo "already up (pid $pid)"; echo "bootstrap=$BOOTSTRAP"; return 0; fi
  # A running pid that does not answer yet is most likely another `up` still starting it (or it runs with other
  # ports: then the wait fails and stops it, and the next `up` starts it afresh).
  pid="$(start_node)" || exit 1
  await_node "$pid" || exit 1
  echo "up (pid $pid)"
  echo "bootstrap=$BOOTSTRAP"
}

# The brokers the cluster's metadata lists (registered and unfenced), as seen through node 1.
cluster_brokers() {
  timeout 30 java -Xmx256m -cp "$LIBS/*" -Dlog4j.configuration="file:$DIR/tools-log4j.properties" \
    kafka.admin.BrokerApiVersionsCommand --bootstrap-server "$CLUSTER_BOOTSTRAP" \
    --command-config "$DIR/probe.properties" 2>/dev/null | grep -c ' (id: ' || true
}

# All nodes start together: a quorum of combined nodes elects no controller until a majority runs, so no node
# answers before the others are up. Nodes already running are kept (so `up` also restarts a killed node).
cmd_up_cluster() {
  local k n deadline
  local -a pids=()
  ensure_jars
  for ((k = 1; k <= BROKERS; k++)); do
    pids[k]="$(use_node "$k"; start_node)" || { log "node $k did not start"; cmd_down_cluster >&2; exit 1; }
  done
  for ((k = 1; k <= BROKERS; k++)); do
    (use_node "$k"; await_node "${pids[k]}") || { log "node $k did not answer"; cmd_down_cluster >&2; exit 1; }
  done
  use_node 1
  deadline=$((SECONDS + TIMEOUT))
  until n="$(cluster_brokers)" && ((n == BROKERS)); do
    if ((SECONDS > deadline)); then
      log "the cluster lists ${n:-0} of $BROKERS brokers after ${TIMEOUT}s"; cmd_down_cluster >&2; exit 1
    fi
    sleep 1
  done
  echo "up (pids ${pids[*]})"
  echo "bootstrap=$CLUSTER_BOOTSTRAP"
}

cmd_down_cluster() {
  local k
  for ((k = 1; k <= BROKERS; k++)); do (use_node "$k"; echo "node $k: $(cmd_down)") & done
  wait
}

cmd_status_cluster() {
  local k rc=0 line
  for ((k = 1; k <= BROKERS; k++)); do
    line="$(use_node "$k"; cmd_status)" || rc=$?
    echo "node $k: $line"
  done
  echo "bootstrap=$CLUSTER_BOOTSTRAP"
  return "$rc"
}

cmd_down() {
  local pid i
  if ! pid="$(broker_pid)"; then
    rm -f "$PIDFILE"
    echo "already down"
    return 0
  fi
  kill -TERM "$pid" 2>/dev/null || true
  # A clean shutdown flushes the log and the KRaft metadata; 30 s is ample for one node.
  for ((i = 0; i < 300; i++)); do alive "$pid" || break; sleep 0.1; done
  if alive "$pid"; then
    log "pid $pid ignored SIGTERM for 30s; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    for ((i = 0; i < 100; i++)); do alive "$pid" || break; sleep 0.1; done
  fi
  rm -f "$PIDFILE"
  echo "down (was pid $pid)"
}

cmd_status() {
  local pid
  if ! pid="$(broker_pid)"; then echo "down bootstrap=$BOOTSTRAP"; exit 3; fi
  if [[ -d "$LIBS" ]] && probe; then echo "up (pid $pid) bootstrap=$BOOTSTRAP"; return 0; fi
  echo "unresponsive (pid $pid) bootstrap=$BOOTSTRAP"
  exit 1
}

# ACLs of the two application principals for one deployment (topic prefix + Faust app id); adding an
# ACL that exists is a no-op, so this can run again after every `up`.
#  omega-worker:   Read+Describe+Create on every contract topic (it consumes the inputs and its own
#                  intermediate topics, and `omega worker` creates missing topics), Write on the
#                  outputs; everything on topics and consumer groups prefixed by the app id (Faust's
#                  changelog, repartition and leader topics, its group), and the consumer group of
#                  `omega project` (OMEGA_PROJECTOR_GROUP, omega-projector), which reads the outputs.
#  omega-producer: Write+Describe on the input topics only.
#  Both: IdempotentWrite on the cluster (idempotent producers).
cmd_acls() {
  local prefix="${OMEGA_TOPIC_PREFIX:-}" app="${OMEGA_APP_ID:-omega-verifier}" py t rc=0 pid
  local projector="${OMEGA_PROJECTOR_GROUP:-omega-projector}"
  local -a inputs outputs all in_args=() out_args=() all_args=() pids=()
  [[ "$(formatted_mode)" == sasl ]] || { log "acls needs a broker started with OMEGA_KAFKA_SECURITY=sasl"; exit 1; }
  [[ -f "$DIR/admin.properties" ]] || { log "no $DIR/admin.properties; run up first"; exit 1; }
  ensure_jars
  probe || { log "broker not answering on $BOOTSTRAP"; exit 1; }
  py="$ROOT/.venv/bin/python"; [[ -x "$py" ]] || py=python3
  mapfile -t inputs < <(cd "$ROOT" && "$py" -m streams.topics inputs --prefix "$prefix")
  mapfile -t outputs < <(cd "$ROOT" && "$py" -m streams.topics outputs --prefix "$prefix")
  mapfile -t all < <(cd "$ROOT" && "$py" -m streams.topics all --prefix "$prefix")
  ((${#inputs[@]} && ${#outputs[@]} && ${#all[@]})) || { log "streams.topics printed no topics"; exit 1; }
  for t in "${inputs[@]}"; do in_args+=(--topic "$t"); done
  for t in "${outputs[@]}"; do out_args+=(--topic "$t"); done
  for t in "${all[@]}"; do all_args+=(--topic "$t"); done
  local worker="User:$WORKER_USER" producer="User:$PRODUCER_USER"
  acl() {
    java -Xmx256m -cp "$LIBS/*" -Dlog4j.configuration="file:$DIR/tools-log4j.properties" kafka.admin.AclCommand \
      --bootstrap-server "$BOOTSTRAP" --command-config "$DIR/admin.properties" --add --force "$@" >/dev/null
  }
  # One JVM per resource type and operation set; they run side by side.
  acl --allow-principal "$worker" --operation Read --operation Describe --operation Create "${all_args[@]}" & pids+=($!)
  acl --allow-principal "$worker" --operation Write "${out_args[@]}" & pids+=($!)
  acl --allow-principal "$worker" --resource-pattern-type prefixed --topic "$app" --operation Read \
    --operation Write --operation Create --operation Describe --operation DescribeConfigs & pids+=($!)
  acl --allow-principal "$worker" --resource-pattern-type prefixed --group "$app" --group "$projector" \
    --operation Read --operation Describe & pids+=($!)
  acl --allow-principal "$producer" --operation Write --operation Describe "${in_args[@]}" & pids+=($!)
  acl --allow-principal "$worker" --allow-principal "$producer" --cluster --operation IdempotentWrite & pids+=($!)
  for pid in "${pids[@]}"; do wait "$pid" || rc=1; done
  ((rc == 0)) || { log "adding ACLs failed"; exit 1; }
  echo "acls: $worker reads ${#all[@]} topics, writes ${#outputs[@]}, owns prefix '$app'; $producer writes ${#inputs[@]} inputs"
}

cmd_logs() {
  [[ -f "$LOG" ]] || { log "no log yet at $LOG"; exit 1; }
  if [[ "${1:-}" == "-f" ]]; then exec tail -n 100 -F "$LOG"; fi
  tail -n 100 "$LOG"
}

if ((BROKERS > 1)); then
  case "$COMMAND" in
    up) cmd_up_cluster ;;
    down) cmd_down_cluster ;;
    status) cmd_status_cluster ;;
    logs) cmd_logs "$FOLLOW" ;;
    *) usage ;;
  esac
  exit 0
fi
case "$COMMAND" in
  up) cmd_up ;;
  down) cmd_down ;;
  status) cmd_status ;;
  logs) cmd_logs "$FOLLOW" ;;
  acls) cmd_acls ;;
  *) usage ;;
esac
