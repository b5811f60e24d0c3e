#!/usr/bin/env bash
# Run a real Neo4j 5.26 LTS Community server for tests, built from Maven
# artifacts (no Docker, no tarball download): an embedded DBMS with Bolt, see
# scripts/neo4j-launcher/.
#
#   scripts/neo4j-local.sh start    # last stdout line: bolt://127.0.0.1:7687
#   scripts/neo4j-local.sh stop     # stop it and delete its database
#   scripts/neo4j-local.sh status   # exit 0 if running, 3 if not
#
# Each start gets a fresh empty database (auth disabled). Settings (env):
#   NEO4J_PORT (7687)  NEO4J_STATE_DIR (/tmp/graphmem-neo4j)
#   NEO4J_PAGECACHE_MB (512)  NEO4J_HEAP (2g)  NEO4J_START_TIMEOUT (120 s)
#   NEO4J_JAVA (java from JAVA_HOME or PATH; needs 17 or 21)
#   NEO4J_JAVA_OPTS (extra JVM flags)
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
LAUNCHER_DIR="$SCRIPT_DIR/neo4j-launcher"
JAR="$LAUNCHER_DIR/target/neo4j-launcher.jar"
LIB_DIR="$LAUNCHER_DIR/target/lib"
# Written only after a complete build, so a half-finished one is redone.
BUILD_STAMP="$LAUNCHER_DIR/target/.build-ok"
MAIN_CLASS=graphmem.neo4jlauncher.Neo4jLauncher

STATE_DIR="${NEO4J_STATE_DIR:-/tmp/graphmem-neo4j}"
PID_FILE="$STATE_DIR/neo4j.pid"
DIR_FILE="$STATE_DIR/neo4j.dir"
URI_FILE="$STATE_DIR/neo4j.uri"
LOCK_FILE="$STATE_DIR/lock"

HOST=127.0.0.1
PORT="${NEO4J_PORT:-7687}"
# As docker-compose.yml: the 100k bench leaves a 277 MB store, which a 256 MB
# page cache (the old default) could not hold while it was written.
PAGECACHE_MB="${NEO4J_PAGECACHE_MB:-512}"
HEAP="${NEO4J_HEAP:-2g}"
TIMEOUT="${NEO4J_START_TIMEOUT:-120}"
if [[ -n "${NEO4J_JAVA:-}" ]]; then
  JAVA="$NEO4J_JAVA"
elif [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/java" ]]; then
  JAVA="$JAVA_HOME/bin/java"
else
  JAVA=java
fi

log() { echo "neo4j-local: $*" >&2; }

# Serialise start/stop so parallel test runs don't launch two servers.
take_lock() {
  mkdir -p "$STATE_DIR"
  if command -v flock >/dev/null 2>&1; then
    exec 9>"$LOCK_FILE"
    flock -w 300 9 || { log "timed out waiting for $LOCK_FILE"; exit 1; }
  fi
}

# The pid of our launcher if it is alive; checks the command line so a
# recycled pid never gets signalled.
running_pid() {
  [[ -f "$PID_FILE" ]] || return 1
  local pid
  pid=$(cat "$PID_FILE" 2>/dev/null || true)
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  if [[ -r "/proc/$pid/cmdline" ]]; then
    tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q "$MAIN_CLASS" || return 1
  fi
  echo "$pid"
}

# True once something on HOST:PORT speaks Bolt: send the Bolt handshake
# (magic + version proposals 5.0-5.4, 4.4) and expect a non-zero version back.
bolt_ping() {
  timeout 3 bash -c '
    exec 3<>"/dev/tcp/$0/$1" || exit 1
    printf "\x60\x60\xb0\x17\x00\x04\x04\x05\x00\x00\x04\x04\x00\x00\x00\x00\x00\x00\x00\x00" >&3
    v=$(head -c 4 <&3 | od -An -tx1 | tr -d " \n")
    [[ ${#v} -eq 8 && $v != 00000000 ]]
  ' "$HOST" "$PORT" 2>/dev/null
}

port_open() {
  timeout 2 bash -c 'exec 3<>"/dev/tcp/$0/$1"' "$HOST" "$PORT" 2>/dev/null
}

# Remove the database folder of the last run; only our own mktemp folders.
remove_db_dir() {
  local dir
  dir=$(cat "$DIR_FILE" 2>/dev/null || true)
  if [[ -n "$dir" && "$(basename "$dir")" == graphmem-neo4j-db.* && -d "$dir" ]]; then
    rm -rf -- "$dir"
  fi
  rm -f "$PID_FILE" "$DIR_FILE" "$URI_FILE"
}

# Build once; rebuild only when the pom or the source changed since.
build_launcher() {
  if [[ -f "$BUILD_STAMP" && -f "$JAR" && -d "$LIB_DIR" ]] &&
     [[ -z "$(find "$LAUNCHER_DIR/pom.xml" "$LAUNCHER_DIR/src" -newer "$BUILD_STAMP" -print -quit)" ]]; then
    return 0
  fi
  log "building launcher (mvn package; the first run downloads Neo4j from Maven)"
  rm -f "$BUILD_STAMP"
  local build_log="$STATE_DIR/build.log"
  # lib/ is wiped so jars of an older Neo4j version never linger on the classpath.
  rm -rf "$LIB_DIR"
  if ! (cd "$LAUNCHER_DIR" && mvn -q -B -Dstyle.color=never package) >"$build_log" 2>&1 9>&-; then
    log "launcher build failed; see $build_log"
    tail -n 40 "$build_log" >&2
    exit 1
  fi
  touch "$BUILD_STAMP"
}

stop_pid() {
  local pid=$1 i
  kill -TERM "$pid" 2>/dev/null || return 0
  # Clean shutdown flushes the store; give it up to 30 s before SIGKILL.
  for ((i = 0; i < 300; i++)); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  log "pid $pid ignored SIGTERM for 30 s; sending SIGKILL"
  kill -KILL "$pid" 2>/dev/null || true
  for ((i = 0; i < 100; i++)); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  log "pid $pid still alive after SIGKILL"
  return 1
}

cmd_start() {
  take_lock
  local pid
  if pid=$(running_pid); then
    cat "$URI_FILE"
    return 0
  fi
  # A crashed earlier run may have left its folder behind.
  remove_db_dir
  launch ""
}

# launch starts the server on the database folder $1, or on a fresh
# temporary folder when $1 is empty, and waits until it answers.
launch() {
  local pid reuse=$1
  if port_open; then
    log "port $HOST:$PORT is already in use by another process; set NEO4J_PORT"
    exit 1
  fi

  command -v "$JAVA" >/dev/null 2>&1 || { log "java not found ($JAVA)"; exit 1; }
  build_launcher

  local db_dir log_file uri started=$SECONDS
  db_dir=$reuse
  [[ -n "$db_dir" ]] || db_dir=$(mktemp -d "${TMPDIR:-/tmp}/graphmem-neo4j-db.XXXXXX")
  log_file="$db_dir/neo4j.log"
  uri="bolt://$HOST:$PORT"
  echo "$db_dir" >"$DIR_FILE"

  # The heap starts at its full size, as Neo4j advises: eight writers at
  # once each hold a transaction of 1,000 facts, and a 1 GB heap grown from
  # 256 MB spent about three times as long in young-collection pauses
  # (docs/benchmarks.md).
  # Java 17 needs these opens for Neo4j's off-heap and Netty internals.
  # shellcheck disable=SC2086 # NEO4J_JAVA_OPTS is a list of flags.
  nohup "$JAVA" \
    "-Xms$HEAP" "-Xmx$HEAP" \
    -XX:+UseG1GC -XX:+ExitOnOutOfMemoryError -XX:-OmitStackTraceInFastThrow \
    --add-opens=java.base/java.nio=ALL-UNNAMED \
    --add-opens=java.base/sun.nio.ch=ALL-UNNAMED \
    --add-opens=java.base/java.io=ALL-UNNAMED \
    --add-opens=java.base/java.lang=ALL-UNNAMED \
    -Dio.netty.tryReflectionSetAccessible=true \
    -Djdk.nio.maxCachedBufferSize=1024 \
    -Dlog4j2.disable.jmx=true \
    ${NEO4J_JAVA_OPTS:-} \
    -cp "$JAR:$LIB_DIR/*" "$MAIN_CLASS" \
    "$db_dir/home" "$HOST" "$PORT" "$PAGECACHE_MB" \
    >"$log_file" 2>&1 </dev/null 9>&- &
  pid=$!
  echo "$pid" >"$PID_FILE"
  echo "$uri" >"$URI_FILE"

  # Poll until the launcher says ready AND Bolt answers a handshake.
  local deadline=$((SECONDS + TIMEOUT))
  while :; do
    if ! kill -0 "$pid" 2>/dev/null; then
      log "Neo4j exited during startup; log tail ($log_file):"
      tail -n 60 "$log_file" >&2 || true
      remove_db_dir
      exit 1
    fi
    if grep -q 'neo4j-launcher: ready' "$log_file" 2>/dev/null && bolt_ping; then
      break
    fi
    if ((SECONDS >= deadline)); then
      log "Neo4j not answering on $uri after ${TIMEOUT}s; log tail ($log_file):"
      tail -n 60 "$log_file" >&2 || true
      tail -n 30 "$db_dir/home/logs/debug.log" >&2 2>/dev/null || true
      stop_pid "$pid" || true
      remove_db_dir
      exit 1
    fi
    sleep 0.2
  done
  log "started pid $pid in $((SECONDS - started))s, database in $db_dir"
  echo "$uri"
}

cmd_stop() {
  take_lock
  local pid
  if pid=$(running_pid); then
    stop_pid "$pid"
    log "stopped pid $pid"
  else
    log "not running"
  fi
  remove_db_dir
}

# cmd_restart stops the server (with SIGKILL when NEO4J_KILL=1, as in a
# crash) and starts it again on the same database: an outage, not a reset.
cmd_restart() {
  take_lock
  local pid dir
  dir=$(cat "$DIR_FILE" 2>/dev/null || true)
  [[ -n "$dir" && -d "$dir" ]] || { log "nothing to restart"; exit 1; }
  if pid=$(running_pid); then
    if [[ "${NEO4J_KILL:-}" == 1 ]]; then
      kill -KILL "$pid" 2>/dev/null || true
      while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
    else
      stop_pid "$pid"
    fi
    log "stopped pid $pid, keeping $dir"
  fi
  rm -f "$PID_FILE"
  if [[ -n "${NEO4J_DOWN_SECONDS:-}" ]]; then
    sleep "$NEO4J_DOWN_SECONDS"
  fi
  launch "$dir"
}

cmd_status() {
  local pid
  if pid=$(running_pid); then
    echo "running pid $pid $(cat "$URI_FILE" 2>/dev/null) database $(cat "$DIR_FILE" 2>/dev/null)"
  else
    echo "not running"
    return 3
  fi
}

case "${1:-}" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  restart) cmd_restart ;;
  status) cmd_status ;;
  *)
    echo "usage: $0 start|stop|restart|status" >&2
    exit 2
    ;;
esac
