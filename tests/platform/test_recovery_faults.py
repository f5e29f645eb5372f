"""Faults with real services: PostgreSQL, a private Redis this test may stop and restart, and real
Celery worker processes that are killed. Work is never lost, a match is rated once, and what a
fault interrupted finishes within the recovery goal (60 s; the workers run with 3 s leases).

Runs when the suite is on PostgreSQL and ``redis-server`` is installed (``make test`` arranges both).
"""

from __future__ import annotations

import os
import signal
import time
import uuid
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from arena.bots.models import BotVersion
from arena.bots.services import bot_create
from arena.celery import app
from arena.ladders.models import RatingChange
from arena.ladders.services import ladder_create, ladder_enter
from arena.matches.models import Match
from arena.matches.services import match_create
from arena.runs.smoke import bot_builtin_ensure, bot_version_record_smoke_test
from tests.factories import SLOW_BOT, clean_outcome, py_upload
from tests.platform.brokers import PrivateRedis, celery_broker
from tests.platform.worker_processes import FAST_RECOVERY, WorkerProcess, database_url

GOAL = 60.0  # seconds from a fault to the interrupted work being done (issue 16)

# At least two seconds a match (SLOW_BOT), and twice as long a move for SLOWER_BOT.
SLOWER_BOT = SLOW_BOT.replace(b"time.sleep(0.05)", b"time.sleep(0.1)")


class Arena:
    """The services of one fault test: the private broker, worker processes, and waiting."""

    def __init__(self, folder, redis: PrivateRedis, queue: str):
        self.folder = folder
        self.redis = redis
        self.queue = queue
        self.workers: list[WorkerProcess] = []
        self.env = dict(os.environ)
        self.env.update(FAST_RECOVERY)
        self.env.update({
            "DATABASE_URL": database_url(connection.settings_dict), "CELERY_BROKER_URL": redis.url,
            "ARENA_QUEUE": queue, "ARENA_VAR_DIR": str(folder), "DJANGO_SETTINGS_MODULE": "arena.settings",
        })

    def worker(self, name: str) -> WorkerProcess:
        worker = WorkerProcess(f"{name}-{self.queue}", env=self.env, folder=self.folder)
        self.workers.append(worker)
        return worker.start()

    def wait_for(self, predicate, what: str, timeout: float = GOAL):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = predicate()
            if value:
                return value
            time.sleep(0.2)
        logs = "\n".join(f"--- {w.name}\n" + "\n".join(self._interesting(w.log())[-25:]) for w in self.workers)
        pytest.fail(f"timed out after {timeout:.0f} s waiting for {what}\n{logs}")

    @staticmethod
    def _interesting(log: str) -> list[str]:
        ticks = ("Sending due task", "requeue_stuck[", "matchmaking_tick[", "Discarding revoked")
        return [line for line in log.splitlines() if line.strip() and not any(t in line for t in ticks)]

    def running_on(self, match: Match) -> WorkerProcess:
        """The worker process whose pool runs ``match`` now."""
        running = self.wait_for(lambda: Match.objects.filter(pk=match.pk, status="running").first(),
                                f"match {match.pk} to start")
        return next(w for w in self.workers if running.worker.startswith(w.node))


@pytest.fixture
def arena(transactional_db, tmp_path):
    if connection.vendor != "postgresql":
        pytest.skip("the fault tests run on PostgreSQL (set DATABASE_URL; make test does)")
    redis = PrivateRedis(tmp_path).start()
    queue = f"faults-{uuid.uuid4().hex[:6]}"
    with celery_broker(redis.url, queue):
        arena = Arena(tmp_path, redis, queue)
        try:
            yield arena
        finally:
            for worker in arena.workers:
                worker.stop()
            redis.stop()
            connection.close()


def database_sessions() -> int:
    """Sessions PostgreSQL opened on the test database so far."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT sessions FROM pg_stat_database WHERE datname = current_database()")
        return cursor.fetchone()[0]


def ratings_check_output() -> str:
    out = StringIO()
    call_command("ratings_check", stdout=out)  # raises CommandError (exit 1) on any difference
    return out.getvalue()


def smoke_game_running(version):
    """The version's smoke match once a worker runs it (a smoke test is a group of matches of kind smoke)."""
    return Match.objects.filter(kind="smoke", seats__bot_version=version, status="running").first()


def assert_rated_exactly_once(ladder):
    for match in Match.objects.filter(ladder=ladder, status="done"):
        assert RatingChange.objects.filter(match=match).count() == match.seats.count(), match
    assert "ok" in ratings_check_output()


@pytest.fixture
def duel(owner, staff, game_id):
    """A rated two-seat ladder with a slow uploaded bot and a built-in one; it makes no matches itself."""
    ladder = ladder_create(slug="faults", name="Faults", game=game_id, seat_count=2, queue_size=0)
    slow = bot_create(owner=owner, name="slowpoke", game=game_id, upload=py_upload(SLOW_BOT))
    bot_version_record_smoke_test(version_id=slow.versions.get().pk, outcome=clean_outcome(game_id, 2))
    slow.refresh_from_db()
    builtin = bot_builtin_ensure(owner=staff, game=game_id, builtin="random")
    for bot in (slow, builtin):
        ladder_enter(ladder=ladder, bot=bot)
    return ladder, slow, builtin


@pytest.mark.slow
def test_killed_and_stopped_workers_hand_their_match_and_smoke_test_to_another_within_the_goal(
        arena, duel, owner, game_id):
    ladder, slow, builtin = duel
    slower = bot_create(owner=owner, name="slower", game=game_id, upload=py_upload(SLOWER_BOT))
    bot_version_record_smoke_test(version_id=slower.versions.get().pk, outcome=clean_outcome(game_id, 2))
    slower.refresh_from_db()
    ladder_enter(ladder=ladder, bot=slower)
    first, second = arena.worker("one"), arena.worker("two")
    first.wait_ready()
    second.wait_ready()

    # A whole worker (main process, beat and pool) is SIGKILLed mid-match.
    match = match_create(game=game_id, versions=[slow.active_version, builtin.active_version], ladder=ladder)
    victim = arena.running_on(match)
    time.sleep(1.0)
    victim.kill()
    killed_at = time.monotonic()
    victim.start()  # it comes back (a restarted container); the survivor may well be faster
    done = arena.wait_for(lambda: Match.objects.filter(pk=match.pk, status="done").first(), "the killed match")
    print(f"whole worker killed mid-match: done {time.monotonic() - killed_at:.1f} s later")
    assert done.attempts == 2 and done.seed == match.seed
    victim.wait_ready()

    # A whole worker is SIGKILLed mid-smoke-test (the slower bot and a short wait: on a quiet machine
    # a smoke test of the slow bot can end within a second, before the kill).
    version = bot_create(owner=owner, name="slow-upload", game=game_id, upload=py_upload(SLOWER_BOT)).versions.get()
    running = arena.wait_for(lambda: smoke_game_running(version), "the smoke test to start")
    assert BotVersion.objects.get(pk=version.pk).status == "pending"
    time.sleep(0.3)
    holder = next(w for w in arena.workers if running.worker.startswith(w.node))
    holder.kill()
    killed_at = time.monotonic()
    arena.wait_for(lambda: BotVersion.objects.filter(pk=version.pk, status="ready").first(),
                   "the smoke test of the killed worker")
    print(f"whole worker killed mid-smoke-test: judged {time.monotonic() - killed_at:.1f} s later")
    assert Match.objects.get(pk=running.pk).attempts == 2
    holder.start().wait_ready()

    # SIGTERM (a container stopped): the running match goes back to the queue at once, attempt unused.
    match = match_create(game=game_id, versions=[builtin.active_version, slower.active_version], ladder=ladder)
    leaving = arena.running_on(match)
    time.sleep(0.3)  # as above: on a quiet machine the slower bot's match can end within 2 s
    leaving.terminate()
    stopped_at = time.monotonic()
    arena.wait_for(lambda: Match.objects.filter(pk=match.pk, status="queued").exists() or
                   Match.objects.filter(pk=match.pk).exclude(worker__startswith=leaving.node).exists(),
                   "the match to be handed back", timeout=15)
    handed = time.monotonic() - stopped_at
    assert leaving.wait_exit(timeout=30) is not None
    done = arena.wait_for(lambda: Match.objects.filter(pk=match.pk, status="done").first(), "the handed-back match")
    print(f"worker stopped with SIGTERM: match handed back after {handed:.1f} s, "
          f"done {time.monotonic() - stopped_at:.1f} s later")
    assert done.attempts == 1 and not done.worker.startswith(leaving.node)

    assert not Match.objects.exclude(status="done").exists()
    assert_rated_exactly_once(ladder)


@pytest.mark.slow
def test_the_work_of_a_killed_pool_process_is_taken_over_at_once_by_the_worker_that_gets_its_message(
        arena, duel, owner, game_id):
    ladder, slow, builtin = duel
    # Leases far longer than the wait: only the message the killed process put back can bring the match back.
    arena.env["MATCH_LEASE_SECONDS"] = "600"
    victim, survivor = arena.worker("victim"), arena.worker("survivor")
    victim.wait_ready()
    survivor.wait_ready()
    match = match_create(game=game_id, versions=[slow.active_version, builtin.active_version], ladder=ladder)
    holder = arena.running_on(match)
    other = survivor if holder is victim else victim
    running = Match.objects.get(pk=match.pk)
    # The holder takes no new message: the one its killed process puts back goes to the other worker
    # (as it would to a worker on another machine, which cannot see that process).
    node = running.worker.rpartition(":")[0]
    assert app.control.cancel_consumer(arena.queue, destination=[node], reply=True, timeout=10), node
    time.sleep(0.3)
    os.kill(int(running.worker.rpartition(":")[2]), signal.SIGKILL)
    killed_at = time.monotonic()
    done = arena.wait_for(lambda: Match.objects.filter(pk=match.pk, status="done").first(),
                          "the match of the killed pool process")
    print(f"pool process killed mid-match: done {time.monotonic() - killed_at:.1f} s later on {done.worker}")
    assert done.attempts == 2 and done.seed == match.seed and done.worker.startswith(other.node)
    assert_rated_exactly_once(ladder)

    # The same for a smoke test, its message back on the worker whose process died.
    # The slower bot and a short wait: on a quiet machine a smoke test of the slow bot could end
    # within a second, before the kill (seen once: judged on its first attempt).
    version = bot_create(owner=owner, name="slow-upload", game=game_id, upload=py_upload(SLOWER_BOT)).versions.get()
    running = arena.wait_for(lambda: smoke_game_running(version), "the smoke test to start")
    time.sleep(0.3)
    os.kill(int(running.worker.rpartition(":")[2]), signal.SIGKILL)
    killed_at = time.monotonic()
    arena.wait_for(lambda: BotVersion.objects.filter(pk=version.pk, status="ready").first(),
                   "the smoke test of the killed pool process")
    print(f"pool process killed mid-smoke-test: judged {time.monotonic() - killed_at:.1f} s later")
    assert Match.objects.get(pk=running.pk).attempts == 2


@pytest.mark.slow
def test_work_made_while_the_broker_is_down_or_lost_in_a_redis_restart_is_played_once(
        arena, duel, owner, staff, game_id):
    ladder, slow, builtin = duel
    heuristic = bot_builtin_ensure(owner=staff, game=game_id, builtin="heuristic")
    ladder_enter(ladder=ladder, bot=heuristic)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=owner).key}")

    # The broker is down: an upload and a challenge are answered as usual.
    arena.redis.stop()
    upload = api.post("/api/bots/", {"name": "while-down", "game": game_id, "file": py_upload()}, format="multipart")
    challenge = api.post("/api/challenges/", {"bot": slow.pk, "opponents": [builtin.pk]}, format="json")
    assert (upload.status_code, challenge.status_code) == (201, 201), (upload.content, challenge.content)
    arena.redis.start()

    # Ladder matches are queued in Redis, then Redis restarts without them.
    queued = [match_create(game=game_id, versions=[heuristic.active_version, builtin.active_version], ladder=ladder)
              for _ in range(3)]
    assert arena.redis.queue_length(arena.queue) == 3
    arena.redis.restart()
    assert arena.redis.queue_length(arena.queue) == 0
    restarted_at = time.monotonic()

    sessions_before = database_sessions()
    worker = arena.worker("only")
    version = BotVersion.objects.get(bot__name="while-down")
    challenged = Match.objects.get(pk=challenge.json()["id"])
    arena.wait_for(lambda: BotVersion.objects.get(pk=version.pk).status == "ready", "the upload's smoke test")
    arena.wait_for(lambda: Match.objects.filter(pk__in=[challenged.pk, *(m.pk for m in queued)],
                                                status="done").count() == 4, "the challenge and the lost matches")
    print(f"broker down, then Redis restarted: everything played {time.monotonic() - restarted_at:.1f} s "
          f"after the restart (worker start included)")
    assert all(m.attempts == 1 for m in Match.objects.all())  # played once each
    assert "already recorded" not in worker.log()
    assert_rated_exactly_once(ladder)
    # The worker kept its connections across tasks (Celery would open one per task).
    tasks = worker.log().count(" succeeded in ")
    sessions = database_sessions() - sessions_before
    print(f"{tasks} tasks on {sessions} new PostgreSQL sessions")
    assert tasks >= 5 and sessions < tasks
