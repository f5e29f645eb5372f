"""Wall time of a whole tournament on the local worker: PostgreSQL, a private Redis, one Celery worker
with its beat (``make run``'s shape), built-in bots.

    .venv/bin/python bench/tournament_run.py [--entrants 16] [--seats 4] [--format swiss] [--rounds 3]
                                             [--game deep_sea_adventure] [--concurrency 2]

Creates a fresh database (``--database``, dropped first), enters ``--entrants`` built-in bots (random
and heuristic, alternately), starts the tournament and waits for it to finish. Prints the wall time
from the start to the stored standings, the games played, games per minute, each round's time, and
the gap between a round's last game and the next round's first (pairing and sending: the round
barrier). The pairing time alone is ``bench/tournament.py``'s.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def psql_admin(statement: str) -> None:
    import psycopg

    with psycopg.connect("postgresql://postgres@127.0.0.1:5432/postgres", autocommit=True) as conn:
        conn.execute(statement)


def run(args, folder: Path) -> None:
    from tests.platform.brokers import PrivateRedis

    psql_admin(f'DROP DATABASE IF EXISTS "{args.database}" WITH (FORCE)')
    psql_admin(f'CREATE DATABASE "{args.database}"')
    redis = PrivateRedis(folder).start()
    os.environ.update({
        "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{args.database}", "CELERY_BROKER_URL": redis.url,
        "ARENA_QUEUE": f"tourney-{uuid.uuid4().hex[:6]}", "ARENA_VAR_DIR": str(folder),
        "DJANGO_SETTINGS_MODULE": "arena.settings", "TOURNAMENT_INTERVAL": "10",
    })
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from tests.platform.worker_processes import WorkerProcess

    worker = WorkerProcess("bench", env=dict(os.environ), folder=folder, concurrency=args.concurrency, beat=True)
    try:
        worker.start()
        worker.wait_ready()
        from arena.matches.models import Match
        from arena.runs.smoke import bot_builtin_ensure
        from arena.tournaments.models import Tournament
        from arena.tournaments.services import tournament_create, tournament_start

        staff = get_user_model().objects.create_user("bench", is_staff=True)
        bots = [bot_builtin_ensure(owner=staff, game=args.game, builtin=("random", "heuristic")[i % 2],
                                   name=f"bench-{i:02d}") for i in range(args.entrants)]
        t = tournament_create(name="Bench", game=args.game, seat_count=args.seats, format=args.format,
                              rounds=args.rounds if args.format != "elimination" else None,
                              advance=args.advance if args.format == "elimination" else None, bots=bots)
        started = time.monotonic()
        tournament_start(tournament_id=t.pk)
        while Tournament.objects.get(pk=t.pk).status != "finished":
            if not worker.alive():
                sys.exit(f"the worker exited: {worker.log()[-2000:]}")
            time.sleep(0.2)
        wall = time.monotonic() - started
        t.refresh_from_db()
        games = Match.objects.filter(group__tournament_table__round__tournament=t)
        done = games.filter(status="done").count()
        print(f"{args.format}, {args.entrants} entrants, {args.seats} seats, {t.rounds} rounds, {args.game}, "
              f"one worker x {args.concurrency} processes")
        print(f"  wall time {wall:.1f} s for {done} games ({games.filter(status='failed').count()} failed): "
              f"{done / wall * 60:.0f} games/min")
        previous_end = None
        for round_ in t.round_set.order_by("number"):
            times = games.filter(group__tournament_table__round=round_).order_by("started_at")
            first, last = times.first().started_at, times.order_by("-finished_at").first().finished_at
            gap = f", {(first - previous_end).total_seconds():.2f} s after the previous round's last game" \
                if previous_end else ""
            print(f"  round {round_.number}: {times.count()} games in {(last - first).total_seconds():.1f} s{gap}")
            previous_end = last
    finally:
        worker.stop()
        redis.stop()
        from django.db import connections

        connections.close_all()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", default="arena_bench_tournament", help="PostgreSQL database (dropped and made)")
    parser.add_argument("--entrants", type=int, default=16)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--format", default="swiss", choices=["swiss", "round_robin", "elimination"])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--advance", type=int, default=2, help="elimination: top m of each table advance")
    parser.add_argument("--game", default="deep_sea_adventure")
    parser.add_argument("--concurrency", type=int, default=2, help="worker processes (make run's default: 2)")
    args = parser.parse_args()
    if shutil.which("redis-server") is None:
        sys.exit("redis-server is not installed (scripts/install-system-packages.sh --with-redis)")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory(prefix="arena-bench-tournament-") as folder:
        run(args, Path(folder))
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
