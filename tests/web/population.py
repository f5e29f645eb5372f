"""Many rows, fast: bots on a ladder and recorded matches written with bulk inserts, for the
query-count tests (pages must not cost more queries as rows grow) and bench/pages.py.

The rows are what the services would have written (ratings with their counters, seats with
ranks, faults and timings, one rating change per bot per match), without running matches.
"""

from __future__ import annotations

import random
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.utils import timezone

from arena.bots.models import Bot, BotVersion
from arena.ladders.models import Rating, RatingChange
from arena.matches.models import Match, MatchSeat
from arena.matches.timing import timing_columns

FAULT_KINDS = ["crash", "timeout", "protocol", "illegal"]


def add_bots(*, ladder, count: int, prefix: str = "bot", owners: int = 0, seed: int = 1) -> list[Bot]:
    """``count`` ready bots of the ladder's game entered in it, with varied ratings and games;
    owned by ``owners`` new users (one per bot when 0)."""
    rng = random.Random(seed)
    users = get_user_model()
    owner_count = owners or count
    created = users.objects.bulk_create([users(username=f"{prefix}-owner-{i}", password="!")
                                         for i in range(owner_count)])
    people = list(users.objects.filter(username__in=[u.username for u in created]).order_by("id"))
    bots = Bot.objects.bulk_create([Bot(owner=people[i % owner_count], name=f"{prefix}-{i}", game=ladder.game)
                                    for i in range(count)])
    bots = list(Bot.objects.filter(name__startswith=f"{prefix}-", game=ladder.game).order_by("id"))
    versions = BotVersion.objects.bulk_create([
        BotVersion(bot=bot, number=1, kind="py", filename="main.py", archive=b"print(1)\n", size=9,
                   sha256="0" * 64, status="ready", validated_at=timezone.now()) for bot in bots])
    for bot, version in zip(bots, versions):
        bot.active_version = version
    Bot.objects.bulk_update(bots, ["active_version"])
    now = timezone.now()
    ratings = []
    for bot in bots:
        games = rng.randint(0, 60)
        firsts = rng.randint(0, games)
        ratings.append(Rating(
            ladder=ladder, bot=bot, elo=round(rng.gauss(1200, 150)), games=games, wins=firsts, losses=games - firsts,
            faults=rng.randint(0, games // 5 if games else 0), score_sum=games * rng.uniform(0, 30),
            score_sq_sum=games * 900.0, rank_sum=games + rng.randint(0, games * (ladder.seat_count - 1)),
            first_places=firsts, last_played_at=now - timedelta(minutes=rng.randint(0, 10_000)) if games else None))
    Rating.objects.bulk_create(ratings)
    return bots


def add_matches(*, ladder, bot: Bot, opponents: list[Bot], count: int, seed: int = 2,
                fault_every: int = 7) -> list[int]:
    """``count`` finished ladder matches of ``bot`` against ``opponents`` (taken in turn), with
    seats, ranks, faults, timings and rating changes; returns the match ids."""
    rng = random.Random(seed)
    seats_per_match = ladder.seat_count
    start = timezone.now() - timedelta(seconds=count * 30)
    matches = Match.objects.bulk_create([
        Match(kind="ladder", ladder=ladder, game=ladder.game, seed=rng.randrange(2**53), status="done",
              rated=True, queued_at=start, started_at=start,
              finished_at=start + timedelta(seconds=30 * i)) for i in range(count)])
    ids = [m.pk for m in matches] if matches[0].pk else list(
        Match.objects.filter(ladder=ladder).order_by("-id").values_list("id", flat=True)[:count])[::-1]
    seats, changes = [], []
    elo = {bot.pk: 1200.0}
    from django.db.models import Max

    sequence = dict(RatingChange.objects.filter(ladder=ladder).values("bot_id").annotate(n=Max("sequence"))
                    .values_list("bot_id", "n"))  # each bot's changes so far on the ladder
    for i, match_id in enumerate(ids):
        table = [bot] + [opponents[(i + k) % len(opponents)] for k in range(seats_per_match - 1)]
        ranks = list(range(1, seats_per_match + 1))
        rng.shuffle(ranks)
        for seat, (player, rank) in enumerate(zip(table, ranks)):
            faulted = player.pk == bot.pk and fault_every and i % fault_every == 0
            p50 = round(rng.uniform(1, 20), 3)  # the runner reports times to the microsecond
            timing = {"seat": seat, "decisions": 30, "mean_ms": p50, "p50_ms": p50, "p95_ms": round(p50 * 2, 3),
                      "max_ms": round(p50 * 3, 3), "bank_used_ms": 0.0}
            seats.append(MatchSeat(
                match_id=match_id, seat=seat, bot_version_id=player.active_version_id, score=float(10 - rank),
                rank=rank, fault_kind=FAULT_KINDS[i % len(FAULT_KINDS)] if faulted else "",
                **timing_columns(timing, seat=seat)))
            before = elo.get(player.pk, 1200.0)
            after = before + (seats_per_match / 2 - rank) * 4
            elo[player.pk] = after
            sequence[player.pk] = sequence.get(player.pk, 0) + 1  # its n-th change on the ladder
            changes.append(RatingChange(ladder=ladder, match_id=match_id, bot=player, before=before, after=after,
                                        sequence=sequence[player.pk]))
    MatchSeat.objects.bulk_create(seats, batch_size=5000)
    RatingChange.objects.bulk_create(changes, batch_size=5000)
    return ids
