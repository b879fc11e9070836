#!/usr/bin/env bash
# Installs the real programs the test suite drives: sshd, MariaDB, PostgreSQL, sysbench, Galera,
# vmstat/iostat, perf, db_bench, tmux. Debian/Ubuntu; uses sudo when not root.
set -euo pipefail
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
  sysbench mariadb-server mariadb-client openssh-server openssh-client sysstat procps \
  postgresql postgresql-contrib rocksdb-tools tmux librsvg2-bin python3-pymysql python3-psycopg \
  gcc libc6-dev linux-perf numactl galera-4 rsync >/dev/null
# Over SSH the shipped clients run the python3 a login shell finds (a host's `python` in the
# inventory names another): on a machine whose shell start-up puts a pyenv shim or the like first,
# that is not Debian's python3 above, so it gets the DB drivers too (a venv of yours is not it).
LOGIN_PY="$(env -i HOME="$HOME" USER="$(id -un)" PATH=/usr/local/bin:/usr/bin:/bin \
  "${SHELL:-/bin/bash}" -lc 'command -v python3' 2>/dev/null | tail -1 || true)"
if [ -n "$LOGIN_PY" ] && ! "$LOGIN_PY" -c 'import pymysql, psycopg' 2>/dev/null; then
  "$LOGIN_PY" -m pip install -q PyMySQL 'psycopg[binary]' \
    || echo "warning: $LOGIN_PY lacks PyMySQL/psycopg: name a Python that has them (hosts.NAME.python)" >&2
fi
# npm: the machine's Node.js brings it; Debian's package only where there is none.
command -v npm >/dev/null || $SUDO apt-get install -y -qq --no-install-recommends npm >/dev/null
# The build tests compile SQLite's amalgamation from the npm package better-sqlite3
# (deps/sqlite3/sqlite3.c): packed once into the test cache, never downloaded per test.
CACHE="${BENCHDECK_TEST_CACHE:-$HOME/.cache/benchdeck-tests}"
mkdir -p "$CACHE"
[ -f "$CACHE/better-sqlite3-12.11.1.tgz" ] || npm pack better-sqlite3@12.11.1 --pack-destination "$CACHE" >/dev/null
echo "test dependencies installed: $(sysbench --version), $(iostat -V | head -1), $(ssh -V 2>&1), $(perf --version)"
# Apache Otava, the change-point test oracle, in its own venv under the test cache (its numpy and
# scipy pins differ from ours): tests/changes/otava_oracle.py also makes it on first use.
python3 "$(dirname "$0")/../tests/changes/otava_oracle.py"
