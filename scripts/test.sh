#!/usr/bin/env bash
# Runs the whole test suite with the services it needs:
# - Redis on 127.0.0.1:6379 (started here, and stopped afterwards, when it is not running), and the
#   redis-server program itself: the fault tests start private brokers they stop and restart;
# - PostgreSQL when DATABASE_URL is set, or when one answers on 127.0.0.1:5432 as user
#   postgres (the suite then runs on it, test database "test_arena"); SQLite otherwise.
# Before pytest, the linters: ruff over the repo (ruff.toml) and mypy over the pure packages
# (mypy.ini); a finding fails the run. SKIP_LINT=1 skips them (while iterating on one test).
# pytest's "no tests ran" (exit 5) counts as a failure. Extra arguments go to pytest.
# The tests run in ARENA_TEST_WORKERS parallel pytest-xdist processes, each with a test database
# and var folder of its own (tests/xdist_workers.py): 3 by default, since on 2 cores many tests
# wait on the servers, workers and sandboxes they start; 0 runs them in this one process, the
# default when the arguments name test files or folders (a few tests start quicker that way).
set -uo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
VAR_DIR="${ARENA_VAR_DIR:-var}"
mkdir -p "$VAR_DIR"

redis_started=""
command -v redis-server >/dev/null 2>&1 || bash scripts/install-system-packages.sh --with-redis
if ! $PY -c "import redis,sys; redis.Redis(host='127.0.0.1', port=6379, socket_connect_timeout=1).ping()" 2>/dev/null; then
  if command -v redis-server >/dev/null 2>&1; then
    redis-server --bind 127.0.0.1 --port 6379 --daemonize yes --save "" --appendonly no \
      --dir "$PWD/$VAR_DIR" --pidfile "$PWD/$VAR_DIR/redis-test.pid" --logfile "$PWD/$VAR_DIR/redis-test.log"
    for _ in $(seq 1 50); do
      $PY -c "import redis; redis.Redis(host='127.0.0.1', port=6379).ping()" 2>/dev/null && break
      sleep 0.1
    done
    redis_started="$PWD/$VAR_DIR/redis-test.pid"
    echo "started Redis on 127.0.0.1:6379 for the tests"
  else
    echo "Redis is not available: the end-to-end test will be skipped" >&2
  fi
fi
stop_redis() {
  if [ -n "$redis_started" ] && [ -f "$redis_started" ]; then
    kill "$(cat "$redis_started")" 2>/dev/null || true
  fi
}
trap stop_redis EXIT

if [ -z "${DATABASE_URL:-}" ]; then
  if $PY -c "import psycopg; psycopg.connect('postgresql://postgres@127.0.0.1:5432/postgres', connect_timeout=2).close()" 2>/dev/null; then
    export DATABASE_URL="postgres://postgres@127.0.0.1:5432/arena"
  fi
fi
echo "database: ${DATABASE_URL:-SQLite (no PostgreSQL reachable on 127.0.0.1:5432)}"

if [ -z "${SKIP_LINT:-}" ]; then
  .venv/bin/ruff check --quiet . || { echo "ruff found problems (.venv/bin/ruff check .): failing" >&2; exit 1; }
  .venv/bin/mypy || { echo "mypy found problems (.venv/bin/mypy, mypy.ini): failing" >&2; exit 1; }
fi

# Bytecode caches (gitignored __pycache__/) spare every test process and every server or worker
# the tests start compiling the project and rewriting the tests' asserts again.
unset PYTHONDONTWRITEBYTECODE
workers="${ARENA_TEST_WORKERS:-}"
if [ -z "$workers" ]; then
  workers=3
  for arg in "$@"; do
    if [[ "$arg" != -* && -e "${arg%%::*}" ]]; then workers=0; break; fi
  done
fi
parallel=()
if [ "$workers" != 0 ]; then
  parallel=(-n "$workers" --dist loadgroup)
fi
$PY -m pytest "${parallel[@]}" "$@"
status=$?
if [ $status -eq 5 ]; then
  echo "no tests ran: failing" >&2
  exit 1
fi
exit $status
