#!/usr/bin/env bash
# One command, one machine: migrate, set up the demo (admin account, ladders, bots), then run
# the web server (gunicorn) on 127.0.0.1:$PORT (default 8000), a Celery worker and the beat
# scheduler together. Ctrl-C stops them all. Uses DATABASE_URL / CELERY_BROKER_URL when set,
# else SQLite and the filesystem broker under var/ (nothing to install by hand).
#
# It runs like production: DEBUG off (the site's own error pages, static files collected and
# served by WhiteNoise), a secret key made once and kept in var/secret-key.txt. DEBUG=1 turns
# Django's debug pages on. The cookies are not HTTPS-only, since this serves plain HTTP on
# 127.0.0.1 (put it behind HTTPS as docs/deploy.md says before serving anyone else).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
PORT="${PORT:-8000}"
export PORT
VAR_DIR="${ARENA_VAR_DIR:-var}"
mkdir -p "$VAR_DIR"

export DEBUG="${DEBUG:-0}"
if [ -z "${SECRET_KEY:-}" ]; then
  if [ ! -s "$VAR_DIR/secret-key.txt" ]; then
    (umask 077 && $PY -c "import secrets; print(secrets.token_urlsafe(50))" > "$VAR_DIR/secret-key.txt")
  fi
  SECRET_KEY="$(cat "$VAR_DIR/secret-key.txt")"
  export SECRET_KEY
fi
export SESSION_COOKIE_SECURE="${SESSION_COOKIE_SECURE:-0}" CSRF_COOKIE_SECURE="${CSRF_COOKIE_SECURE:-0}"

$PY manage.py migrate --noinput
$PY manage.py collectstatic --noinput --verbosity 0
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
# gunicorn reads gunicorn.conf.py; two processes here (the worker needs the cores too), which
# share the login throttles' counters through the cache in var/cache.
.venv/bin/gunicorn arena.wsgi:application --bind "127.0.0.1:$PORT" --workers "${WEB_CONCURRENCY:-2}" \
  --graceful-timeout 5 --log-level "${GUNICORN_LOG_LEVEL:-warning}" &
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
