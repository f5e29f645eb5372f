"""Fault run: ladders playing on PostgreSQL, a Redis broker and three Celery workers while faults hit them.

    .venv/bin/python bench/faults.py [--database arena_bench_faults] [--outage 60] [--repeat 2]

Creates a fresh database (``--database``, dropped first) with the demo ladders (``arena_demo``),
starts a private ``redis-server`` on a free port, three workers (``--workers``, ``--concurrency``
processes each) and one beat scheduler, all on the production defaults (5 s heartbeat, 20 s lease,
5 s recovery sweep), and while matches flow injects, ``--repeat`` times each:

- a pool process SIGKILLed mid-match;
- a whole worker (main process and pool) SIGKILLed mid-match, restarted 5 s later;
- every worker's database connection terminated (``pg_terminate_backend``);
- a whole worker SIGKILLed mid-smoke-test (a new upload), restarted 5 s later;
- Redis restarted (without persistence) with queued messages;
and once ``--outage`` seconds without a broker, during which a bot is uploaded and a challenge made
over the API. Each fault's recovery time is from the fault (the broker's return for the outage) to
the work it hit being done; for the killed processes also to that work being taken over (claimed by
a new attempt), which leaves out the work's own playing time. At the end the ladders stop, the queue drains, and the totals are
printed: lost (not done), failed, plays discarded as duplicates, matches rated other than once,
the largest difference between a stored rating and its recomputation (``ratings_check``), task
messages that found their work claimed already, and the database sessions the workers opened.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SLOW_BOT = b"""import json, sys, time
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "start":
        print(json.dumps({"type": "ready"}), flush=True)
    elif msg["type"] == "act":
        time.sleep(0.05)
        print(json.dumps({"index": 0}), flush=True)
    elif msg["type"] == "end":
        break
"""


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def psql_admin(database: str, statement: str) -> None:
    import psycopg

    with psycopg.connect("postgresql://postgres@127.0.0.1:5432/postgres", autocommit=True) as conn:
        conn.execute(statement.format(db=database))


class Run:
    def __init__(self, args, folder: Path):
        self.args = args
        self.folder = folder
        self.recoveries: dict[str, list[float]] = {}
        self.takeovers: dict[str, list[float]] = {}
        self.notes: list[str] = []

    # --- setup ------------------------------------------------------------------------------
    def setup(self) -> None:
        from tests.platform.brokers import PrivateRedis

        db = self.args.database
        psql_admin(db, 'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')
        psql_admin(db, 'CREATE DATABASE "{db}"')
        self.redis = PrivateRedis(self.folder).start()
        self.queue = f"faults-{uuid.uuid4().hex[:6]}"
        os.environ.update({
            "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{db}", "CELERY_BROKER_URL": self.redis.url,
            "ARENA_QUEUE": self.queue, "ARENA_VAR_DIR": str(self.folder), "DJANGO_SETTINGS_MODULE": "arena.settings",
            "REMAP_SIGTERM": "SIGQUIT", "CELERY_LOGLEVEL": "info",
        })
        import django

        django.setup()
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        call_command("arena_demo", stdout=open(self.folder / "demo.txt", "w"))
        from tests.platform.worker_processes import WorkerProcess

        env = dict(os.environ)
        self.workers = [WorkerProcess(f"w{i}", env=env, folder=self.folder, concurrency=self.args.concurrency,
                                      beat=False) for i in range(1, self.args.workers + 1)]
        for worker in self.workers:
            worker.start()
        self.beat = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "arena", "beat", "--loglevel", "info",
             "--schedule", str(self.folder / "beat")], cwd=ROOT, env=env, start_new_session=True,
            stdout=open(self.folder / "beat.log", "w"), stderr=subprocess.STDOUT)
        for worker in self.workers:
            worker.wait_ready()
        self.sessions_before = self.sessions()
        self.started = time.monotonic()

    def teardown(self) -> None:
        for worker in getattr(self, "workers", []):
            worker.stop()
        if getattr(self, "beat", None) and self.beat.poll() is None:
            os.killpg(self.beat.pid, signal.SIGKILL)
        if getattr(self, "redis", None):
            self.redis.stop()
        from django.db import connections

        connections.close_all()

    # --- reading the database ----------------------------------------------------------------
    @staticmethod
    def sessions() -> int:
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute("SELECT sessions FROM pg_stat_database WHERE datname = current_database()")
            return cursor.fetchone()[0]

    @staticmethod
    def finished(ids) -> bool:
        from arena.matches.models import Match

        return not Match.objects.filter(pk__in=list(ids)).exclude(status__in=["done", "failed"]).exists()

    def wait(self, predicate, what: str, timeout: float = 600.0, poll: float = 0.25) -> float:
        start = time.monotonic()
        while time.monotonic() - start < timeout:
            if predicate():
                return time.monotonic() - start
            time.sleep(poll)
        self.notes.append(f"gave up waiting for {what} after {timeout:.0f} s")
        return float("nan")

    def a_running_match(self, min_age: float = 0.5):
        """A match some worker has been running for at least ``min_age`` seconds."""
        from django.utils import timezone

        from arena.matches.models import Match

        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            running = list(Match.objects.filter(
                status="running", started_at__lt=timezone.now() - timezone.timedelta(seconds=min_age))
                .only("id", "worker"))
            if running:
                return random.choice(running)
            time.sleep(0.1)
        raise RuntimeError("no match ran for two minutes")

    def worker_of(self, recorded: str):
        return next(w for w in self.workers if recorded.startswith(w.node))

    def restart_later(self, worker, delay: float = 5.0) -> None:
        threading.Timer(delay, worker.start).start()

    def record(self, fault: str, seconds: float) -> None:
        self.recoveries.setdefault(fault, []).append(seconds)
        log(f"{fault}: recovered after {seconds:.1f} s")

    def wait_taken_over_and_done(self, taken_over, done, fault: str, what: str) -> None:
        """Record when the interrupted work was back in a worker's hands (a new attempt claimed it:
        the platform's part) and when it was done (that plus the work's own playing time)."""
        start = time.monotonic()
        seconds = self.wait(lambda: taken_over() or done(), f"{what} to be taken over")
        self.takeovers.setdefault(fault, []).append(seconds)
        self.record(fault, seconds + self.wait(done, what))
        log(f"{fault}: taken over after {seconds:.1f} s (done {time.monotonic() - start:.1f} s after the fault)")

    # --- the faults --------------------------------------------------------------------------
    def pool_process_killed(self) -> None:
        from arena.matches.models import Match

        match = self.a_running_match()
        attempts = Match.objects.get(pk=match.pk).attempts
        os.kill(int(match.worker.rsplit(":", 1)[1]), signal.SIGKILL)
        self.wait_taken_over_and_done(
            lambda: Match.objects.filter(pk=match.pk, attempts__gt=attempts).exists(),
            lambda: self.finished([match.pk]), "pool process killed mid-match", "the match")

    def whole_worker_killed(self) -> None:
        from arena.matches.models import Match

        match = self.a_running_match()
        worker = self.worker_of(match.worker)
        held = dict(Match.objects.filter(status="running", worker__startswith=worker.node).values_list("pk", "attempts"))
        worker.kill()
        self.restart_later(worker)

        def taken_over() -> bool:
            now = dict(Match.objects.filter(pk__in=list(held)).values_list("pk", "attempts"))
            return all(now[pk] > attempts for pk, attempts in held.items())

        self.wait_taken_over_and_done(taken_over, lambda: self.finished(held), "whole worker killed mid-match",
                                      "its matches")
        worker.wait_ready()

    def connections_killed(self) -> None:
        from django.db import connection

        from arena.matches.models import Match

        self.a_running_match()  # a kill between matches would hit nothing
        held = list(Match.objects.filter(status="running").values_list("pk", flat=True))
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                           "WHERE datname = current_database() AND pid <> pg_backend_pid()")
            killed = cursor.fetchone()[0]
        log(f"terminated {killed} database connection(s) with {len(held)} match(es) running")
        self.record("database connections killed", self.wait(lambda: self.finished(held), "the running matches"))

    def smoke_test_worker_killed(self) -> None:
        from django.contrib.auth import get_user_model
        from django.core.files.uploadedfile import SimpleUploadedFile

        from arena.bots.models import BotVersion
        from arena.bots.services import bot_create
        from arena.matches.models import Match

        owner, _ = get_user_model().objects.get_or_create(username="bench-owner")
        name = f"slow-{uuid.uuid4().hex[:6]}"
        version = bot_create(owner=owner, name=name, game=self.args.game,
                             upload=SimpleUploadedFile("bot.py", SLOW_BOT)).versions.get()
        games = Match.objects.filter(kind="smoke", seats__bot_version=version)  # a smoke test is matches
        self.wait(lambda: games.filter(status="running").exists(), "the smoke test to start", timeout=120)
        time.sleep(0.5)
        running = games.filter(status="running").first()
        if running is None or BotVersion.objects.get(pk=version.pk).status != "pending":
            self.notes.append("a smoke test finished before its worker could be killed")
            return
        worker = self.worker_of(running.worker)
        worker.kill()
        self.restart_later(worker)
        self.wait_taken_over_and_done(
            lambda: games.filter(pk=running.pk, attempts__gt=running.attempts).exists(),
            lambda: BotVersion.objects.filter(pk=version.pk).exclude(status="pending").exists(),
            "smoke test whose worker was killed", "the smoke test")
        worker.wait_ready()

    def redis_restarted(self) -> None:
        from arena.matches.models import Match

        # Matchmaking tops the queues up every few seconds and the workers drain them: restart
        # while messages wait, as in a busy arena.
        self.wait(lambda: self.redis.queue_length(self.queue) >= 2, "messages in the queue", timeout=120, poll=0.02)
        queued = list(Match.objects.filter(status="queued").values_list("pk", flat=True))
        in_redis = self.redis.queue_length(self.queue)
        self.redis.restart()
        log(f"Redis restarted with {in_redis} message(s) queued, {len(queued)} queued match(es)")
        self.record("Redis restarted with queued messages", self.wait(lambda: self.finished(queued), "those matches"))

    def broker_outage(self) -> None:
        from django.contrib.auth import get_user_model
        from django.core.files.uploadedfile import SimpleUploadedFile
        from rest_framework.authtoken.models import Token
        from rest_framework.test import APIClient

        from arena.bots.models import Bot, BotVersion
        from arena.matches.models import Match

        user, _ = get_user_model().objects.get_or_create(username="bench-api", defaults={"is_staff": True})
        token, _ = Token.objects.get_or_create(user=user)
        api = APIClient()
        api.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
        opponent = Bot.objects.filter(game=self.args.game, builtin="random").first()
        self.redis.stop()
        down_at = time.monotonic()
        name = f"outage-{uuid.uuid4().hex[:6]}"
        upload = api.post("/api/bots/", {"name": name, "game": self.args.game,
                                         "file": SimpleUploadedFile("bot.py", SLOW_BOT.replace(b"0.05", b"0"))},
                          format="multipart")
        heuristic = Bot.objects.filter(game=self.args.game, builtin="heuristic").first()
        challenge = api.post("/api/challenges/", {"bot": heuristic.pk, "opponents": [opponent.pk]}, format="json")
        self.outage_statuses = (upload.status_code, challenge.status_code)
        log(f"broker down: POST /api/bots/ {upload.status_code}, POST /api/challenges/ {challenge.status_code}")
        time.sleep(max(0.0, self.args.outage - (time.monotonic() - down_at)))
        self.redis.start()
        version = BotVersion.objects.get(bot__name=name) if upload.status_code == 201 else None
        match_id = challenge.json().get("id") if challenge.status_code == 201 else None

        def done() -> bool:
            judged = version is None or BotVersion.objects.filter(pk=version.pk).exclude(status="pending").exists()
            played = match_id is None or Match.objects.filter(pk=match_id, status="done").exists()
            return judged and played

        self.record(f"broker down {self.args.outage:.0f} s (upload, challenge)", self.wait(done, "the requests' work"))

    # --- the end ----------------------------------------------------------------------------
    def drain_and_count(self) -> None:
        from arena.bots.models import BotVersion
        from arena.ladders.models import Ladder, Rating, RatingChange
        from arena.ladders.recompute import ratings_recompute
        from arena.matches.models import Match

        Ladder.objects.update(active=False)
        self.wait(lambda: not Match.objects.filter(status__in=["queued", "running"]).exists() and
                  not BotVersion.objects.filter(status="pending").exists(), "the queue to drain", timeout=300)
        elapsed = time.monotonic() - self.started
        done = Match.objects.filter(status="done").count()
        lost = Match.objects.filter(status__in=["queued", "running"]).count()
        failed = Match.objects.filter(status="failed").count()
        duplicates = sum(w.log().count("already recorded") for w in self.workers)
        tasks = sum(w.log().count(" succeeded in ") for w in self.workers)
        skipped = sum(w.log().count(": 'skipped'") for w in self.workers)  # a message whose work was taken
        sessions = self.sessions() - self.sessions_before
        double_rated = 0
        for match in Match.objects.filter(status="done", rated=True, ladder__isnull=False).prefetch_related("seats"):
            if RatingChange.objects.filter(match=match).count() != len(match.seats.all()):
                double_rated += 1
        for rating in Rating.objects.all():
            if rating.games != RatingChange.objects.filter(ladder_id=rating.ladder_id, bot_id=rating.bot_id).count():
                double_rated += 1
        worst, differing = 0.0, 0
        for ladder in Ladder.objects.all():
            result = ratings_recompute(ladder=ladder)
            differing += len(result.differences)
            for bot_id, standing in result.standings.items():
                stored = Rating.objects.filter(ladder=ladder, bot_id=bot_id).values_list("elo", flat=True).first()
                if stored is not None:
                    worst = max(worst, abs(stored - standing.elo))
        print()
        print(f"fault run: {len(self.workers)} workers x {self.args.concurrency} processes, "
              f"{done} matches done in {elapsed / 60:.1f} min ({done / (elapsed / 60):.0f} a minute); "
              f"load {os.getloadavg()[0]:.1f}")
        print()
        print("| fault | times | taken over after (median / max) | done after (median / max) |")
        print("|---|---|---|---|")
        for fault, times in self.recoveries.items():
            taken = self.takeovers.get(fault)
            taken = f"{statistics.median(taken):.1f} s / {max(taken):.1f} s" if taken else "-"
            print(f"| {fault} | {len(times)} | {taken} | {statistics.median(times):.1f} s / {max(times):.1f} s |")
        print()
        statuses = getattr(self, "outage_statuses", None)
        print(f"requests while the broker was down: {statuses}")
        print(f"totals: lost {lost}, failed {failed}, duplicates {duplicates}, double-rated {double_rated}, "
              f"recompute difference {worst:.6f} Elo ({differing} value(s) differ)")
        print(f"messages that found their work claimed already (duplicates, redeliveries): {skipped}")
        print(f"database sessions opened: {sessions} for {tasks} tasks")
        for note in self.notes:
            print(f"note: {note}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", default="arena_bench_faults", help="PostgreSQL database (dropped and made)")
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=2, help="times each fault is injected")
    parser.add_argument("--outage", type=float, default=60.0, help="seconds without a broker")
    parser.add_argument("--settle", type=float, default=10.0, help="seconds of normal play between faults")
    parser.add_argument("--game", default="deep_dive", help="game of the uploads and the challenge")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if shutil.which("redis-server") is None:
        sys.exit("redis-server is not installed (scripts/install-system-packages.sh --with-redis)")
    random.seed(args.seed)
    with tempfile.TemporaryDirectory(prefix="arena-bench-faults-") as folder:
        run = Run(args, Path(folder))
        try:
            run.setup()
            log(f"{len(run.workers)} workers ready; letting the ladders fill")
            time.sleep(args.settle)
            faults = [run.pool_process_killed, run.whole_worker_killed, run.connections_killed,
                      run.smoke_test_worker_killed, run.redis_restarted]
            for _ in range(args.repeat):
                for fault in faults:
                    fault()
                    time.sleep(args.settle)
            run.broker_outage()
            time.sleep(args.settle)
            run.drain_and_count()
        finally:
            run.teardown()


if __name__ == "__main__":
    main()
