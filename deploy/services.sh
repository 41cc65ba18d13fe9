#!/usr/bin/env bash
# What `make run-scaled` needs on this machine, as Debian packages, idempotently: PostgreSQL and Redis on
# 127.0.0.1 (the `ginsite` role and database, as .ci/services.sh makes them), PgBouncer in front of
# PostgreSQL on 127.0.0.1:6432 (transaction pooling, any database of the server), a second Redis on
# 127.0.0.1:6380 (the channel layer is sharded over both, see docs/scale.md) and nginx (only the binary: the
# site runs its own nginx with its own configuration, see deploy/run_scaled.py). Needs root to install.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
cd "$(dirname "$0")/.."

need=()
command -v pg_ctlcluster >/dev/null 2>&1 || need+=(postgresql)
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
[ -x /usr/sbin/nginx ] || command -v nginx >/dev/null 2>&1 || need+=(nginx)
[ -x /usr/sbin/pgbouncer ] || command -v pgbouncer >/dev/null 2>&1 || need+=(pgbouncer)
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -q
  apt-get install -y -q "${need[@]}"
fi
# Debian starts a system nginx on port 80 and a PgBouncer with its own empty configuration after installing
# them; the site uses neither (its PgBouncer runs with the configuration below).
if command -v systemctl >/dev/null 2>&1; then
  systemctl stop nginx >/dev/null 2>&1 || true
  systemctl stop pgbouncer >/dev/null 2>&1 || true
fi

version=$(ls /usr/lib/postgresql | sort -V | tail -n 1)
if ! pg_lsclusters -h | awk '{print $1" "$2}' | grep -qx "$version main"; then
  pg_createcluster "$version" main
fi
sed -i "s/^#\?listen_addresses.*/listen_addresses = '127.0.0.1'/" "/etc/postgresql/$version/main/postgresql.conf"
pg_ctlcluster "$version" main start 2>/dev/null || true
for _ in $(seq 1 30); do
  pg_isready -h 127.0.0.1 -q && break
  sleep 1
done
pg_isready -h 127.0.0.1
su postgres -c "psql -q -tc \"SELECT 1 FROM pg_roles WHERE rolname='ginsite'\"" | grep -q 1 \
  || su postgres -c "psql -q -c \"CREATE ROLE ginsite LOGIN PASSWORD 'ginsite' CREATEDB\""
su postgres -c "psql -q -tc \"SELECT 1 FROM pg_database WHERE datname='ginsite'\"" | grep -q 1 \
  || su postgres -c "createdb -O ginsite ginsite"

# PgBouncer: loopback only (no Unix socket), session pooling, every database of the local server (the
# tests make their own), the `ginsite` role's password (the same as above); `ginsite` may read its admin
# console (SHOW CLIENTS, SHOW STATS, SHOW POOLS; database `pgbouncer`). A running one reloads the file.
mkdir -p /etc/pgbouncer
cat > /etc/pgbouncer/ginsite-users.txt <<'USERS'
"ginsite" "ginsite"
USERS
cat > /etc/pgbouncer/ginsite.ini <<'INI'
; Written by deploy/services.sh (the site's PgBouncer; edits are overwritten).
[databases]
* = host=127.0.0.1 port=5432

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = 6432
unix_socket_dir =
auth_type = scram-sha-256
auth_file = /etc/pgbouncer/ginsite-users.txt
stats_users = ginsite
; Session pooling: a client keeps its server connection while it is connected, so the statements the site
; has PostgreSQL prepare (planned once per connection: ginsite.settings, docs/scale.md "Prepared statements")
; stay there. A serving process holds one connection per database thread (the moves' and the handshake
; readers': two by default), so the pool needs as many server connections as there are such threads; set
; `pool_mode = transaction` (and DATABASE_POOL_MODE=transaction for the site) where that outgrows PostgreSQL.
pool_mode = session
; Client connections: every daphne and referee keeps one per database thread (CONN_MAX_AGE), cheap here.
max_client_conn = 5000
; Server connections per database and role: what PostgreSQL actually sees, however many processes run.
default_pool_size = 20
reserve_pool_size = 5
reserve_pool_timeout = 2
server_idle_timeout = 60
ignore_startup_parameters = extra_float_digits
pidfile = /run/postgresql/pgbouncer-ginsite.pid
logfile = /var/log/postgresql/pgbouncer-ginsite.log
INI
chown postgres:postgres /etc/pgbouncer/ginsite.ini /etc/pgbouncer/ginsite-users.txt
chmod 640 /etc/pgbouncer/ginsite.ini /etc/pgbouncer/ginsite-users.txt
mkdir -p /run/postgresql /var/log/postgresql
chown postgres:postgres /run/postgresql /var/log/postgresql
pidfile=/run/postgresql/pgbouncer-ginsite.pid
if [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
  kill -HUP "$(cat "$pidfile")"
else
  rm -f "$pidfile"
  (ulimit -n 16384 2>/dev/null || true; pgbouncer -d -u postgres /etc/pgbouncer/ginsite.ini)
fi
for _ in $(seq 1 30); do
  pg_isready -h 127.0.0.1 -p 6432 -q && break
  sleep 0.5
done
pg_isready -h 127.0.0.1 -p 6432

# Two Redis servers: the cache, the sessions and the channel layer's first shard on 6379, the layer's second
# shard on 6380. Nothing is saved to disk (the layer's messages live seconds; the cache can be rebuilt). Each
# also listens on a Unix socket, /run/redis-ginsite/redis-PORT.sock: a command over it costs the serving
# process and Redis less than over loopback TCP (no TCP stack; docs/scale.md), and `make run-scaled` and the
# load test use the sockets when they are there. A server already running without its socket (started
# before this script made one) keeps running as it is: Redis cannot add a socket to a running server, and
# stopping a shared one would cut off whoever uses it (restart it yourself: `redis-cli -p PORT shutdown
# nosave`, then run this script again). Everything else falls back to TCP.
mkdir -p /run/redis-ginsite
for port in 6379 6380; do
  socket=/run/redis-ginsite/redis-$port.sock
  if ! redis-cli -h 127.0.0.1 -p "$port" ping >/dev/null 2>&1; then
    redis-server --daemonize yes --bind 127.0.0.1 --port "$port" --save '' --appendonly no \
      --unixsocket "$socket" --unixsocketperm 770
    for _ in $(seq 1 30); do
      redis-cli -h 127.0.0.1 -p "$port" ping >/dev/null 2>&1 && break
      sleep 0.5
    done
  fi
  redis-cli -h 127.0.0.1 -p "$port" ping >/dev/null
  if [ -S "$socket" ] && redis-cli -s "$socket" ping >/dev/null 2>&1; then
    echo "Redis $port: also on $socket"
  else
    echo "Redis $port: running without its Unix socket (started before it had one): TCP only"
  fi
done
echo "PostgreSQL, PgBouncer (127.0.0.1:6432), Redis (127.0.0.1:6379 and :6380, Unix sockets in /run/redis-ginsite) and nginx are ready."
