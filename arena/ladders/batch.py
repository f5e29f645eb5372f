"""Storing the batch rating of each ladder: every rated result read from the database, fitted by
``competition.ratings.batch`` (pure: ``fit_scores`` on score margins or ``fit`` on ranks, the
ladder's ``batch_model``), written on the ratings.

The fit is order-independent, so it is redone from all results rather than updated: a ladder is
refitted when a rating change newer than the last fit exists (``Ladder.batch_fitted_through``) or
its model changed since (``Ladder.batch_fitted_model``), and skipped otherwise, so the periodic
task is cheap and idempotent. A unit of the fit is what the live Elo rated as one: a rotation group
(its done, rated games) or a lone match. Seats are read without their logs; a faulted seat is
ranked below every seat that did not fault (as Elo does), and its score counts as at least one
point below the lowest score of the seats that did not fault.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from arena.ladders.models import Ladder, Rating, RatingChange
from arena.matches.models import Match, MatchSeat
from competition.ratings.batch import fit
from competition.ratings.batch_scores import fit_scores

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


# How far below the lowest seat that did not fault a faulted seat's score counts at least: one
# point, the smallest margin of every game's scores, so that a fault loses to every clean seat
# (as it does in Elo and the rank model) instead of drawing with the last of them.
FAULT_MARGIN = 1.0


def fault_adjusted_scores(seats: Sequence[tuple[int, float, bool]]) -> ScoredGame:
    """``(bot, score, faulted)`` of one game as ``(bot, score)`` with every faulted seat's score
    lowered to ``FAULT_MARGIN`` below the lowest score of the seats that did not fault (when it was
    not lower already): a fault never earns a margin, and always loses one. When every seat
    faulted, the scores stay as they are."""
    clean = [score for _, score, faulted in seats if not faulted]
    ceiling = min(clean) - FAULT_MARGIN if clean else None
    return [(bot, min(score, ceiling) if faulted and ceiling is not None else score) for bot, score, faulted in seats]


def _rated_units(ladder: Ladder) -> list[list[list[tuple[int, int, float | None, bool]]]]:
    """Every rated result of ``ladder`` as fit units (a rated rotation group's done games, or a
    lone rated match), each game as its seats' ``(bot, rank, score, faulted)``. One query."""
    rows = (MatchSeat.objects.filter(match__ladder=ladder, match__status=Match.Status.DONE, match__rated=True,
                                     rank__isnull=False)
            .exclude(match__group__isnull=False, match__group__rated_at__isnull=True)  # a group still playing
            .order_by("match_id", "seat")
            .values_list("match_id", "match__group_id", "bot_version__bot_id", "rank", "score", "fault_kind"))
    games: dict[int, list[tuple[int, int, float | None, bool]]] = {}
    unit_of: dict[int, tuple[str, int]] = {}
    for match_id, group_id, bot_id, rank, score, fault_kind in rows:
        games.setdefault(match_id, []).append((bot_id, rank, score, bool(fault_kind)))
        unit_of[match_id] = ("group", group_id) if group_id else ("match", match_id)
    units: dict[tuple[str, int], list] = {}
    for match_id, seats in games.items():
        units.setdefault(unit_of[match_id], []).append(seats)
    return [units[key] for key in sorted(units)]


def ladder_rated_groups(*, ladder: Ladder) -> list[Group]:
    """Every rated result of ``ladder`` as fit units: a rotation group that was rated (its done,
    rated games) or a lone rated match, each game as ``(bot, fault-adjusted rank)``. One query."""
    return [[fault_adjusted_ranks([(bot, rank, faulted) for bot, rank, _, faulted in game]) for game in unit]
            for unit in _rated_units(ladder)]


def ladder_scored_groups(*, ladder: Ladder) -> list[ScoredGroup]:
    """The same units with each game as ``(bot, fault-adjusted score)``. A game with a seat
    without a score is left out (a unit left with no game goes too). One query."""
    groups = []
    for unit in _rated_units(ladder):
        games = [fault_adjusted_scores([(bot, score, faulted) for bot, _, score, faulted in game]) for game in unit
                 if all(score is not None for _, _, score, _ in game)]
        if games:
            groups.append(games)
    return groups


def _fit(model: str) -> Callable:
    return fit_scores if model == Ladder.BatchModel.SCORES else fit


def batch_refit(*, ladder: Ladder, force: bool = False, fit: Callable | None = None) -> bool:
    """Refit ``ladder``'s batch ratings when results arrived or its ``batch_model`` changed since
    the last fit (always with ``force``); True when it was refitted. ``fit`` (tests) replaces the
    model's fit function and is given the model's groups. Solo ladders have no batch rating (their
    mean score is already order-independent). Bots outside the fit (no rated result yet) are cleared."""
    if ladder.is_solo:
        return False
    newest = RatingChange.objects.filter(ladder=ladder).aggregate(n=Max("id"))["n"]
    model = ladder.batch_model
    if not force and (newest is None or (newest == ladder.batch_fitted_through
                                         and model == ladder.batch_fitted_model)):
        return False
    scored = model == Ladder.BatchModel.SCORES
    groups = ladder_scored_groups(ladder=ladder) if scored else ladder_rated_groups(ladder=ladder)
    fitted = (fit or _fit(model))(groups) if groups else {}
    now = timezone.now()
    with transaction.atomic():
        ratings = list(Rating.objects.filter(ladder=ladder).only(
            "id", "bot_id", "batch_rating", "batch_low", "batch_high", "batch_games", "batch_provisional",
            "batch_fitted_at"))
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
        Ladder.objects.filter(pk=ladder.pk).update(batch_fitted_through=newest, batch_fitted_model=model,
                                                   batch_fitted_at=now)
    ladder.batch_fitted_through, ladder.batch_fitted_model, ladder.batch_fitted_at = newest, model, now
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
