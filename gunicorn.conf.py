"""Gunicorn settings for serving Dive Arena (``gunicorn arena.wsgi:application`` reads this file
from the working directory by itself). Every value can be changed from the environment; see
docs/deploy.md. ``runserver`` is for development only: it serves one request at a time per
thread and opens a new database connection per request.
"""

import multiprocessing
import os


def _int(name: str, default: int) -> int:
    value = os.environ.get(name, "")
    try:
        return int(value) if value else default
    except ValueError:
        raise SystemExit(f"{name} must be a whole number, not {value!r}") from None


# Where to listen: behind a reverse proxy on the same machine, loopback is enough.
bind = os.environ.get("GUNICORN_BIND") or f"{os.environ.get('HOST', '127.0.0.1')}:{_int('PORT', 8000)}"
# Processes: a request is mostly Python (templates, serializers) and holds the GIL, so
# processes, not threads, use the cores; 2 per core plus one covers the time spent waiting on
# PostgreSQL. Each thread keeps one persistent database connection (CONN_MAX_AGE).
workers = _int("WEB_CONCURRENCY", 2 * multiprocessing.cpu_count() + 1)
worker_class = "gthread"   # keep-alive connections, and a second thread to overlap database waits
threads = _int("WEB_THREADS", 2)
timeout = _int("WEB_TIMEOUT", 30)              # a worker silent this long is restarted
graceful_timeout = _int("WEB_GRACEFUL_TIMEOUT", 30)
keepalive = 5
# A request line longer than this is answered 414 by gunicorn itself (in HTML); the API's schema
# documents it (arena/api/schema.py, GUNICORN_REQUEST_LINE). gunicorn's own default.
limit_request_line = 4094
# Restart each worker after this many requests (with jitter, so not all at once): bounds
# the memory any slow leak can take.
max_requests = _int("WEB_MAX_REQUESTS", 2000)
max_requests_jitter = max_requests // 10
preload_app = True          # import Django once; workers fork with it loaded (database connects later)
accesslog = os.environ.get("GUNICORN_ACCESS_LOG") or None   # e.g. "-" for stdout
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOG_LEVEL", "info")
# Behind a proxy, trust its X-Forwarded-* headers only from these addresses.
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
