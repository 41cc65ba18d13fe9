#!/usr/bin/env bash
# CI's machine: what the tests need beyond the site's own services — Chromium (browser tests) and gettext
# (compilemessages) — then PostgreSQL, PgBouncer, two Redis servers and nginx as `make run-scaled` starts them
# (deploy/services.sh: loopback only, the `ginsite` role and database; the scale-out test runs through
# PgBouncer with the channel layer sharded over both Redis servers). Idempotent. Prints the URLs to use.
# Needs root (as on CI).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
cd "$(dirname "$0")/.."

need=()
[ -x /usr/bin/chromium ] || need+=(chromium)
command -v msgfmt >/dev/null 2>&1 || need+=(gettext)
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -q
  apt-get install -y -q "${need[@]}"
fi

bash deploy/services.sh

echo "DATABASE_URL=postgres://ginsite:ginsite@127.0.0.1:5432/ginsite"
echo "REDIS_URL=redis://127.0.0.1:6379/0"
echo "PgBouncer (session pooling): postgres://ginsite:ginsite@127.0.0.1:6432/ginsite"
echo "REDIS_CHANNEL_URLS=redis://127.0.0.1:6379/0,redis://127.0.0.1:6380/0"
