"""Storing the batch rating of each ladder: every rated result read from the database, fitted by
``competition.ratings`` (pure: on score margins the official fit, ``official.official_read`` then
``official.fit_play`` (``batch_scores.fit_scores`` with calibrated intervals), which reads each
seat's play, score - luck, with the game's transform and the ladder's seat effects where they pay;
on ranks ``batch.fit``; the ladder's
``batch_model``), written on the ratings.

The fit is order-independent, so it is redone from all results rather than updated: a ladder is
refitted when a rating change newer than the last fit exists (``Ladder.batch_fitted_through``), its
model changed since (``Ladder.batch_fitted_model``) or, on score margins, the luck of one of its
matches was measured after the last fit (a game read on raw scores until then is read on play
from the next fit), and skipped otherwise, so the periodic task is cheap and idempotent. A unit of the fit is what the live Elo rated as one: a rotation group
(its done, rated games) or a lone match. Seats are read without their logs; a faulted seat is
ranked below every seat that did not fault (as Elo does), and its value counts as at least one
point below the lowest value of the seats that did not fault (``official.fault_capped``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from django.conf import settings
from django.db import transaction
from django.db.models import Max, OuterRef, Subquery
from django.utils import timezone

from arena.ladders.models import Ladder, Rating, RatingChange, RatingSnapshot
from arena.matches.models import Match, MatchSeat
from competition.ratings.batch import fit
from competition.ratings.official import OfficialRead, OfficialUnit, fit_play, official_read

log = logging.getLogger(__name__)

Game = list[tuple[int, int]]
Group = list[Game]
ScoredGame = list[tuple[int, float]]
ScoredGroup = list[ScoredGame]


def fault_adjusted_ranks(seats: Sequence[tuple[int, int, bool]]) -> Game:
    """``(bot, rank, faulted)`` of one game as ``(bot, rank)`` with every faulted seat ranked below
    every seat that did not fault; equal (fault, rank) keys share a rank (dense, 1 best)."""
    keys = sorted({(faulted, rank) for _, rank, faulted in seats})
    position = {key: i + 1 for i, key in enumerate(keys)}
    return [(bot, position[(faulted, rank)]) for bot, rank, faulted in seats]


def _rated_units(ladder: Ladder) -> list[list[list[tuple[int, int, int, float | None, float | None, bool]]]]:
    """Every rated result of ``ladder`` as fit units (a rated rotation group's done games, or a
    lone rated match), each game as its seats' ``(bot, seat, rank, score, luck, faulted)``. One query."""
    rows = (MatchSeat.objects.filter(match__ladder=ladder, match__status=Match.Status.DONE, match__rated=True,
                                     rank__isnull=False)
            .exclude(match__group__isnull=False, match__group__rated_at__isnull=True)  # a group still playing
            .order_by("match_id", "seat")
            .values_list("match_id", "match__group_id", "bot_version__bot_id", "seat", "rank", "score", "luck",
                         "fault_kind"))
    games: dict[int, list[tuple[int, int, int, float | None, float | None, bool]]] = {}
    unit_of: dict[int, tuple[str, int]] = {}
    for match_id, group_id, bot_id, seat, rank, score, luck, fault_kind in rows:
        games.setdefault(match_id, []).append((bot_id, seat, rank, score, luck, bool(fault_kind)))
        unit_of[match_id] = ("group", group_id) if group_id else ("match", match_id)
    units: dict[tuple[str, int], list] = {}
    for match_id, seats in games.items():
        units.setdefault(unit_of[match_id], []).append(seats)
    return [units[key] for key in sorted(units)]


def ladder_rated_groups(*, ladder: Ladder) -> list[Group]:
    """Every rated result of ``ladder`` as fit units: a rotation group that was rated (its done,
    rated games) or a lone rated match, each game as ``(bot, fault-adjusted rank)``. One query."""
    return [[fault_adjusted_ranks([(bot, rank, faulted) for bot, _, rank, _, _, faulted in game]) for game in unit]
            for unit in _rated_units(ladder)]


def ladder_official_units(*, ladder: Ladder) -> list[OfficialUnit]:
    """The same units with each game as ``(bot, seat, score, luck or None, faulted)``, what the
    official fit reads. A game with a seat without a score is left out (a unit left with no game
    goes too). One query."""
    units = []
    for unit in _rated_units(ladder):
        games = [[(bot, seat, float(score), luck, faulted) for bot, seat, _, score, luck, faulted in game]
                 for game in unit if all(score is not None for _, _, _, score, _, _ in game)]
        if games:
            units.append(games)
    return units


def ladder_official_read(*, ladder: Ladder) -> OfficialRead:
    """The ladder's results as the official fit reads them (``official.official_read``): play where
    every seat's luck is measured, raw scores elsewhere, the game's transform, faults capped, the
    seat effects taken out where they pay."""
    return official_read(ladder_official_units(ladder=ladder), game=ladder.game)


def ladder_scored_groups(*, ladder: Ladder) -> list[ScoredGroup]:
    """The groups the score model is fitted on: ``ladder_official_read(...).groups``."""
    return ladder_official_read(ladder=ladder).groups


def _fit(model: str) -> Callable:
    return fit_play if model == Ladder.BatchModel.SCORES else fit


# A refit keeps a bot's rating in its history (RatingSnapshot) when it, or an end of its interval,
# moved by at least this many points since the last kept one: every refit shifts every rating a
# little (the scale follows the ladder's noise), and the chart needs no such crumbs.
SNAPSHOT_STEP = 2.0


def _snapshots(ratings, at) -> list[RatingSnapshot]:
    """The snapshots worth keeping of freshly fitted ``ratings`` (annotated with their last kept
    snapshot's ``last_value``, ``last_low``, ``last_high``)."""
    kept = []
    for rating in ratings:
        if rating.batch_rating is None or rating.batch_low is None or rating.batch_high is None:
            continue
        now = (rating.batch_rating, rating.batch_low, rating.batch_high)
        before = (rating.last_value, rating.last_low, rating.last_high)
        if before[0] is None or any(abs(a - b) >= SNAPSHOT_STEP for a, b in zip(now, before)):
            kept.append(RatingSnapshot(rating_id=rating.pk, fitted_at=at, value=now[0], low=now[1], high=now[2],
                                       games=rating.batch_games))
    return kept


def _luck_arrived(ladder: Ladder) -> bool:
    """Whether the luck of one of the ladder's matches was measured after its last fit."""
    return ladder.batch_fitted_at is not None and Match.objects.filter(
        ladder=ladder, luck_measured_at__gt=ladder.batch_fitted_at).exists()


def batch_refit(*, ladder: Ladder, force: bool = False, fit: Callable | None = None) -> bool:
    """Refit ``ladder``'s batch ratings when results arrived, its ``batch_model`` changed or (on
    score margins) luck was measured since the last fit (always with ``force``); True when it was
    refitted. ``fit`` (tests) replaces the model's fit function and is given the model's groups.
    Solo ladders have no batch rating (their mean score is already order-independent). Bots outside
    the fit (no rated result yet) are cleared. Each refit keeps a snapshot of every fitted bot's
    rating (``RatingSnapshot``: the official rating's history)."""
    if ladder.is_solo:
        return False
    newest = RatingChange.objects.filter(ladder=ladder).aggregate(n=Max("id"))["n"]
    model = ladder.batch_model
    scored = model == Ladder.BatchModel.SCORES
    if not force and (newest is None or (newest == ladder.batch_fitted_through and model == ladder.batch_fitted_model
                                         and not (scored and _luck_arrived(ladder)))):
        return False
    now = timezone.now()  # before reading: luck measured while the fit runs is read by the next one
    read = ladder_official_read(ladder=ladder) if scored else None
    groups = read.groups if read is not None else ladder_rated_groups(ladder=ladder)
    fitted = (fit or _fit(model))(groups) if groups else {}
    with transaction.atomic():
        last = RatingSnapshot.objects.filter(rating=OuterRef("pk")).order_by("-fitted_at")
        ratings = list(Rating.objects.filter(ladder=ladder).only(
            "id", "bot_id", "batch_rating", "batch_low", "batch_high", "batch_games", "batch_provisional",
            "batch_fitted_at").annotate(**{f"last_{field}": Subquery(last.values(field)[:1])
                                           for field in ("value", "low", "high")}))
        for rating in ratings:
            result = fitted.get(rating.bot_id)
            rating.batch_rating = result.rating if result else None
            rating.batch_low = result.low if result else None
            rating.batch_high = result.high if result else None
            rating.batch_games = result.games if result else 0
            # A bootstrap over a handful of groups can give a zero-width interval (every resample
            # alike): under BATCH_PROVISIONAL_GAMES games the mark stays, whatever the interval.
            rating.batch_provisional = (result.provisional or result.games < settings.BATCH_PROVISIONAL_GAMES
                                        if result else True)
            rating.batch_fitted_at = now
        Rating.objects.bulk_update(ratings, ["batch_rating", "batch_low", "batch_high", "batch_games",
                                             "batch_provisional", "batch_fitted_at"], batch_size=500)
        RatingSnapshot.objects.bulk_create(_snapshots(ratings, now), batch_size=500)
        how = {"batch_play_games": read.adjusted_games if read else 0,
               "batch_raw_games": read.raw_games if read else 0,
               "batch_transform": read.transform if read else "",
               "batch_seat_effects": next(iter(read.seat_effects.values()), []) if read else []}
        Ladder.objects.filter(pk=ladder.pk).update(batch_fitted_through=newest, batch_fitted_model=model,
                                                   batch_fitted_at=now, **how)
    ladder.batch_fitted_through, ladder.batch_fitted_model, ladder.batch_fitted_at = newest, model, now
    for field, value in how.items():
        setattr(ladder, field, value)
    log.info("batch ratings of %s refitted on %s: %d units, %d bots", ladder.slug, model, len(groups), len(fitted))
    return True


def batch_refit_all(*, force: bool = False) -> list[str]:
    """Refit every ladder with new results (each on its own; one that fails is logged and the
    others still go). Returns the slugs refitted."""
    refitted = []
    for ladder in Ladder.objects.filter(seat_count__gt=1).order_by("id"):
        try:
            if batch_refit(ladder=ladder, force=force):
                refitted.append(ladder.slug)
        except Exception:  # one ladder's bad data must not stop the others' fits
            log.exception("batch refit of ladder %s failed", ladder.slug)
    return refitted
