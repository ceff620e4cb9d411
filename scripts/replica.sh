#!/usr/bin/env bash
# A streaming read replica of the local PostgreSQL cluster, for tests and for trying
# DATABASE_REPLICA_URL (docs/scaling.md, "Reads on a replica"): a second cluster of the same major
# version on this machine (Debian's pg_createcluster), filled by pg_basebackup -R from the primary,
# which then streams from it as a hot standby.
#
#   scripts/replica.sh start    makes the replica (or reuses the running one), waits until it
#                               streams, and prints postgresql://<user>@127.0.0.1:<port>/ (append
#                               the database name: every database of the primary is there)
#   scripts/replica.sh stop     stops it, keeping its data (start resumes streaming)
#   scripts/replica.sh remove   stops it and deletes the cluster
#
# Run as root (pg tools then run as the postgres user) or as postgres. The primary must accept
# replication connections: wal_level replica or logical, max_wal_senders > 0, and a pg_hba.conf
# line for the `replication` pseudo-database. Run as root, the script adds
# `host replication all <PG_HOST>/32 trust` to the primary's pg_hba.conf when none lets it in, and
# reloads the primary (a test machine's set-up only); anything else it asks for by name.
# Environment: PG_HOST, PG_PORT (127.0.0.1, 5432: the primary), PG_USER (the role in the printed
# URL, the current user), REPLICA_NAME (cluster name, wsa_replica), REPLICA_WAIT_SECONDS (60).
set -euo pipefail
shopt -s inherit_errexit

PG_HOST="${PG_HOST:-127.0.0.1}"
PG_PORT="${PG_PORT:-5432}"
PG_USER="${PG_USER:-$(id -un)}"
NAME="${REPLICA_NAME:-wsa_replica}"
WAIT_SECONDS="${REPLICA_WAIT_SECONDS:-60}"
REUSE_WAIT_SECONDS=$((WAIT_SECONDS < 20 ? WAIT_SECONDS : 20))

say() { echo "replica.sh: $*" >&2; }

# pg tools as the postgres system user (the owner of the clusters' files).
as_postgres() {
  if [ "$(id -un)" = postgres ]; then "$@"; else runuser -u postgres -- "$@"; fi
}

primary_sql() {
  as_postgres psql -X -q -At -h "$PG_HOST" -p "$PG_PORT" -U postgres -d postgres -c "$1"
}

replica_sql() { # replica_sql <port> <sql>
  as_postgres psql -X -q -At -h 127.0.0.1 -p "$1" -U postgres -d postgres -c "$2"
}

ctl() { # ctl <version> start|stop
  pg_ctlcluster --skip-systemctl-redirect "$1" "$NAME" "$2" >&2
}

free_port() {
  node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close() })'
}

major_version() {
  primary_sql 'SHOW server_version_num' | cut -c1-2
}

# Prints "<port> <status>" of the cluster, nothing when it does not exist.
cluster_state() {
  pg_lsclusters --no-header 2>/dev/null | awk -v version="$1" -v name="$NAME" '$1 == version && $2 == name { print $3, $4 }'
}

can_replicate() {
  as_postgres psql -X -q -At "host=$PG_HOST port=$PG_PORT user=postgres replication=true" -c 'IDENTIFY_SYSTEM' >/dev/null 2>&1
}

check_primary() {
  local wal_level senders hba
  wal_level="$(primary_sql 'SHOW wal_level')"
  senders="$(primary_sql 'SHOW max_wal_senders')"
  if [ "$wal_level" = minimal ] || [ "$senders" -eq 0 ]; then
    say "the primary cannot stream: wal_level=$wal_level, max_wal_senders=$senders."
    say "Set wal_level = replica and max_wal_senders = 10 in its postgresql.conf and restart it."
    return 1
  fi
  can_replicate && return 0
  hba="$(primary_sql 'SHOW hba_file')"
  if [ "$(id -u)" -ne 0 ] || [ ! -w "$hba" ]; then
    say "the primary refuses replication connections from $PG_HOST as postgres."
    say "Add to $hba:  host replication all $PG_HOST/32 trust   (or an auth method you use), then reload it."
    return 1
  fi
  say "adding 'host replication all $PG_HOST/32 trust' to $hba and reloading the primary"
  printf '\n# Added by scripts/replica.sh: streaming replication from this machine.\nhost replication all %s/32 trust\n' "$PG_HOST" >>"$hba"
  primary_sql 'SELECT pg_reload_conf()' >/dev/null
  for _ in $(seq 1 20); do
    can_replicate && return 0
    sleep 0.2
  done
  say "the primary still refuses replication connections after the reload; see $hba"
  return 1
}

# True once the replica is a standby whose WAL receiver streams from the primary.
streaming() {
  [ "$(replica_sql "$1" "SELECT pg_is_in_recovery() AND EXISTS (SELECT 1 FROM pg_stat_wal_receiver WHERE status = 'streaming')" 2>/dev/null)" = t ]
}

wait_streaming() { # wait_streaming <port> <seconds>
  local port="$1" tries=$(($2 * 5))
  for _ in $(seq 1 "$tries"); do
    streaming "$port" && return 0
    sleep 0.2
  done
  return 1
}

create() {
  local version="$1" port data
  port="$(free_port)"
  say "creating cluster $version/$NAME on port $port from $PG_HOST:$PG_PORT"
  # The standby must allow at least as many connections, workers and locks as the primary.
  pg_createcluster "$version" "$NAME" --port "$port" \
    -o "max_connections=$(primary_sql 'SHOW max_connections')" \
    -o "max_worker_processes=$(primary_sql 'SHOW max_worker_processes')" \
    -o "max_prepared_transactions=$(primary_sql 'SHOW max_prepared_transactions')" \
    -o "max_locks_per_transaction=$(primary_sql 'SHOW max_locks_per_transaction')" \
    -o "max_wal_senders=$(primary_sql 'SHOW max_wal_senders')" >&2
  data="$(pg_lsclusters --no-header | awk -v version="$version" -v name="$NAME" '$1 == version && $2 == name { print $6 }')"
  # Clients reach the standby as they reach the primary.
  install -o postgres -g postgres -m 640 "$(primary_sql 'SHOW hba_file')" "/etc/postgresql/$version/$NAME/pg_hba.conf"
  # The new cluster's own data is replaced by a copy of the primary's; -R writes standby.signal and
  # primary_conninfo, so that it starts as a standby streaming from the primary.
  find "$data" -mindepth 1 -delete
  as_postgres pg_basebackup -h "$PG_HOST" -p "$PG_PORT" -U postgres -D "$data" -R -X stream --checkpoint=fast >&2
  ctl "$version" start
  echo "$port"
}

start() {
  command -v pg_createcluster >/dev/null || { say "pg_createcluster is missing (Debian's postgresql-common)"; return 1; }
  pg_isready -q -h "$PG_HOST" -p "$PG_PORT" || { say "the primary at $PG_HOST:$PG_PORT does not answer"; return 1; }
  check_primary
  local version state port status
  version="$(major_version)"
  state="$(cluster_state "$version")"
  if [ -n "$state" ]; then
    read -r port status <<<"$state"
    [[ "$status" == online* ]] || ctl "$version" start
    # A standby that can catch up streams within seconds of starting; one that cannot (the primary
    # recycled the WAL it needs while it was stopped) never does.
    if ! wait_streaming "$port" "$REUSE_WAIT_SECONDS"; then
      # Not a standby, or one that can no longer catch up.
      say "cluster $version/$NAME does not stream from the primary; making it again"
      pg_dropcluster "$version" "$NAME" --stop >&2
      port="$(create "$version")"
    fi
  else
    port="$(create "$version")"
  fi
  if ! wait_streaming "$port" "$WAIT_SECONDS"; then
    say "cluster $version/$NAME did not start streaming within ${WAIT_SECONDS} s; its log:"
    tail -n 30 "/var/log/postgresql/postgresql-$version-$NAME.log" >&2 || true
    return 1
  fi
  echo "postgresql://$PG_USER@127.0.0.1:$port/"
}

stop() {
  local version state
  version="$(major_version)"
  state="$(cluster_state "$version")"
  [ -n "$state" ] || { say "no cluster $version/$NAME"; return 0; }
  [[ "$state" == *online* ]] && ctl "$version" stop
  return 0
}

remove() {
  local version
  version="$(major_version)"
  [ -n "$(cluster_state "$version")" ] || { say "no cluster $version/$NAME"; return 0; }
  pg_dropcluster "$version" "$NAME" --stop >&2
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  remove) remove ;;
  *)
    echo "usage: scripts/replica.sh start | stop | remove" >&2
    exit 2
    ;;
esac
