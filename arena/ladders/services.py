"""Ladder services: creating ladders, entering bots, applying ratings, matchmaking."""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Sequence
from datetime import timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, Max, Q
from django.utils import timezone

from arena.bots.models import Bot, BotVersion
from arena.ladders.models import Ladder, Rating, RatingChange, recommended_settings
from arena.matches.models import Match, MatchGroup, MatchSeat
from arena.matches.services import match_create, match_group_create, match_open_q
from arena.matches.timing import TIMING_FIELDS
from competition.ratings.standing import (
    STANDING_FIELDS,
    Standing,
    seat_results,
    shown_rating,
    standings_after_group,
    standings_after_match,
)
from competition.rotation import MAX_ALL_ORDERS_SEATS
from engines import InvalidOptions, get_game, list_games

log = logging.getLogger(__name__)


def ladder_create(*, slug: str, name: str, game: str, seat_count: int, options: dict | None = None,
                  k_factor: float | None = None, initial_rating: float = 1200.0, queue_size: int = 2,
                  rotation: str | None = None, matchmaking: str | None = None, batch_model: str | None = None,
                  active: bool = True) -> Ladder:
    """Create a ladder and enter every ready bot of its game. ``k_factor``, ``rotation``,
    ``matchmaking`` and ``batch_model`` left out take ``recommended_settings`` for the game and
    seat count.

    ValidationError for an unknown game, a seat count it does not take or bad options.
    """
    ladder_validate(game=game, seat_count=seat_count, options=options)
    recommended = recommended_settings(game=game, seat_count=seat_count)
    k_factor = recommended["k_factor"] if k_factor is None else k_factor
    rotation = recommended["rotation"] if rotation is None else rotation
    matchmaking = recommended["matchmaking"] if matchmaking is None else matchmaking
    batch_model = recommended["batch_model"] if batch_model is None else batch_model
    ladder = Ladder(slug=slug, name=name, game=game, seat_count=seat_count, options=options or {},
                    k_factor=k_factor, initial_rating=initial_rating, queue_size=queue_size, rotation=rotation,
                    matchmaking=matchmaking, batch_model=batch_model, active=active)
    ladder.full_clean()
    ladder_validate_rotation(rotation=rotation, seat_count=seat_count)
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


def ladder_validate_rotation(*, rotation: str, seat_count: int) -> None:
    """Raise ValidationError (code ``rotation``) for all seat orders beyond the seats they allow."""
    if rotation == Ladder.Rotation.ALL and seat_count > MAX_ALL_ORDERS_SEATS:
        raise ValidationError(f"All seat orders are offered up to {MAX_ALL_ORDERS_SEATS} seats, not {seat_count}.",
                              code="rotation")


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


def _locked_ratings(ladder: Ladder, bot_ids: Sequence[int]) -> tuple[list[Rating], dict[int, int]]:
    """The bots' ratings locked (select_for_update in id order, so concurrent results cannot
    deadlock), created first for a bot entered after its match was made; and each bot's last
    change number on the ladder (0 before the first)."""
    for bot_id in bot_ids:
        Rating.objects.get_or_create(ladder=ladder, bot_id=bot_id, defaults={"elo": ladder.initial_rating})
    locked = {r.bot_id: r for r in Rating.objects.select_for_update().filter(
        ladder=ladder, bot_id__in=bot_ids).order_by("id")}
    last = dict(RatingChange.objects.filter(ladder=ladder, bot_id__in=bot_ids).values("bot_id")
                .annotate(n=Max("sequence")).values_list("bot_id", "n"))
    return [locked[b] for b in bot_ids], last


def _store(ladder: Ladder, match, ratings: Sequence[Rating], before: Sequence[Standing],
           after: Sequence[Standing], games: Sequence[Sequence], last: dict[int, int]) -> list[RatingChange]:
    """Write the new standings and one rating change per bot (numbered after its last one);
    ``games[g][i]``: bot i's seat in game g (its rank feeds the leaderboard's counters)."""
    now = timezone.now()
    changes = []
    for i, (rating, old, new) in enumerate(zip(ratings, before, after)):
        for field in STANDING_FIELDS:
            setattr(rating, field, getattr(new, field))
        for game in games:  # the win rate and mean rank: fault-adjusted finishing positions, 1 best
            rating.rank_sum += int(game[i].rank or 0)
            rating.first_places += int(game[i].rank == 1)
        rating.last_played_at = now
        rating.save()
        changes.append(RatingChange(
            ladder=ladder, match=match, bot_id=rating.bot_id, sequence=last.get(rating.bot_id, 0) + 1,
            before=shown_rating(old, solo=ladder.is_solo), after=shown_rating(new, solo=ladder.is_solo)))
    return RatingChange.objects.bulk_create(changes)


def ratings_apply_match(*, match, seats: Sequence) -> list[RatingChange]:
    """Apply one recorded lone ladder match to the ratings (call inside the recording transaction).

    ``seats`` are the match's MatchSeat rows with score, rank and fault filled in. Each change
    stores its bot's sequence number (its n-th change on the ladder): the order in which
    ``manage.py ratings_check`` replays them. Games of a rotation group go through
    :func:`ratings_apply_group` instead.
    """
    ladder = match.ladder
    ratings, last = _locked_ratings(ladder, [s.bot_version.bot_id for s in seats])
    before = [_standing(r) for r in ratings]
    after = standings_after_match(before, seat_results(seats), solo=ladder.is_solo, k_factor=ladder.k_factor)
    return _store(ladder, match, ratings, before, after, [list(seats)], last)


def group_rated_games(group_id: int) -> list:
    """The games a rotation group is rated on: its done, rated games, in group order."""
    return list(Match.objects.filter(group_id=group_id, status=Match.Status.DONE, rated=True)
                .defer("replay").order_by("group_index"))


def group_games_by_bot(matches: Sequence, seats_of: dict[int, Sequence]) -> tuple[list[int], list[list]]:
    """The group's table (bot ids, in the first game's seat order) and ``games[g][i]``: bot i's
    seat in game g. Raises ValueError when the games do not seat the same bots."""
    table = [s.bot_version.bot_id for s in seats_of[matches[0].pk]]
    games = []
    for match in matches:
        by_bot = {s.bot_version.bot_id: s for s in seats_of[match.pk]}
        if set(by_bot) != set(table) or len(by_bot) != len(table):
            raise ValueError(f"match {match.pk} does not seat the table of its group")
        games.append([by_bot[b] for b in table])
    return table, games


def ratings_apply_group(*, group_id: int) -> list[RatingChange]:
    """Rate a rotation group as a unit once no game of it is open (call inside the transaction that
    recorded or failed its last open game); the rating changes, or [] when it was rated already
    or still has a game queued or running.

    The group row is locked first, so two last games recorded at once are serialised: the second
    sees the first committed and finds nothing open or the group claimed. ``rated_at`` is claimed
    with a conditional update: the group is rated exactly once. It is rated on the games that
    finished (done); failed games (attempt limit) count for nothing, and a group with no finished
    game is claimed without a change. Each bot's Elo moves once, on its mean pairwise result over
    the games (``standings_after_group``); the changes hang on the group's last game.
    """
    group = MatchGroup.objects.select_for_update().filter(pk=group_id).first()
    if group is None or group.rated_at is not None:
        return []
    games_of_group = Match.objects.filter(group_id=group_id)
    if games_of_group.filter(status__in=[Match.Status.QUEUED, Match.Status.RUNNING]).exists():
        return []
    if MatchGroup.objects.filter(pk=group_id, rated_at__isnull=True).update(rated_at=timezone.now()) != 1:
        return []
    matches = [m for m in group_rated_games(group_id) if m.ladder_id]
    if not matches:
        return []
    ladder = Ladder.objects.get(pk=matches[0].ladder_id)
    seats_of: dict[int, list] = {}
    for seat in MatchSeat.objects.filter(match__in=matches).select_related("bot_version").defer(
            "log", "fault_message", *TIMING_FIELDS).order_by("match_id", "seat"):
        seats_of.setdefault(seat.match_id, []).append(seat)
    table, games = group_games_by_bot(matches, seats_of)
    ratings, last = _locked_ratings(ladder, table)
    before = [_standing(r) for r in ratings]
    after = standings_after_group(before, [seat_results(game) for game in games], solo=ladder.is_solo,
                                  k_factor=ladder.k_factor)
    last_game = max(matches, key=lambda m: (m.finished_at, m.pk))
    return _store(ladder, last_game, ratings, before, after, games, last)


# --- matchmaking --------------------------------------------------------------------------

def matchmaking_choose(*, candidates: Sequence[tuple[int, float, int]], seats: int,
                       rng: random.Random, spread: float = 100.0,
                       mode: str = Ladder.Matchmaking.WINDOW) -> list[int] | None:
    """Pick ``seats`` distinct bot ids from ``(bot_id, rating, recent_games)``, in seat order.

    The first is a bot with the fewest recent games (ties at random), so newcomers get games
    first in either mode. ``window``: the others are the nearest in rating after adding Gaussian
    noise of ``spread`` points; ``random``: the others are drawn uniformly (random tables tell more
    per game about who is stronger, issue 13). The seat order is shuffled. None when there are
    fewer distinct bots than seats: a bot never meets itself.
    """
    unique = {c[0]: c for c in candidates}
    if len(unique) < seats:
        return None
    pool = list(unique.values())
    fewest = min(c[2] for c in pool)
    first = rng.choice(sorted(c for c in pool if c[2] == fewest))
    rest = sorted(c for c in pool if c[0] != first[0])
    if mode == Ladder.Matchmaking.RANDOM:
        others = rng.sample(rest, seats - 1)
    else:
        rest.sort(key=lambda c: abs(c[1] - first[1]) + abs(rng.gauss(0.0, spread)))
        others = rest[:seats - 1]
    chosen = [first[0]] + [c[0] for c in others]
    rng.shuffle(chosen)
    return chosen


def _recent_games(ladder: Ladder, since) -> dict[int, int]:
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
        bot__active_version__paused_at__isnull=True,  # paused after repeated faults
    ).select_related("bot__active_version").only(*_ENTRANT_FIELDS))
    for entry in entries:
        entry.bot.active_version.bot = entry.bot  # match_create reads version.bot: no query per seat
    return entries


def _open_tables(open_matches) -> int:
    """Tables holding a place in the queue: each rotation group with an open game, each open lone match."""
    return (open_matches.filter(group__isnull=True).count()
            + open_matches.filter(group__isnull=False).values("group_id").distinct().count())


def matchmaking_fill(*, ladder: Ladder, rng: random.Random | None = None) -> list:
    """Top up the ladder's queue to ``queue_size`` open tables; returns the matches created.

    A table is a rotation group (``ladder.rotation``: one seed in every seat rotation, or every
    seat order; rated as a unit once all its games are recorded) or, with rotation off and on solo
    ladders, a lone match. It holds its place while one of its games is queued or running.

    The entrants, their recent games and the tables are read and chosen before the ladder is
    locked; under the lock only the open tables are counted and the new ones inserted. The lock is ``FOR NO KEY
    UPDATE``: it keeps two fillers of one ladder apart, while recording a result (whose rows
    reference the ladder and so take ``FOR KEY SHARE`` on it) never waits for it.
    """
    rng = rng or random.SystemRandom()
    if not ladder.active:
        return []
    entries = _entrants(ladder)
    window = timedelta(seconds=getattr(settings, "MATCHMAKING_RECENT_SECONDS", 24 * 3600))
    recent = _recent_games(ladder, timezone.now() - window)
    by_bot = {r.bot_id: r for r in entries}
    open_matches = Match.objects.filter(match_open_q(), ladder=ladder)  # lost ones do not count
    grouped = ladder.rotation != Ladder.Rotation.OFF and not ladder.is_solo
    tables = []  # chosen before locking, as many as are wanted now (counted again under the lock)
    for _ in range(max(0, ladder.queue_size - _open_tables(open_matches))):
        picked = matchmaking_choose(
            candidates=[(r.bot_id, r.elo if not ladder.is_solo else 0.0, recent.get(r.bot_id, 0)) for r in entries],
            seats=ladder.seat_count, rng=rng, mode=ladder.matchmaking)
        if picked is None:
            break
        for b in picked:  # a group is seat_count games for each of its bots
            recent[b] = recent.get(b, 0) + (ladder.seat_count if grouped else 1)
        tables.append(picked)
    created = []
    with transaction.atomic():
        Ladder.objects.select_for_update(no_key=True).filter(pk=ladder.pk).values_list("pk").first()
        locked_at = time.perf_counter()
        for picked in tables[:max(0, ladder.queue_size - _open_tables(open_matches))]:
            versions = [by_bot[b].bot.active_version for b in picked]
            if grouped:
                created.extend(match_group_create(
                    game=ladder.game, versions=versions, options=ladder.options, ladder=ladder,
                    all_orders=ladder.rotation == Ladder.Rotation.ALL))
            else:
                created.append(match_create(game=ladder.game, versions=versions, options=ladder.options,
                                            ladder=ladder))
    log.debug("matchmaking %s: %d matches, ladder lock held %.1f ms", ladder.slug, len(created),
              (time.perf_counter() - locked_at) * 1000)
    return created


def matchmaking_tick(*, rng: random.Random | None = None) -> int:
    """Fill every active ladder whose game is registered; returns how many matches were created.

    None while a smoke test's game waits in the queue: an author waits for the verdict on an upload,
    so ladder games yield to it (those queued already still play, at most ``queue_size`` a ladder)."""
    if Match.objects.filter(kind=Match.Kind.SMOKE, status=Match.Status.QUEUED).exists():
        return 0
    games = {g.id for g in list_games()}
    total = 0
    for ladder in Ladder.objects.filter(active=True).filter(Q(game__in=games)):
        try:
            total += len(matchmaking_fill(ladder=ladder, rng=rng))
        except ValidationError as exc:  # e.g. options the engine no longer takes: the others still play
            log.warning("matchmaking skipped ladder %s: %s", ladder.slug, " ".join(exc.messages))
    return total
