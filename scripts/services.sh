#!/usr/bin/env bash
# Makes sure the services the tests need exist and run; safe to run any number of times.
#   - redis-server binary (tests start their own private servers from it)
#   - PostgreSQL on 127.0.0.1:5432 (tests create their own databases)
#   - Redis on 127.0.0.1:6379 (for local development and examples; tests never use it)
set -euo pipefail

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

APT_UPDATED=0
apt_install() {
  if [ "$APT_UPDATED" -eq 0 ]; then
    echo "services: apt-get update"
    $SUDO apt-get update -qq
    APT_UPDATED=1
  fi
  echo "services: apt-get install $*"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq "$@"
}

# --- redis-server binary ---------------------------------------------------------------------
if command -v redis-server >/dev/null 2>&1; then
  echo "services: redis-server present ($(redis-server --version | awk '{print $3}'))"
else
  apt_install redis-server
fi

# --- PostgreSQL on 127.0.0.1:5432 ------------------------------------------------------------
pg_up() { pg_isready -q -h 127.0.0.1 -p 5432 -t 2 2>/dev/null; }
if command -v pg_isready >/dev/null 2>&1 && pg_up; then
  echo "services: PostgreSQL already answers on 127.0.0.1:5432"
else
  PG_FRESH=0
  if ! command -v pg_ctlcluster >/dev/null 2>&1 || [ -z "$(ls /etc/postgresql 2>/dev/null)" ]; then
    apt_install postgresql
    PG_FRESH=1
  fi
  PG_VERSION="$(ls /etc/postgresql | sort -V | tail -n 1)"
  if [ "$PG_FRESH" -eq 1 ]; then
    # The tests connect as postgres over TCP without a password (trust on loopback only).
    HBA="/etc/postgresql/${PG_VERSION}/main/pg_hba.conf"
    echo "services: trust auth for postgres on 127.0.0.1/::1 in ${HBA}"
    $SUDO sed -i -E 's/^(host\s+all\s+all\s+(127\.0\.0\.1\/32|::1\/128)\s+)\S+/\1trust/' "$HBA"
  fi
  echo "services: starting PostgreSQL ${PG_VERSION}/main"
  $SUDO pg_ctlcluster --skip-systemctl-redirect "$PG_VERSION" main start || true
  for _ in $(seq 1 30); do pg_up && break; sleep 1; done
  if pg_up; then
    echo "services: PostgreSQL answers on 127.0.0.1:5432"
  else
    echo "services: PostgreSQL did not come up on 127.0.0.1:5432" >&2
    exit 1
  fi
fi

# --- Redis on 127.0.0.1:6379 -----------------------------------------------------------------
redis_up() { [ "$(redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null)" = "PONG" ]; }
if redis_up; then
  echo "services: Redis already answers on 127.0.0.1:6379"
else
  $SUDO mkdir -p /var/lib/redis /var/log/redis
  echo "services: starting Redis on 127.0.0.1:6379"
  $SUDO redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log
  for _ in $(seq 1 20); do redis_up && break; sleep 0.25; done
  if redis_up; then
    echo "services: Redis answers on 127.0.0.1:6379"
  else
    echo "services: Redis did not come up on 127.0.0.1:6379 (see /var/log/redis/ci.log)" >&2
    exit 1
  fi
fi
