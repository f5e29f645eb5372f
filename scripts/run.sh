#!/usr/bin/env bash
# One command, one machine: migrate, set up the demo (admin account, ladders, bots), then run
# the web server on 127.0.0.1:$PORT (default 8000), a Celery worker and the beat scheduler
# together. Ctrl-C stops them all. Uses DATABASE_URL / CELERY_BROKER_URL when set, else
# SQLite and the filesystem broker under var/ (nothing to install by hand).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
PORT="${PORT:-8000}"
export PORT
VAR_DIR="${ARENA_VAR_DIR:-var}"
mkdir -p "$VAR_DIR"

$PY manage.py migrate --noinput
# Matches a previous run left running (its worker is gone) go back to the queue.
NODE="arena-local@$(uname -n)"
$PY manage.py arena_recover --worker-prefix "$NODE:"
$PY manage.py arena_demo

pids=()
stop() {
  trap - INT TERM EXIT
  echo "stopping web server, worker and scheduler..."
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  # Give the worker a few seconds for a warm shutdown, then make sure nothing is left.
  for _ in $(seq 1 20); do
    alive=0
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ $alive -eq 0 ] && break
    sleep 0.5
  done
  for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
# Ctrl-C (or TERM) is the normal way to stop: exit 0 then. A service that dies exits non-zero.
# Ctrl-C reaches the services too, so one of them may end the wait below before our trap runs:
# the flag, not the order of events, tells an interruption from a crash.
interrupted=0
trap 'interrupted=1' INT TERM
trap stop EXIT

# Worker and beat in one process (-B): fine for one machine; docs/deploy.md runs them apart.
.venv/bin/celery -A arena worker -B --loglevel "${CELERY_LOGLEVEL:-warning}" \
  --concurrency "${ARENA_WORKER_CONCURRENCY:-2}" --schedule "$VAR_DIR/celerybeat-schedule" \
  --hostname "$NODE" &
pids+=($!)
$PY manage.py runserver "127.0.0.1:$PORT" --noreload &
pids+=($!)
echo "Dive Arena is running on http://127.0.0.1:$PORT/ (worker and scheduler started; Ctrl-C stops all)"
# Stop everything as soon as one of them exits (or on Ctrl-C).
set +e
wait -n "${pids[@]}"
status=$?
stop
if [ "$interrupted" -eq 1 ]; then
  exit 0
fi
echo "a service stopped on its own (exit status $status): stopped the others too" >&2
exit "$status"
