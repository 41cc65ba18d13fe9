#!/usr/bin/env bash
# Installs (Debian packages) nginx, Chromium and gettext, and starts PostgreSQL and Redis on 127.0.0.1, idempotently, and creates the
# `ginsite` role and database. Prints the DATABASE_URL and REDIS_URL to use. Needs root (as on CI).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

need=()
command -v pg_ctlcluster >/dev/null 2>&1 || need+=(postgresql)
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
[ -x /usr/bin/chromium ] || need+=(chromium)
command -v msgfmt >/dev/null 2>&1 || need+=(gettext)
[ -x /usr/sbin/nginx ] || command -v nginx >/dev/null 2>&1 || need+=(nginx)
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -q
  apt-get install -y -q "${need[@]}"
fi
# Debian starts a system nginx on port 80 after installing it; the site runs its own (deploy/run_scaled.py).
if command -v systemctl >/dev/null 2>&1; then systemctl stop nginx >/dev/null 2>&1 || true; fi

# PostgreSQL: the newest installed cluster, listening on loopback only.
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

# Redis on loopback, no persistence needed for a channel layer.
if ! redis-cli -h 127.0.0.1 ping >/dev/null 2>&1; then
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save '' --appendonly no
  for _ in $(seq 1 30); do
    redis-cli -h 127.0.0.1 ping >/dev/null 2>&1 && break
    sleep 0.5
  done
fi
redis-cli -h 127.0.0.1 ping

echo "DATABASE_URL=postgres://ginsite:ginsite@127.0.0.1:5432/ginsite"
echo "REDIS_URL=redis://127.0.0.1:6379/0"
