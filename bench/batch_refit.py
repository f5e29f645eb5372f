"""The batch refit of one ladder as the beat task runs it: reading every rated result, the fit, and
writing the ratings back; and the tick that finds nothing new.

Fills a fresh database (SQLite in a temporary folder, or the PostgreSQL database named by
--database-url, which is emptied first) with a 4-seat ladder of ``--bots`` bots and ``--groups``
rated rotation groups of 4 games each (bulk inserts; ranks drawn from the bots' hidden
strengths, each seat scoring 5 - its rank), then times ``batch_refit`` (read, fit, write) on the
ladder's ``--model`` (``scores``, the default, or ``ranks``) and a second, idle tick.

    .venv/bin/python bench/batch_refit.py [--bots 200] [--groups 500] [--model ranks]
    .venv/bin/python bench/batch_refit.py --database-url postgres://postgres@127.0.0.1:5432/arena_refit_bench
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.pages import setup  # noqa: E402  (sys.path first)


def populate(bots: int, groups: int, model: str, seed: int = 1):
    from django.utils import timezone

    from arena.ladders.models import Ladder, RatingChange
    from arena.matches.models import Match, MatchGroup, MatchSeat
    from competition.rotation import seat_orders
    from engines import list_games
    from tests.web.population import add_bots

    rng = random.Random(seed)
    game = next(g.id for g in list_games() if g.min_players <= 4 <= g.max_players)
    ladder = Ladder.objects.create(slug="refit", name="Refit", game=game, seat_count=4, batch_model=model)
    table = add_bots(ladder=ladder, count=bots, prefix="refit", owners=max(1, bots // 4))
    strength = {bot.pk: rng.gauss(0, 1) for bot in table}
    version = {bot.pk: bot.active_version_id for bot in table}
    now = timezone.now()
    made = MatchGroup.objects.bulk_create([MatchGroup(game=game, seed=i, size=4, rated_at=now, finished_at=now)
                                           for i in range(groups)])
    orders = seat_orders(4)
    matches, tables = [], []
    for group in made:
        entrants = rng.sample(table, 4)
        for index, order in enumerate(orders):
            matches.append(Match(kind="ladder", ladder=ladder, game=game, seed=group.seed, group=group,
                                 group_index=index, status="done", queued_at=now, finished_at=now))
            tables.append([entrants[i] for i in order])
    matches = Match.objects.bulk_create(matches, batch_size=2000)
    seats, changes = [], []
    sequence = {bot.pk: 0 for bot in table}
    for match, seated in zip(matches, tables):
        noisy = sorted(range(4), key=lambda s: -(strength[seated[s].pk] + rng.gauss(0, 1.5)))
        for rank, seat in enumerate(noisy, start=1):
            seats.append(MatchSeat(match=match, seat=seat, bot_version_id=version[seated[seat].pk], score=5 - rank,
                                   rank=rank))
        if match.group_index == 3:  # one change per bot per group, on its last game
            for bot in seated:
                sequence[bot.pk] += 1
                changes.append(RatingChange(ladder=ladder, match=match, bot=bot, before=1200, after=1200,
                                            sequence=sequence[bot.pk]))
    MatchSeat.objects.bulk_create(seats, batch_size=5000)
    RatingChange.objects.bulk_create(changes, batch_size=5000)
    return ladder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=200)
    parser.add_argument("--groups", type=int, default=500)
    parser.add_argument("--model", choices=["scores", "ranks"], default="scores")
    parser.add_argument("--database-url")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as var_dir:
        setup(var_dir, args.database_url)
        from django.db import connection

        from arena.ladders.batch import batch_refit, ladder_rated_groups, ladder_scored_groups
        from competition.ratings.batch import fit
        from competition.ratings.batch_scores import fit_scores
        from arena.ladders.models import Ladder

        started = time.perf_counter()
        ladder = populate(args.bots, args.groups, args.model)
        print(f"{connection.vendor}: {args.bots} bots, {args.groups} rotation groups of 4 games "
              f"({4 * args.groups} games), filled in {time.perf_counter() - started:.1f} s; model {args.model}")
        read_groups, fit = ((ladder_scored_groups, fit_scores) if args.model == "scores"
                            else (ladder_rated_groups, fit))
        started = time.perf_counter()
        groups = read_groups(ladder=ladder)
        read = time.perf_counter() - started
        started = time.perf_counter()
        fitted = fit(groups)
        fitting = time.perf_counter() - started
        started = time.perf_counter()
        assert batch_refit(ladder=Ladder.objects.get(pk=ladder.pk))
        whole = time.perf_counter() - started
        started = time.perf_counter()
        assert not batch_refit(ladder=Ladder.objects.get(pk=ladder.pk))
        idle = time.perf_counter() - started
        provisional = sum(r.provisional for r in fitted.values())
        print(f"read the rated results: {read * 1000:.0f} ms; fit: {fitting:.2f} s "
              f"({provisional} of {len(fitted)} provisional); whole refit (read, fit, write): {whole:.2f} s; "
              f"idle tick: {idle * 1000:.1f} ms")


if __name__ == "__main__":
    main()
