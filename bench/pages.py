"""The pages of a big arena: a 2,000-bot leaderboard and the page of a bot with ~11,500 matches.

Fills a fresh database (SQLite in a temporary folder, or the PostgreSQL database named by
--database-url, which is emptied first) with bulk inserts (tests/web/population.py), then
times each page with Django's test client and prints p50/p95 in ms and the SQL queries.

    .venv/bin/python bench/pages.py [--bots 2000] [--matches 11500] [--repeat 10]
    .venv/bin/python bench/pages.py --database-url postgres://postgres@127.0.0.1:5432/arena_pages_bench
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def setup(var_dir: str, database_url: str | None) -> None:
    os.environ["ARENA_VAR_DIR"] = var_dir
    os.environ["CACHE_URL"] = "locmem://"
    if database_url:
        os.environ["DATABASE_URL"] = database_url
    else:
        os.environ.pop("DATABASE_URL", None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")
    import django

    django.setup()
    from django.core.management import call_command

    if database_url:
        call_command("flush", interactive=False, verbosity=0)
    call_command("migrate", verbosity=0)


def populate(bots: int, matches: int) -> dict:
    from django.contrib.auth import get_user_model

    from arena.bots.models import Bot
    from arena.ladders.models import Ladder
    from engines import list_games
    from tests.web.population import add_bots, add_matches

    game = next(g.id for g in list_games() if g.min_players <= 4 <= g.max_players)
    ladder = Ladder.objects.create(slug="bench", name="Bench", game=game, seat_count=4)
    started = time.perf_counter()
    table = add_bots(ladder=ladder, count=bots, prefix="bench", owners=max(1, bots // 4))
    star = table[0]
    user = get_user_model().objects.create_user("bench", password="bench-password-1")
    Bot.objects.filter(pk=star.pk).update(owner=user)
    add_matches(ladder=ladder, bot=star, opponents=table[1:40], count=matches)
    from django.db import connection

    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")  # what autovacuum does after such a load: plans need row counts
    print(f"populated {bots} bots and {matches} matches of {star.name} in {time.perf_counter() - started:.1f} s")
    return {"user": user, "star": star, "ladder": ladder}


def measure(client, url: str, repeat: int) -> tuple[float, float, int]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    times = []
    queries = 0
    for _ in range(repeat):
        with CaptureQueriesContext(connection) as captured:
            start = time.perf_counter()
            response = client.get(url)
            times.append((time.perf_counter() - start) * 1000)
        assert response.status_code == 200, (url, response.status_code)
        queries = len(captured.captured_queries)
    times.sort()
    return statistics.median(times), times[max(0, int(len(times) * 0.95) - 1)], queries


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=2000)
    parser.add_argument("--matches", type=int, default=11500)
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--database-url", default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="arena-bench-pages-") as tmp:
        setup(tmp, args.database_url)
        from django.conf import settings
        from django.test import Client
        from django.test.utils import setup_test_environment

        setup_test_environment()
        settings.ALLOWED_HOSTS = ["testserver"]
        world = populate(args.bots, args.matches)
        client = Client()
        client.force_login(world["user"])
        star = world["star"]
        pages = {
            "leaderboard, page 1": "/ladders/bench/",
            f"leaderboard, page {args.bots // 100}": f"/ladders/bench/?page={args.bots // 100}",
            "bot page (owner)": f"/bots/{star.pk}/",
            "bot page (visitor)": None,
            "matches of the bot": f"/matches/?bot={star.name}",
            "matches, filtered": f"/matches/?bot={star.name}&kind=ladder&status=done&game={world['ladder'].game}",
            "home, signed in": "/",
            "my bots": "/bots/mine/",
        }
        visitor = Client()
        print(f"{'page':34} {'p50 ms':>8} {'p95 ms':>8} {'queries':>8}")
        for label, url in pages.items():
            who = client
            if url is None:
                who, url = visitor, f"/bots/{star.pk}/"
            p50, p95, queries = measure(who, url, args.repeat)
            print(f"{label:34} {p50:8.1f} {p95:8.1f} {queries:8d}")


if __name__ == "__main__":
    main()
