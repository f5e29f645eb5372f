"""Page and API latency on a populated arena (SQLite in a temporary folder, in-process client).

Creates BOTS bots on one 4-seat ladder with MATCHES finished matches (seat logs, gzip
replays of REPLAY_KB), then times each page and API read and prints p50/p95 in ms and
the number of SQL queries per request.

    .venv/bin/python bench/web.py [--bots 40] [--matches 2000] [--repeat 20]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def setup(var_dir: str) -> None:
    os.environ["ARENA_VAR_DIR"] = var_dir
    os.environ.pop("DATABASE_URL", None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def populate(bots: int, matches: int, replay_kb: int) -> dict:
    import random

    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from arena.bots.models import Bot, BotVersion
    from arena.ladders.models import Ladder, Rating
    from arena.matches.models import Match, MatchSeat
    from arena.matches.timing import timing_columns
    from engines import list_games

    game = next(g.id for g in list_games() if g.min_players <= 4 <= g.max_players)
    user = get_user_model().objects.create_user("bench", password="bench-password-1")
    ladder = Ladder.objects.create(slug="bench", name="Bench", game=game, seat_count=4)
    archive = b"# " + b"x" * (200 * 1024)  # a 200 KiB bot: reads must never load it
    bot_rows = Bot.objects.bulk_create([Bot(owner=user, name=f"bench-{i:03d}", game=game) for i in range(bots)])
    versions = BotVersion.objects.bulk_create([
        BotVersion(bot=b, number=1, kind="py", filename="main.py", archive=archive, sha256="0" * 64,
                   size=len(archive), status="ready") for b in bot_rows])
    for bot, version in zip(bot_rows, versions):
        bot.active_version = version
    Bot.objects.bulk_update(bot_rows, ["active_version"])
    Rating.objects.bulk_create([Rating(ladder=ladder, bot=b, elo=1200 + i, games=matches * 4 // bots)
                                for i, b in enumerate(bot_rows)])
    rng = random.Random(1)
    replay = gzip.compress(json.dumps({"steps": ["x" * 100] * (replay_kb * 10)}).encode())
    now = timezone.now()
    match_rows = Match.objects.bulk_create([
        Match(ladder=ladder, game=game, seed=i, status="done",
              replay=replay, queued_at=now, started_at=now, finished_at=now) for i in range(matches)])
    seats = []
    for match in match_rows:
        for seat, version in enumerate(rng.sample(versions, 4)):
            timing = {"seat": seat, "decisions": 30, "mean_ms": 1.0, "p95_ms": 2.0, "max_ms": 3.0, "bank_used_ms": 0.0}
            seats.append(MatchSeat(match=match, seat=seat, bot_version=version, score=seat, rank=seat + 1,
                                   **timing_columns(timing, seat=seat), log="stderr line\n" * 500))
    MatchSeat.objects.bulk_create(seats, batch_size=2000)
    return {"user": user, "bot": bot_rows[0].pk, "match": match_rows[-1].pk}


def time_urls(urls: list[str], user, repeat: int) -> None:
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client()
    client.force_login(user)
    print(f"{'url':<38} {'p50 ms':>8} {'p95 ms':>8} {'queries':>8} {'bytes':>9}")
    for url in urls:
        client.get(url)  # warm up
        samples = []
        for _ in range(repeat):
            start = time.perf_counter()
            response = client.get(url)
            samples.append((time.perf_counter() - start) * 1000)
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url)
        samples.sort()
        p95 = samples[min(len(samples) - 1, int(0.95 * len(samples)))]
        print(f"{url:<38} {statistics.median(samples):8.1f} {p95:8.1f} {len(queries.captured_queries):8d} "
              f"{len(response.content):9d}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=40)
    parser.add_argument("--matches", type=int, default=2000)
    parser.add_argument("--replay-kb", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="arena-bench-web-") as var_dir:
        setup(var_dir)
        start = time.perf_counter()
        made = populate(args.bots, args.matches, args.replay_kb)
        print(f"populated {args.bots} bots, {args.matches} matches in {time.perf_counter() - start:.1f} s "
              f"(SQLite, {var_dir})")
        urls = ["/", "/ladders/bench/", f"/bots/{made['bot']}/", "/matches/", f"/matches/{made['match']}/",
                f"/matches/{made['match']}/replay.json", "/api/ladders/bench/leaderboard/?page_size=100",
                "/api/bots/", f"/api/bots/{made['bot']}/", "/api/matches/", f"/api/matches/?bot={made['bot']}",
                f"/api/matches/{made['match']}/", f"/api/matches/{made['match']}/replay/"]
        time_urls(urls, made["user"], args.repeat)


if __name__ == "__main__":
    main()
