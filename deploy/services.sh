#!/usr/bin/env bash
# What `make run-scaled` needs on this machine, as Debian packages, idempotently: PostgreSQL and Redis on
# 127.0.0.1 (the `ginsite` role and database, as .ci/services.sh makes them) and nginx (only the binary: the
# site runs its own nginx with its own configuration, see deploy/run_scaled.py). Needs root to install.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
cd "$(dirname "$0")/.."

need=()
command -v pg_ctlcluster >/dev/null 2>&1 || need+=(postgresql)
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
[ -x /usr/sbin/nginx ] || command -v nginx >/dev/null 2>&1 || need+=(nginx)
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -q
  apt-get install -y -q "${need[@]}"
fi
# Debian starts a system nginx on port 80 after installing it; the site does not use it.
if command -v systemctl >/dev/null 2>&1; then systemctl stop nginx >/dev/null 2>&1 || true; fi

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

if ! redis-cli -h 127.0.0.1 ping >/dev/null 2>&1; then
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save '' --appendonly no
  for _ in $(seq 1 30); do
    redis-cli -h 127.0.0.1 ping >/dev/null 2>&1 && break
    sleep 0.5
  done
fi
redis-cli -h 127.0.0.1 ping >/dev/null
echo "PostgreSQL, Redis and nginx are ready."
