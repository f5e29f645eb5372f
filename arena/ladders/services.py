"""Ladder services: creating ladders, entering bots, applying ratings, matchmaking."""

from __future__ import annotations

import logging
import random
import time
from datetime import timedelta
from typing import Sequence

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone

from arena.bots.models import Bot, BotVersion
from arena.ladders.models import Ladder, Rating, RatingChange
from arena.ladders.standing import STANDING_FIELDS, Standing, seat_results, shown_rating, standings_after_match
from engines import InvalidOptions, get_game, list_games

log = logging.getLogger(__name__)


def ladder_create(*, slug: str, name: str, game: str, seat_count: int, options: dict | None = None,
                  k_factor: float = 32.0, initial_rating: float = 1200.0, queue_size: int = 2,
                  active: bool = True) -> Ladder:
    """Create a ladder and enter every ready bot of its game.

    ValidationError for an unknown game, a seat count it does not take or bad options.
    """
    ladder_validate(game=game, seat_count=seat_count, options=options)
    ladder = Ladder(slug=slug, name=name, game=game, seat_count=seat_count, options=options or {},
                    k_factor=k_factor, initial_rating=initial_rating, queue_size=queue_size, active=active)
    ladder.full_clean()
    with transaction.atomic():
        ladder.save()
        ladder_enter_ready_bots(ladder=ladder)
    return ladder


def ladder_validate(*, game: str, seat_count: int, options: dict | None) -> None:
    """Raise ValidationError (code ``unknown_game``, ``seat_count`` or ``options``) unless the game
    is registered, takes ``seat_count`` players and accepts ``options``. The admin form uses it too."""
    if game not in {g.id for g in list_games()}:
        raise ValidationError(f"Unknown game {game!r}.", code="unknown_game")
    info = get_game(game)
    if not info.min_players <= seat_count <= info.max_players:
        raise ValidationError(
            f"{game} takes {info.min_players}-{info.max_players} players, not {seat_count}.", code="seat_count")
    if not isinstance(options or {}, dict):
        raise ValidationError("Options must be a JSON object.", code="options")
    try:
        # Validated only: the ladder keeps the options as given (defaults may evolve).
        info.resolve_options(options or {}, seat_count)
    except InvalidOptions as exc:
        raise ValidationError(str(exc), code="options") from None


def ladder_enter_ready_bots(*, ladder: Ladder) -> list[Rating]:
    """Enter every ready bot of the ladder's game when the ladder is active (idempotent): every
    ready bot plays in every active ladder of its game. Call it after creating or re-opening one."""
    if not ladder.active:
        return []
    return [ladder_enter(ladder=ladder, bot=bot)
            for bot in Bot.objects.filter(game=ladder.game, active_version__status=BotVersion.Status.READY)]


def ladder_enter(*, ladder: Ladder, bot: Bot) -> Rating:
    """Enter ``bot`` in ``ladder`` (idempotent); it starts at the ladder's initial rating."""
    if bot.game != ladder.game:
        raise ValidationError(f"{bot.name} plays {bot.game}, not {ladder.game}.", code="wrong_game")
    rating, _ = Rating.objects.get_or_create(ladder=ladder, bot=bot, defaults={"elo": ladder.initial_rating})
    return rating


def ladder_enter_all(*, bot: Bot) -> list[Rating]:
    """Enter ``bot`` in every active ladder of its game."""
    return [ladder_enter(ladder=ladder, bot=bot) for ladder in Ladder.objects.filter(game=bot.game, active=True)]


def _standing(rating: Rating) -> Standing:
    return Standing(elo=rating.elo, games=rating.games, wins=rating.wins, draws=rating.draws,
                    losses=rating.losses, faults=rating.faults, score_sum=rating.score_sum,
                    score_sq_sum=rating.score_sq_sum)


def ratings_apply_match(*, match, seats: Sequence) -> list[RatingChange]:
    """Apply one recorded ladder match to the ratings (call inside the recording transaction).

    ``seats`` are the match's MatchSeat rows with score, rank and fault filled in. Ratings are
    locked with select_for_update (in id order, so concurrent matches cannot deadlock). Each
    change stores its bot's sequence number (its n-th change on the ladder): the order in which
    ``manage.py ratings_check`` replays them.
    """
    ladder = match.ladder
    bot_ids = [s.bot_version.bot_id for s in seats]
    for bot_id in bot_ids:  # a bot entered after the match was made still gets a row
        Rating.objects.get_or_create(ladder=ladder, bot_id=bot_id, defaults={"elo": ladder.initial_rating})
    locked = {r.bot_id: r for r in Rating.objects.select_for_update().filter(
        ladder=ladder, bot_id__in=bot_ids).order_by("id")}
    ratings = [locked[b] for b in bot_ids]
    now = timezone.now()
    before = [_standing(r) for r in ratings]
    after = standings_after_match(before, seat_results(seats), solo=ladder.is_solo, k_factor=ladder.k_factor)
    changes = []
    for rating, old, new in zip(ratings, before, after):
        for field in STANDING_FIELDS:
            setattr(rating, field, getattr(new, field))
        rating.last_played_at = now
        rating.save()
        changes.append(RatingChange(
            ladder=ladder, match=match, bot_id=rating.bot_id, sequence=new.games,
            before=shown_rating(old, solo=ladder.is_solo), after=shown_rating(new, solo=ladder.is_solo)))
    return RatingChange.objects.bulk_create(changes)


# --- matchmaking --------------------------------------------------------------------------

def matchmaking_choose(*, candidates: Sequence[tuple[int, float, int]], seats: int,
                       rng: random.Random, spread: float = 100.0) -> list[int] | None:
    """Pick ``seats`` distinct bot ids from ``(bot_id, rating, recent_games)``, in seat order.

    The first is a bot with the fewest recent games (ties at random); the others are the
    nearest in rating after adding Gaussian noise of ``spread`` points; the seat order is
    shuffled. None when there are fewer distinct bots than seats: a bot never meets itself.
    """
    unique = {c[0]: c for c in candidates}
    if len(unique) < seats:
        return None
    pool = list(unique.values())
    fewest = min(c[2] for c in pool)
    first = rng.choice(sorted(c for c in pool if c[2] == fewest))
    rest = sorted((c for c in pool if c[0] != first[0]))
    rest.sort(key=lambda c: abs(c[1] - first[1]) + abs(rng.gauss(0.0, spread)))
    chosen = [first[0]] + [c[0] for c in rest[:seats - 1]]
    rng.shuffle(chosen)
    return chosen


def _recent_games(ladder: Ladder, since) -> dict[int, int]:
    from arena.matches.models import MatchSeat

    rows = (MatchSeat.objects.filter(match__ladder=ladder, match__created_at__gte=since)
            .values("bot_version__bot_id").annotate(n=Count("id")))
    return {row["bot_version__bot_id"]: row["n"] for row in rows}


# What matchmaking reads of an entrant: its rating and what match_create checks of its bot and
# active version (never the archive, which can be MiBs per bot).
_ENTRANT_FIELDS = (
    "id", "ladder_id", "bot_id", "elo", "bot__id", "bot__name", "bot__game", "bot__active_version_id",
    "bot__active_version__id", "bot__active_version__bot_id", "bot__active_version__number",
    "bot__active_version__status",
)


def _entrants(ladder: Ladder) -> list[Rating]:
    """The ladder's playable entrants (active bots of its game with a ready version), archives left out."""
    entries = list(Rating.objects.filter(
        ladder=ladder, bot__is_active=True, bot__active_version__status=BotVersion.Status.READY,
        bot__game=ladder.game,  # a bot moved to another game in the admin would fail every fill
    ).select_related("bot__active_version").only(*_ENTRANT_FIELDS))
    for entry in entries:
        entry.bot.active_version.bot = entry.bot  # match_create reads version.bot: no query per seat
    return entries


def matchmaking_fill(*, ladder: Ladder, rng: random.Random | None = None) -> list:
    """Top up the ladder's queue to ``queue_size`` open matches; returns the matches created.

    The entrants, their recent games and the tables are read and chosen before the ladder is
    locked; under the lock only the open matches are counted and the new ones inserted. The lock is ``FOR NO KEY
    UPDATE``: it keeps two fillers of one ladder apart, while recording a result (whose rows
    reference the ladder and so take ``FOR KEY SHARE`` on it) never waits for it.
    """
    from arena.matches.models import Match
    from arena.matches.services import match_create, match_open_q

    rng = rng or random.SystemRandom()
    if not ladder.active:
        return []
    entries = _entrants(ladder)
    window = timedelta(seconds=getattr(settings, "MATCHMAKING_RECENT_SECONDS", 24 * 3600))
    recent = _recent_games(ladder, timezone.now() - window)
    by_bot = {r.bot_id: r for r in entries}
    open_matches = Match.objects.filter(match_open_q(), ladder=ladder)  # lost ones do not count
    tables = []  # chosen before locking, as many as are wanted now (counted again under the lock)
    for _ in range(max(0, ladder.queue_size - open_matches.count())):
        picked = matchmaking_choose(
            candidates=[(r.bot_id, r.elo if not ladder.is_solo else 0.0, recent.get(r.bot_id, 0)) for r in entries],
            seats=ladder.seat_count, rng=rng)
        if picked is None:
            break
        for b in picked:
            recent[b] = recent.get(b, 0) + 1
        tables.append(picked)
    created = []
    with transaction.atomic():
        Ladder.objects.select_for_update(no_key=True).filter(pk=ladder.pk).values_list("pk").first()
        locked_at = time.perf_counter()
        for picked in tables[:max(0, ladder.queue_size - open_matches.count())]:
            created.append(match_create(
                game=ladder.game, versions=[by_bot[b].bot.active_version for b in picked],
                options=ladder.options, ladder=ladder))
    log.debug("matchmaking %s: %d matches, ladder lock held %.1f ms", ladder.slug, len(created),
              (time.perf_counter() - locked_at) * 1000)
    return created


def matchmaking_tick(*, rng: random.Random | None = None) -> int:
    """Fill every active ladder whose game is registered; returns how many matches were created."""
    games = {g.id for g in list_games()}
    total = 0
    for ladder in Ladder.objects.filter(active=True).filter(Q(game__in=games)):
        try:
            total += len(matchmaking_fill(ladder=ladder, rng=rng))
        except ValidationError as exc:  # e.g. options the engine no longer takes: the others still play
            log.warning("matchmaking skipped ladder %s: %s", ladder.slug, " ".join(exc.messages))
    return total
