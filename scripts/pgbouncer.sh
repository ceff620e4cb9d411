#!/usr/bin/env bash
# A throw-away PgBouncer in transaction pooling mode in front of the local PostgreSQL, for tests
# (Debian's pgbouncer package; .ci/run installs it when missing).
#
#   scripts/pgbouncer.sh start   prints the directory it runs from; <dir>/url holds
#                                postgresql://<user>@127.0.0.1:<free port>/ (append a database name)
#   scripts/pgbouncer.sh stop <dir>
#
# Every database of the server is served under its own name (the `*` entry), as the server's user
# PG_USER, without a password (auth_type = any: a local test only, never a deployment). Environment:
# PG_HOST, PG_PORT, PG_USER (127.0.0.1, 5432, the current user; also the admin console's user:
# DISABLE, KILL, ENABLE, RESUME on the `pgbouncer` database), PGBOUNCER_POOL_SIZE (server
# connections per database and user, 8), PGBOUNCER (the program; Debian's by default) and
# PGBOUNCER_MAX_PREPARED_STATEMENTS (PgBouncer 1.21 or later: the named statements it keeps per
# server connection; unset, the setting is left out, as 1.18 does not know it).
set -euo pipefail

PG_HOST="${PG_HOST:-127.0.0.1}"
PG_PORT="${PG_PORT:-5432}"
PG_USER="${PG_USER:-$(id -un)}"
POOL_SIZE="${PGBOUNCER_POOL_SIZE:-8}"
MAX_PREPARED_STATEMENTS="${PGBOUNCER_MAX_PREPARED_STATEMENTS:-0}"

free_port() {
  node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close() })'
}

start() {
  local program dir port
  program="${PGBOUNCER:-$(command -v pgbouncer || echo /usr/sbin/pgbouncer)}"
  [ -x "$program" ] || { echo "pgbouncer is not installed (apt-get install pgbouncer)" >&2; return 1; }
  dir="$(mktemp -d -t wsa-pgbouncer.XXXXXX)"
  port="$(free_port)"
  cat >"$dir/pgbouncer.ini" <<EOF
[databases]
* = host=$PG_HOST port=$PG_PORT user=$PG_USER

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $port
unix_socket_dir =
auth_type = any
admin_users = $PG_USER
pool_mode = transaction
default_pool_size = $POOL_SIZE
max_client_conn = 1000
server_reset_query =
logfile = $dir/pgbouncer.log
pidfile = $dir/pgbouncer.pid
EOF
  if [ "$MAX_PREPARED_STATEMENTS" != 0 ]; then
    echo "max_prepared_statements = $MAX_PREPARED_STATEMENTS" >>"$dir/pgbouncer.ini"
  fi
  # PgBouncer refuses to run as root; it then runs as the postgres system user, which must be
  # able to write its log and pid file.
  local run_as=()
  if [ "$(id -u)" -eq 0 ]; then
    run_as=(-u postgres)
    chown -R postgres "$dir"
  fi
  "$program" -d "${run_as[@]}" "$dir/pgbouncer.ini" >/dev/null
  for _ in $(seq 1 50); do
    if pg_isready -q -h 127.0.0.1 -p "$port" -d pgbouncer; then
      echo "postgresql://$PG_USER@127.0.0.1:$port/" >"$dir/url"
      echo "$dir"
      return 0
    fi
    sleep 0.1
  done
  echo "pgbouncer did not start; its log:" >&2
  cat "$dir/pgbouncer.log" >&2 || true
  stop "$dir"
  return 1
}

stop() {
  local dir="${1:?usage: scripts/pgbouncer.sh stop <dir>}"
  [ -f "$dir/pgbouncer.ini" ] || { echo "$dir is not a directory this script started" >&2; return 1; }
  if [ -s "$dir/pgbouncer.pid" ]; then
    local pid
    pid="$(cat "$dir/pgbouncer.pid")"
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
  fi
  rm -rf "$dir"
}

case "${1:-}" in
  start) start ;;
  stop) stop "${2:-}" ;;
  *)
    echo "usage: scripts/pgbouncer.sh start | stop <dir>" >&2
    exit 2
    ;;
esac
