"""End to end with real services: PostgreSQL, a Redis broker and a real Celery worker process.

An upload over the API is smoke-tested by the worker, matchmaking (the worker's beat) puts it into ladder
matches, the worker plays them in the sandbox, and its rating and the API's leaderboard move.
Runs when the suite is on PostgreSQL and Redis answers (``make test`` arranges both).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from django.db import connection
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from arena.bots.models import Bot, BotVersion
from arena.ladders.models import Rating
from arena.ladders.services import ladder_create
from arena.matches.models import Match, MatchGroup
from arena.runs.smoke import bot_builtin_ensure
from tests.factories import SIMPLE_BOT, SLOW_BOT, py_upload

ROOT = Path(__file__).resolve().parents[2]
REDIS_URL = os.environ.get("ARENA_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


def redis_answers(url: str) -> bool:
    import redis

    try:
        return bool(redis.Redis.from_url(url, socket_connect_timeout=1).ping())
    except redis.RedisError:
        return False


def wait_for(predicate, timeout: float, what: str, worker: subprocess.Popen):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        if worker.poll() is not None:
            pytest.fail(f"the worker exited ({worker.returncode}) while waiting for {what}")
        time.sleep(0.5)
    pytest.fail(f"timed out after {timeout:.0f}s waiting for {what}")


@pytest.fixture
def redis_celery_app():
    """Point this process's Celery app at Redis and a queue of its own; restore afterwards."""
    if not redis_answers(REDIS_URL):
        pytest.skip(f"Redis does not answer at {REDIS_URL}")
    from arena.celery import app

    queue = f"e2e-{uuid.uuid4().hex[:8]}"
    saved = {k: app.conf[k] for k in ("broker_url", "broker_transport_options", "task_default_queue")}
    app.conf.update(broker_url=REDIS_URL, task_default_queue=queue,
                    broker_transport_options={"visibility_timeout": 3600})
    app._pool = None
    app.amqp._producer_pool = None
    yield queue
    import redis

    redis.Redis.from_url(REDIS_URL).delete(queue)  # leave no messages of this run behind
    app.conf.update(saved)
    app._pool = None
    app.amqp._producer_pool = None


@pytest.fixture
def worker(transactional_db, redis_celery_app, tmp_path):
    """A real ``celery worker -B`` process on the test database and the Redis queue."""
    if connection.vendor != "postgresql":
        pytest.skip("the end-to-end test runs on PostgreSQL (set DATABASE_URL; make test does)")
    db = connection.settings_dict
    env = dict(os.environ)
    env.update({
        "DATABASE_URL": f"postgres://{db['USER']}:{db['PASSWORD'] or ''}@{db['HOST'] or '127.0.0.1'}:"
                        f"{db['PORT'] or 5432}/{db['NAME']}",
        "CELERY_BROKER_URL": REDIS_URL, "ARENA_QUEUE": redis_celery_app, "MATCHMAKING_INTERVAL": "2",
        "ARENA_VAR_DIR": str(tmp_path), "DJANGO_SETTINGS_MODULE": "arena.settings",
    })
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "arena", "worker", "-B", "--concurrency", "2",
         "--loglevel", "info", "--schedule", str(tmp_path / "beat"), "--hostname", f"{redis_celery_app}@%h"],
        cwd=ROOT, env=env, stdout=open(tmp_path / "worker.log", "w"), stderr=subprocess.STDOUT)
    try:
        yield process
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log = (tmp_path / "worker.log").read_text()
        print(log[-4000:])
        connection.close()


@pytest.mark.slow
def test_an_uploaded_bot_is_validated_plays_ladder_matches_and_moves_up_the_leaderboard(
        worker, owner, staff, game_id):
    ladder = ladder_create(slug="e2e", name="E2E", game=game_id, seat_count=2, queue_size=2)
    for name in ("random", "heuristic"):
        bot_builtin_ensure(owner=staff, game=game_id, builtin=name)
    token = Token.objects.create(user=owner)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    response = api.post("/api/bots/", {"name": "e2e-upload", "game": game_id, "file": py_upload(SIMPLE_BOT)},
                        format="multipart")
    assert response.status_code == 201, response.content
    bot = Bot.objects.get(pk=response.json()["id"])
    version = bot.versions.get()

    status = wait_for(lambda: BotVersion.objects.get(pk=version.pk).status != "pending" and
                      BotVersion.objects.get(pk=version.pk).status, 120, "the smoke test", worker)
    assert status == "ready", BotVersion.objects.get(pk=version.pk).validation_log
    bot.refresh_from_db()
    assert bot.active_version_id == version.pk

    def played():
        rating = Rating.objects.filter(ladder=ladder, bot=bot).first()
        # A group it splits evenly (one win each) leaves its Elo where it was: wait for one that moves it.
        return rating if rating and rating.games >= 2 and rating.elo != ladder.initial_rating else None

    rating = wait_for(played, 180, "rated ladder matches of the upload that move its Elo", worker)
    done = Match.objects.filter(ladder=ladder, status="done", seats__bot_version=version)
    assert done.count() >= 2
    node = worker.args[-1].split("@")[0]
    assert all(m.replay and m.worker.startswith(f"{node}@") for m in done)  # played by that worker
    assert rating.elo != ladder.initial_rating
    # The ladder plays rotation groups of two games (one seed, both seat orders), rated once each.
    assert all(m.group_id is not None for m in done)
    assert rating.bot.rating_changes.filter(ladder=ladder).count() >= 1
    assert all(g.rated_at is not None for g in MatchGroup.objects.filter(matches__in=done).distinct()
               if not g.matches.exclude(status="done").exists())
    board = APIClient().get(f"/api/ladders/{ladder.slug}/leaderboard/").json()["results"]
    row = next(r for r in board if r["bot_name"] == "e2e-upload")
    assert row["games"] >= 2 and row["elo"] != ladder.initial_rating and row["version"] == 1
    assert sum(r["games"] for r in board) >= 2 * 2  # two seats a match


@pytest.mark.slow
def test_a_match_whose_worker_process_is_killed_comes_back_and_is_recorded_once(worker, owner, staff, game_id):
    from arena.bots.services import bot_create
    from arena.matches.services import challenge_create
    from arena.runs.smoke import bot_version_record_smoke_test
    from tests.factories import clean_outcome

    assert SLOW_BOT != SIMPLE_BOT
    slow = bot_create(owner=owner, name="slowpoke", game=game_id, upload=py_upload(SLOW_BOT))
    bot_version_record_smoke_test(version_id=slow.versions.get().pk, outcome=clean_outcome(game_id, 2))
    slow.refresh_from_db()
    opponent = bot_builtin_ensure(owner=staff, game=game_id, builtin="random")
    match = challenge_create(by=owner, bot=slow, opponents=[opponent], seed=4)

    running = wait_for(lambda: Match.objects.filter(pk=match.pk, status="running").first(), 60,
                       "the match to start", worker)
    time.sleep(0.5)
    pid = int(running.worker.rsplit(":", 1)[1])
    os.kill(pid, signal.SIGKILL)  # the pool process dies mid-match; the worker itself lives on
    killed_at = time.monotonic()

    done = wait_for(lambda: Match.objects.filter(pk=match.pk, status="done").first(), 120,
                    "the match to come back and finish", worker)
    print(f"killed worker process came back: match done {time.monotonic() - killed_at:.1f}s after the kill")
    assert done.attempts == 2 and int(done.worker.rsplit(":", 1)[1]) != pid
    assert done.seats.filter(rank__isnull=False).count() == 2
