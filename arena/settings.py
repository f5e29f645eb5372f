"""Settings for Dive Arena, read from the environment.

Embedded default: SQLite and a filesystem broker under ``VAR_DIR`` (nothing to install).
Scaled out: ``DATABASE_URL`` (PostgreSQL) and ``CELERY_BROKER_URL`` (Redis).
"""

from pathlib import Path

import dj_database_url
from kombu import Exchange, Queue

from arena.env import envbool, envfloat, envint, envstr

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(envstr("ARENA_VAR_DIR", str(BASE_DIR / "var")))

DEBUG = envbool("DEBUG", True)
SECRET_KEY = envstr("SECRET_KEY", "dev-only-insecure-secret-key-change-me" if DEBUG else "")
if not SECRET_KEY:
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off")
ALLOWED_HOSTS = [h for h in envstr("ALLOWED_HOSTS", "127.0.0.1,localhost,testserver").split(",") if h]

# HTTPS. With DEBUG off the session and CSRF cookies are HTTPS-only unless told otherwise;
# redirecting to HTTPS and HSTS are the deployer's choice (or the reverse proxy's), so
# `manage.py check --deploy` lists them until they are set. docs/deploy.md shows the values.
SESSION_COOKIE_SECURE = envbool("SESSION_COOKIE_SECURE", not DEBUG)
CSRF_COOKIE_SECURE = envbool("CSRF_COOKIE_SECURE", not DEBUG)
SECURE_SSL_REDIRECT = envbool("SECURE_SSL_REDIRECT", False)
SECURE_HSTS_SECONDS = envint("SECURE_HSTS_SECONDS", 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = envbool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = envbool("SECURE_HSTS_PRELOAD", False)
if envbool("SECURE_PROXY_SSL_HEADER", False):  # only behind a proxy that sets the header itself
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
CSRF_TRUSTED_ORIGINS = [o for o in envstr("CSRF_TRUSTED_ORIGINS", "").split(",") if o]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "arena.bots",
    "arena.ladders",
    "arena.matches",
    "arena.tournaments",
    "arena.notifications",
    "arena.abtests",
    "arena.runs",  # no models: the Celery tasks and the orchestration over the apps (arena/runs/)
    "arena.web",  # pages: templates' filters (arena/web/templatetags)
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Static files with DEBUG off too (from STATIC_ROOT, filled by collectstatic), compressed and cached.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # After the static files: a page's scripts and styles do not count against its client.
    "arena.web.middleware.OneClientOneShare",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "arena.web.middleware.RefuseNulBytes",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "arena.web.middleware.MethodNotAllowedPage",
]

ROOT_URLCONF = "arena.urls"
WSGI_APPLICATION = "arena.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "builtins": ["arena.web.templatetags.remembered_url"],
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "arena.web.notification_views.unread_notifications",
            ],
        },
    },
]

# Connections are kept for CONN_MAX_AGE seconds and checked before reuse (a connection the server
# dropped is replaced, not used): web requests and worker tasks reuse them (see CELERY_DB_REUSE_MAX).
DATABASES = {
    "default": dj_database_url.parse(
        envstr("DATABASE_URL", f"sqlite:///{VAR_DIR / 'arena.sqlite3'}"), conn_max_age=envint("CONN_MAX_AGE", 60),
        conn_health_checks=True,
    )
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = DEBUG  # DEBUG on: serve static/ as edited, without collectstatic
WHITENOISE_AUTOREFRESH = DEBUG
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/"

# Errors go to stderr whatever DEBUG says (gunicorn's and the worker's log): Django's defaults show a
# failing request's traceback only with DEBUG on and otherwise mail it to ADMINS, so with DEBUG off (as
# `make run` serves) a 500 left no trace. Warnings of the project's own code go there too; the 4xx
# answers ("Not Found: ...") are not errors of the server and stay out.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"stderr": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["stderr"], "level": "WARNING"},
    "loggers": {
        "django": {"handlers": [], "level": "WARNING", "propagate": True},
        "django.request": {"level": "ERROR"},
    },
}

# Mail (password resets): printed on the console unless an SMTP host is set (docs/deploy.md).
EMAIL_HOST = envstr("EMAIL_HOST", "")
EMAIL_BACKEND = envstr("EMAIL_BACKEND", "django.core.mail.backends.smtp.EmailBackend" if EMAIL_HOST
                       else "django.core.mail.backends.console.EmailBackend")
EMAIL_PORT = envint("EMAIL_PORT", 587)
EMAIL_HOST_USER = envstr("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = envstr("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = envbool("EMAIL_USE_TLS", EMAIL_PORT == 587)
EMAIL_USE_SSL = envbool("EMAIL_USE_SSL", EMAIL_PORT == 465)
EMAIL_TIMEOUT = envint("EMAIL_TIMEOUT", 10)
DEFAULT_FROM_EMAIL = envstr("DEFAULT_FROM_EMAIL", "Dive Arena <noreply@localhost>")
# The site's address as people reach it: links in notification e-mails start with it.
ARENA_SITE_URL = envstr("ARENA_SITE_URL", "http://127.0.0.1:8000")
PASSWORD_RESET_TIMEOUT = envint("PASSWORD_RESET_TIMEOUT", 3 * 24 * 3600)

# The cache holds the throttles' counters, so every web process must see the same one: Redis by
# CACHE_URL when there are several machines; else a folder under VAR_DIR, which the processes of
# one machine share. (Never the broker's Redis database: clearing a cache flushes its database.)
CACHE_URL = envstr("CACHE_URL", "")
if CACHE_URL.startswith(("redis://", "rediss://")):
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": CACHE_URL,
                          "KEY_PREFIX": envstr("CACHE_KEY_PREFIX", "arena")}}
elif CACHE_URL in ("", "file://"):
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
                          "LOCATION": str(VAR_DIR / "cache")}}
elif CACHE_URL == "locmem://":
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
else:
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured(f"CACHE_URL={CACHE_URL!r}: use redis://HOST:PORT/DB, file:// or locmem://")

# The client's address for throttles: REMOTE_ADDR, unless the site sits behind this many reverse
# proxies that each append to X-Forwarded-For (then the entry they appended; a client's own
# X-Forwarded-For is never believed). Default 0: no proxy.
TRUSTED_PROXIES = envint("TRUSTED_PROXIES", 0)
# Requests of one client address answered at once, across the web processes (0: no cap); a request
# beyond it gets 429 at once (arena.web.middleware.OneClientOneShare). The count of a client expires
# this many seconds after its last request began (a web process killed mid-request gives nothing back).
CLIENT_MAX_IN_FLIGHT = envint("CLIENT_MAX_IN_FLIGHT", 4)
CLIENT_IN_FLIGHT_TTL = envint("CLIENT_IN_FLIGHT_TTL", 60)

# Celery: Redis in production; the embedded default is kombu's filesystem transport.
_BROKER_DIR = VAR_DIR / "broker"
# kombu warns on every connection of a URL without a host ("Reverting to default"); the
# filesystem transport ignores the host, so name one and keep the run's output quiet.
CELERY_BROKER_URL = envstr("CELERY_BROKER_URL", "filesystem://localhost/")
CELERY_BROKER_TRANSPORT_OPTIONS = (
    {
        "data_folder_in": str(_BROKER_DIR / "queue"),
        "data_folder_out": str(_BROKER_DIR / "queue"),
        "processed_folder": str(_BROKER_DIR / "processed"),
        # Without it kombu keeps its exchange table in ./control of whatever the cwd is.
        "control_folder": str(_BROKER_DIR / "control"),
        "store_processed": False,
        "polling_interval": 0.5,
    }
    if CELERY_BROKER_URL.startswith("filesystem")
    else {}
)
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_IGNORE_RESULT = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_TASK_ALWAYS_EAGER = envbool("CELERY_TASK_ALWAYS_EAGER", False)
# Celery's Django fixup closes the database connection around every task unless told to reuse it;
# arena/celery.py closes only broken or old ones instead (Django's close_old_connections).
CELERY_DB_REUSE_MAX = envint("CELERY_DB_REUSE_MAX", 1000)
# Soft shutdown: a worker told to stop lets running tasks finish for this many seconds, then hands
# its running matches back to the queue. Celery applies it to SIGQUIT, and to SIGTERM with
# REMAP_SIGTERM=SIGQUIT in the worker's environment (docs/deploy.md, "Stopping a worker").
CELERY_WORKER_SOFT_SHUTDOWN_TIMEOUT = float(envint("WORKER_SOFT_SHUTDOWN_TIMEOUT", 3))

PORT = envint("PORT", 8000)

# REST API. Throttle rates are "N/second|minute|hour|day"; the counters live in the cache.
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # Token first: an anonymous request then gets 401 with "WWW-Authenticate: Token".
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_PARSER_CLASSES": [
        "arena.api.parsers.JSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_PAGINATION_CLASS": "arena.api.pagination.StandardPagination",
    "PAGE_SIZE": envint("API_PAGE_SIZE", 25),
    "DEFAULT_SCHEMA_CLASS": "arena.api.schema.ArenaAutoSchema",
    "DEFAULT_THROTTLE_CLASSES": ["arena.api.throttles.AnonymousReadThrottle"],
    "DEFAULT_THROTTLE_RATES": {
        # Anonymous reads of the API per address, in rows: a request counts one per PAGE_SIZE rows it
        # asks (page_size=200 counts 8). arena.api.throttles.AnonymousReadThrottle.
        "anon_reads": envstr("THROTTLE_ANON_READS", "600/minute"),
        "anon_reads_burst": envstr("THROTTLE_ANON_READS_BURST", "16/second"),   # two pages of 200 rows
        "uploads": envstr("THROTTLE_UPLOADS", "30/hour"),
        "challenges": envstr("THROTTLE_CHALLENGES", "60/hour"),
        # Password attempts per client address: /api/auth/token/, the login page and the admin's share it.
        "auth": envstr("THROTTLE_AUTH", "20/minute"),
        "auth_user": envstr("THROTTLE_AUTH_USER", "20/minute"),  # and per username, from any address
        "signup": envstr("THROTTLE_SIGNUP", "10/hour"),  # new accounts per address
        "password_reset": envstr("THROTTLE_PASSWORD_RESET", "5/hour"),  # reset mails asked per address
    },
    "NUM_PROXIES": TRUSTED_PROXIES,
}
# Uploaded files: keep at most the largest upload limit (+1 byte) in memory, never on disk.
FILE_UPLOAD_HANDLERS = ["arena.api.upload_handlers.CappedMemoryUploadHandler"]
DATA_UPLOAD_MAX_NUMBER_FILES = 4  # every form takes one file; this bounds the memory of one request
SPECTACULAR_SETTINGS = {
    "TITLE": "Dive Arena API",
    "DESCRIPTION": "Bots, ladders, matches and replays of the Dive Arena.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Several models have a "status" or a "kind": each choice set gets a name of its own in the schema.
    "ENUM_NAME_OVERRIDES": {
        "MatchStatusEnum": "arena.matches.models.Match.Status",
        "MatchKindEnum": "arena.matches.models.Match.Kind",
        "ABTestStatusEnum": "arena.abtests.models.ABTest.Status",
        "NotificationKindEnum": "arena.notifications.models.Kind",
        "TournamentStatusEnum": "arena.tournaments.models.Tournament.Status",
        "BotVersionStatusEnum": "arena.bots.models.BotVersion.Status",
        "BotVersionKindEnum": "arena.bots.models.BotVersion.Kind",
    },
}

# Matches (arena.matches, arena/runs/tasks.py). The hard limit of one match task must stay below
# the Redis visibility timeout, or a long match is delivered twice (overlapping runs).
MATCH_SOFT_TIME_LIMIT = envint("MATCH_SOFT_TIME_LIMIT", 600)
MATCH_HARD_TIME_LIMIT = envint("MATCH_HARD_TIME_LIMIT", MATCH_SOFT_TIME_LIMIT + 60)
MATCH_STUCK_GRACE = envint("MATCH_STUCK_GRACE", 60)
MATCH_MAX_ATTEMPTS = envint("MATCH_MAX_ATTEMPTS", 3)
# Leases (arena/jobs/leases.py): a running match or smoke test is renewed every HEARTBEAT seconds;
# one not renewed for LEASE seconds lost its worker and is re-queued by the recovery task, which
# runs every RECOVERY_INTERVAL seconds.
# A compact replay's full form (every view of every step, re-simulated) is kept in the cache this
# long after it was first asked for: the viewer and its seeks ask again and again.
REPLAY_FULL_CACHE_SECONDS = envint("REPLAY_FULL_CACHE_SECONDS", 24 * 3600)
MATCH_HEARTBEAT_SECONDS = envint("MATCH_HEARTBEAT_SECONDS", 5)
MATCH_LEASE_SECONDS = envint("MATCH_LEASE_SECONDS", 20)
RECOVERY_INTERVAL = envint("RECOVERY_INTERVAL", 5)
# Luck (arena/runs/luck.py, docs/luck.md): the beat measures unmeasured done matches every
# LUCK_SWEEP_INTERVAL seconds, for at most LUCK_SWEEP_SECONDS a run (about 0.1 s of CPU a match).
# It runs on the tick queue: kept short, so matchmaking and the recovery sweep never wait long.
LUCK_SWEEP_INTERVAL = envint("LUCK_SWEEP_INTERVAL", 10)
LUCK_SWEEP_SECONDS = envint("LUCK_SWEEP_SECONDS", 2)
if not 0 < 2 * MATCH_HEARTBEAT_SECONDS <= MATCH_LEASE_SECONDS:
    from django.core.exceptions import ImproperlyConfigured

    # A live worker must renew at least twice per lease, or a slow beat looks like a dead worker.
    raise ImproperlyConfigured("MATCH_LEASE_SECONDS must be at least twice MATCH_HEARTBEAT_SECONDS (> 0)")
# The outbox (arena/jobs/outbox.py): work whose task message is lost is sent again. LOST_GRACE:
# seconds a message may take from the queue to its claim; RESEND_AFTER/RESEND_MAX: the backoff of
# re-sends while the queue is busy.
OUTBOX_LOST_GRACE = envint("OUTBOX_LOST_GRACE", 5)
OUTBOX_RESEND_AFTER = envint("OUTBOX_RESEND_AFTER", 30)
OUTBOX_RESEND_MAX = envint("OUTBOX_RESEND_MAX", 600)
CHALLENGES_PER_HOUR = envint("CHALLENGES_PER_HOUR", 20)
# A ladder bot's version is paused (it plays no ladder match until a new version passes its smoke
# test) after AUTOPAUSE_STREAK faulted ladder matches in a row, or when more than AUTOPAUSE_RATE of
# its last AUTOPAUSE_WINDOW ladder matches faulted (counted once it played AUTOPAUSE_MIN_MATCHES).
# 0 turns a rule off. docs/writing-a-bot.md, "Faults".
AUTOPAUSE_STREAK = envint("AUTOPAUSE_STREAK", 5)
AUTOPAUSE_WINDOW = envint("AUTOPAUSE_WINDOW", 50)
AUTOPAUSE_RATE = envfloat("AUTOPAUSE_RATE", 0.2)
AUTOPAUSE_MIN_MATCHES = envint("AUTOPAUSE_MIN_MATCHES", 20)
# Leaderboards: a bot with fewer games is marked provisional; the trend is the rating change over
# the last LEADERBOARD_TREND_GAMES games.
LEADERBOARD_PROVISIONAL_GAMES = envint("LEADERBOARD_PROVISIONAL_GAMES", 20)
LEADERBOARD_TREND_GAMES = envint("LEADERBOARD_TREND_GAMES", 20)
# A bot page's charts, recent form and results by opponent are cached until one of its newest
# matches or standings changes, and at most this long (an older match finishing late shows by then).
BOT_PAGE_CACHE_SECONDS = envint("BOT_PAGE_CACHE_SECONDS", 120)
MATCHMAKING_INTERVAL = envint("MATCHMAKING_INTERVAL", 10)
# A/B tests (docs/abtests.md): a user runs at most ABTESTS_AT_ONCE tests at a time and ABTEST_GAMES_PER_DAY
# games of them in any 24 hours. The beat's tick (every ABTEST_INTERVAL seconds) counts finished pairs and
# keeps ABTEST_PAIRS_IN_FLIGHT pairs of each test queued or running, only one while ABTEST_YIELD_QUEUED
# or more ladder, tournament or challenge matches are waiting: A/B games come after those.
ABTESTS_AT_ONCE = envint("ABTESTS_AT_ONCE", 2)
ABTEST_GAMES_PER_DAY = envint("ABTEST_GAMES_PER_DAY", 2000)
ABTEST_INTERVAL = envint("ABTEST_INTERVAL", 3)
ABTEST_PAIRS_IN_FLIGHT = envint("ABTEST_PAIRS_IN_FLIGHT", 2)
ABTEST_YIELD_QUEUED = envint("ABTEST_YIELD_QUEUED", 4)
ABTEST_MAX_GAMES = envint("ABTEST_MAX_GAMES", 4000)
# Seconds between tournament ticks: starting due tournaments, pairing rounds that finished (a round
# also advances as soon as its last game is recorded, so this is the fallback).
TOURNAMENT_INTERVAL = envint("TOURNAMENT_INTERVAL", 10)
MATCHMAKING_RECENT_SECONDS = envint("MATCHMAKING_RECENT_SECONDS", 24 * 3600)
# How often the batch ratings are refitted (a ladder without new results since its last fit is skipped).
BATCH_REFIT_INTERVAL = envint("BATCH_REFIT_INTERVAL", 300)
# A batch rating stays provisional under this many games even when its interval looks narrow.
BATCH_PROVISIONAL_GAMES = envint("BATCH_PROVISIONAL_GAMES", 10)
if CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": envint("CELERY_VISIBILITY_TIMEOUT", max(3600, 2 * MATCH_HARD_TIME_LIMIT)),
        # Restore messages of a dead worker within seconds of the visibility timeout, not ~100 s later.
        "unacked_restore_interval": 5,
        "unacked_restore_throttle": 1,
        # A request that sends a task never hangs on a broker that does not answer (the outbox sends later).
        "socket_connect_timeout": 3,
        "socket_timeout": 10,
    }
    if CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"] <= MATCH_HARD_TIME_LIMIT:
        from django.core.exceptions import ImproperlyConfigured

        raise ImproperlyConfigured("CELERY_VISIBILITY_TIMEOUT must exceed MATCH_HARD_TIME_LIMIT")
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# One queue for the work (matches, smoke tests), one for the scheduler's ticks; a separate name
# isolates installs (or test runs) sharing one Redis. A worker consumes both (no -Q needed): a tick
# waits for a free process, not behind every queued match (a backlog made the recovery sweep, which
# expires after RECOVERY_INTERVAL, miss its turn until the backlog drained).
CELERY_TASK_DEFAULT_QUEUE = envstr("ARENA_QUEUE", "arena")
ARENA_TICK_QUEUE = f"{CELERY_TASK_DEFAULT_QUEUE}-ticks"
# Each bound under its own name (a bare Queue would bind to the default exchange's routing key, both
# queues then under one key).
CELERY_TASK_QUEUES = [Queue(name, Exchange(name, type="direct"), routing_key=name)
                      for name in (CELERY_TASK_DEFAULT_QUEUE, ARENA_TICK_QUEUE)]
CELERY_WORKER_HIJACK_ROOT_LOGGER = False


def _tick(task: str, interval: float) -> dict:
    """A beat entry on the tick queue. A tick that waited in the queue longer than its interval is
    dropped unrun: the next one is due."""
    return {"task": task, "schedule": float(interval),
            "options": {"expires": float(interval), "queue": ARENA_TICK_QUEUE}}


CELERY_BEAT_SCHEDULE = {
    "matchmaking": _tick("arena.matchmaking_tick", MATCHMAKING_INTERVAL),
    "requeue-stuck-matches": _tick("arena.requeue_stuck", RECOVERY_INTERVAL),
    "luck": _tick("arena.luck_sweep", LUCK_SWEEP_INTERVAL),
    "batch-refit": _tick("arena.batch_refit", BATCH_REFIT_INTERVAL),
    "tournaments": _tick("arena.tournaments_tick", TOURNAMENT_INTERVAL),
    "abtests": _tick("arena.abtests_tick", ABTEST_INTERVAL),
}
# Retention (docs/retention.md): challenges older than RETENTION_DAYS lose their replays and seat
# logs (RETENTION_ARCHIVES: and bot versions that can never play again their archives); rating
# snapshots older than RETENTION_SNAPSHOT_DAYS are thinned to the last of each day (each rating
# keeps its first). The beat task is off unless RETENTION_ENABLED; `manage.py arena_prune` shows
# what it would do.
RETENTION_ENABLED = envbool("RETENTION_ENABLED", False)
RETENTION_DAYS = envint("RETENTION_DAYS", 180)
RETENTION_ARCHIVES = envbool("RETENTION_ARCHIVES", False)
RETENTION_SNAPSHOT_DAYS = envint("RETENTION_SNAPSHOT_DAYS", 30)
RETENTION_INTERVAL = envint("RETENTION_INTERVAL", 24 * 3600)
if RETENTION_ENABLED:
    CELERY_BEAT_SCHEDULE["retention"] = _tick("arena.retention_prune", RETENTION_INTERVAL)
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # The web server, the worker and beat write to one SQLite file: wait for the lock, do not fail.
    # IMMEDIATE takes the write lock when a transaction starts (a deferred one that reads, then
    # writes fails at once with "database is locked"); WAL lets readers go on during a write.
    DATABASES["default"].setdefault("OPTIONS", {}).update({
        "timeout": 30, "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    })
