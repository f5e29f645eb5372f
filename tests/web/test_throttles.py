"""Throttles that hold: login (site, admin, API token), sign-up and reset requests are limited per
client address, and login per username too; X-Forwarded-For counts only behind trusted proxies;
the counters are shared by every web process (Redis when configured)."""

from __future__ import annotations

import http.cookiejar
import os
import re
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from django.test import Client

from arena.throttling import Rate, client_address, throttle_hit
from tests.conftest import start_early_in_a_minute

pytestmark = pytest.mark.usefixtures("one_throttle_window")

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def rates(settings):
    def set_rates(**scopes):
        settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], **scopes}}
    return set_rates


def _login(client: Client, username="alice", password="wrong", path="/accounts/login/", **headers) -> int:
    return client.post(path, {"username": username, "password": password}, **headers).status_code


def test_login_attempts_over_the_rate_are_refused_with_429(owner, rates):
    rates(auth="3/minute")
    client = Client()
    assert [_login(client) for _ in range(4)] == [200, 200, 200, 429]
    refused = client.post("/accounts/login/", {"username": "alice", "password": "correct-horse-battery-staple"})
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0  # even the right password waits
    assert "Too many login attempts" in refused.content.decode()


def test_a_spoofed_x_forwarded_for_does_not_reset_the_count(owner, rates):
    rates(auth="3/minute")
    client = Client()
    codes = [_login(client, HTTP_X_FORWARDED_FOR=f"10.0.0.{i}") for i in range(5)]
    assert codes == [200, 200, 200, 429, 429]


def test_behind_a_trusted_proxy_the_address_it_appended_is_the_client(owner, rates, settings):
    settings.TRUSTED_PROXIES = 1
    rates(auth="2/minute", auth_user="100/minute")
    client = Client()
    # The proxy appends the address it saw; whatever the client put before it is not believed.
    first = [_login(client, HTTP_X_FORWARDED_FOR=f"1.2.3.{i}, 203.0.113.7") for i in range(3)]
    other = _login(client, HTTP_X_FORWARDED_FOR="198.51.100.9")
    assert first == [200, 200, 429] and other == 200


def test_client_address_reads_only_what_trusted_proxies_appended(rf, settings):
    request = rf.get("/", HTTP_X_FORWARDED_FOR="6.6.6.6, 203.0.113.7, 10.0.0.2", REMOTE_ADDR="10.0.0.1")
    settings.TRUSTED_PROXIES = 0
    assert client_address(request) == "10.0.0.1"
    settings.TRUSTED_PROXIES = 2
    assert client_address(request) == "203.0.113.7"
    settings.TRUSTED_PROXIES = 5  # more proxies configured than entries: the leftmost, not a crash
    assert client_address(request) == "6.6.6.6"
    settings.TRUSTED_PROXIES = 1
    assert client_address(rf.get("/", HTTP_X_FORWARDED_FOR="not-an-address", REMOTE_ADDR="10.0.0.1")) == "10.0.0.1"


def test_the_login_page_the_admin_and_the_api_token_share_one_count_per_address(owner, rates):
    rates(auth="4/minute")
    client = Client()
    assert _login(client) == 200
    assert _login(client, path="/admin/login/") == 200
    assert client.post("/api/auth/token/", {"username": "alice", "password": "x"}).status_code == 400
    assert _login(client, path="/admin/login/") == 200
    assert _login(client, path="/admin/login/") == 429
    assert client.post("/api/auth/token/", {"username": "alice", "password": "x"}).status_code == 429
    assert _login(client) == 429


def test_one_username_is_throttled_from_every_address(owner, rates):
    rates(auth="100/minute", auth_user="3/minute")
    codes = [_login(Client(REMOTE_ADDR=f"192.0.2.{i}")) for i in range(4)]
    assert codes == [200, 200, 200, 429]
    assert _login(Client(REMOTE_ADDR="192.0.2.99"), username="bob") == 200


def test_sign_ups_are_throttled_per_address(db, rates):
    rates(signup="2/hour")
    client = Client()
    codes = []
    for i in range(3):
        client.logout()
        codes.append(client.post("/signup/", {"username": f"new{i}", "password1": "long-enough-pass-1",
                                              "password2": "long-enough-pass-1"}).status_code)
    assert codes == [302, 302, 429]
    from django.contrib.auth import get_user_model
    assert get_user_model().objects.filter(username__startswith="new").count() == 2


def test_password_reset_requests_are_throttled_per_address(owner, rates):
    from django.core import mail

    rates(password_reset="2/hour")
    client = Client()
    codes = [client.post("/accounts/password/reset/", {"email": "alice@example.com"}).status_code for _ in range(3)]
    assert codes == [302, 302, 429] and len(mail.outbox) == 2


def test_a_fixed_window_counter_refuses_past_the_limit_and_says_how_long_to_wait(settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"demo": "2/minute"}}
    assert [throttle_hit("demo", "x", now=120.0) for _ in range(2)] == [None, None]
    assert throttle_hit("demo", "x", now=150.0) == 31
    assert throttle_hit("demo", "y", now=150.0) is None
    assert throttle_hit("demo", "x", now=180.5) is None  # the next window
    assert Rate.parse("20/minute") == Rate(20, 60) and Rate.parse("5/h") == Rate(5, 3600)


# --- two web processes, one Redis -----------------------------------------------------------

def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_up(url: str, process, deadline: float) -> None:
    while time.monotonic() < deadline:
        assert process.poll() is None, "the web server exited"
        try:
            urllib.request.urlopen(url, timeout=2)
            return
        except urllib.error.HTTPError:
            return
        except OSError:
            time.sleep(0.2)
    raise AssertionError(f"{url} did not answer")


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_two_web_processes_share_the_counters_through_redis(tmp_path):
    from django.db import connection

    redis_url = os.environ.get("ARENA_TEST_REDIS_URL", "redis://127.0.0.1:6379/8")
    try:
        import redis

        redis.Redis.from_url(redis_url, socket_connect_timeout=1).ping()
    except Exception:
        pytest.fail(f"Redis at {redis_url} is needed (scripts/test.sh starts one)")
    db = connection.settings_dict
    database_url = (f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}" if db["ENGINE"].endswith("postgresql")
                    else f"sqlite:///{db['NAME']}")
    if "memory" in database_url:
        pytest.skip("the test database is in memory: other processes cannot open it")
    env = {**os.environ, "DATABASE_URL": database_url, "CACHE_URL": redis_url,
           "CACHE_KEY_PREFIX": f"throttle-test-{os.getpid()}-{time.time_ns()}", "THROTTLE_AUTH": "3/minute",
           "THROTTLE_AUTH_USER": "100/minute", "DEBUG": "0", "SECRET_KEY": "test-secret-" + "x" * 40,
           "SESSION_COOKIE_SECURE": "0", "CSRF_COOKIE_SECURE": "0", "ARENA_VAR_DIR": str(tmp_path)}
    servers = []
    try:
        for index in range(2):
            port = _free_port()
            own_var = tmp_path / f"var-{index}"  # nothing shared on disk: only Redis joins them
            own_var.mkdir()
            process = subprocess.Popen(
                [str(ROOT / ".venv/bin/gunicorn"), "arena.wsgi:application", "--bind", f"127.0.0.1:{port}",
                 "--workers", "1", "--log-level", "warning"], cwd=ROOT, env={**env, "ARENA_VAR_DIR": str(own_var)},
                stdout=subprocess.DEVNULL, stderr=open(tmp_path / f"web-{port}.log", "w"), start_new_session=True)
            servers.append((port, process))
        deadline = time.monotonic() + 60
        for port, process in servers:
            _wait_up(f"http://127.0.0.1:{port}/accounts/login/", process, deadline)
        jar = http.cookiejar.CookieJar()
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        page = opener.open(f"http://127.0.0.1:{servers[0][0]}/accounts/login/", timeout=10).read().decode()
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
        start_early_in_a_minute(15.0)  # five requests to two servers on a loaded machine
        codes = []
        for attempt in range(5):
            port = servers[attempt % 2][0]
            body = urllib.parse.urlencode({"username": "nobody", "password": f"guess-{attempt}",
                                           "csrfmiddlewaretoken": token}).encode()
            request = urllib.request.Request(f"http://127.0.0.1:{port}/accounts/login/", data=body,
                                             headers={"Referer": f"http://127.0.0.1:{port}/accounts/login/"})
            try:
                codes.append(opener.open(request, timeout=10).status)
            except urllib.error.HTTPError as error:
                codes.append(error.code)
        # Three attempts per minute in all, alternating between the two processes.
        assert codes == [200, 200, 200, 429, 429], [(tmp_path / f).read_text() for f in os.listdir(tmp_path)
                                                    if f.endswith(".log")]
        assert redis.Redis.from_url(redis_url).keys(f"{env['CACHE_KEY_PREFIX']}:*throttle:auth:*")
    finally:
        for _, process in servers:
            try:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(timeout=10)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                os.killpg(process.pid, signal.SIGKILL)


@pytest.mark.parametrize("backend", ["django.core.cache.backends.filebased.FileBasedCache",
                                     "django.core.cache.backends.locmem.LocMemCache"])
def test_parallel_requests_of_one_client_never_get_past_the_in_flight_cap(settings, tmp_path, backend):
    """16 processes (or threads, for a cache in one process's memory) enter at the same moment:
    exactly the cap gets in. Django's incr on these caches is a read and a write; counter_lock
    makes it one step."""
    import multiprocessing
    import threading

    from arena.throttling import InFlight

    settings.CACHES = {"default": {"BACKEND": backend, "LOCATION": str(tmp_path / "cache")}}
    local = backend.endswith("LocMemCache")
    ctx = multiprocessing.get_context("fork")
    start = (threading.Barrier if local else ctx.Barrier)(16)
    got = [] if local else ctx.Queue()

    def one():
        start.wait()
        entered = InFlight("203.0.113.9", limit=4, ttl=60).enter()
        (got.append if local else got.put)(entered)

    workers = [(threading.Thread if local else ctx.Process)(target=one) for _ in range(16)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)
    answers = got if local else [got.get(timeout=10) for _ in range(16)]
    assert sorted(answers).count(True) == 4, answers
