"""Recording a match: its facts, its ratings and the pausing of faulting bots, in one transaction.

The matches app stores facts only (``match_store_outcome``, ``match_store_failure``,
``match_group_settle``). What follows from them across apps happens here, inside the same
transaction: the ladder's ratings (``ratings_apply_group`` once per rotation group, or
``ratings_apply_match`` for a lone match), settling the rotation group (its seed and replays become
public; a smoke group's version is judged) and pausing a version whose latest ladder matches faulted
too often (``arena.runs.autopause``).
"""

from __future__ import annotations

from django.db import DataError, transaction
from django.db.models import Count, Exists, F, OuterRef, Subquery

from arena.ladders.services import ratings_apply_group, ratings_apply_match
from arena.matches.models import Match, MatchGroup
from arena.matches.services import (
    MATCH_OPEN_STATUSES,
    match_group_settle,
    match_store_failure,
    match_store_outcome,
    outcome_with_seats_faulted,
    seats_whose_output_is_refused,
)
from arena.matches.smoke import smoke_group_lock
from arena.runs.autopause import bot_version_pause_if_faulting
from arena.runs.smoke import smoke_after_game
from workers.storable import storable


def match_record_outcome(*, match_id: int, outcome: dict, replay: bytes | None = None, worker: str = "") -> bool:
    """Record a played match in one transaction: seats, replay, status done, rating changes, and
    the pausing of a ladder bot that faulted too often.

    Idempotent: returns False and changes nothing when the match is already done or failed
    (a redelivered task, or a re-queued match finishing twice). ``outcome`` is the runner's
    ``to_dict()``; ``replay`` its compressed replay.

    Whatever the bots wrote is made storable first (``workers.storable``). Should the database
    still refuse a seat's output, that seat is faulted (``protocol``) and the match recorded
    without it: a bot's bytes never void a match. Only a failure no seat explains propagates
    (the task then re-runs the match).
    """
    outcome = storable(outcome)
    try:
        return _record(match_id=match_id, outcome=outcome, replay=replay, worker=worker)
    except DataError:
        unstorable = seats_whose_output_is_refused(outcome)
        if not unstorable:
            raise
        outcome = outcome_with_seats_faulted(outcome, unstorable)
        return _record(match_id=match_id, outcome=outcome, replay=replay, worker=worker)


def _record(*, match_id: int, outcome: dict, replay: bytes | None, worker: str) -> bool:
    with transaction.atomic():
        smoke_group_lock(match_id=match_id)
        stored = match_store_outcome(match_id=match_id, outcome=outcome, replay=replay, worker=worker)
        if stored is None:
            return False
        match, seats = stored
        if match.rated and match.ladder_id:
            if match.group_id:
                ratings_apply_group(group_id=match.group_id)
            else:
                ratings_apply_match(match=match, seats=seats)
        _settle(match)
        if match.kind == Match.Kind.LADDER:
            for seat in seats:
                if seat.faulted:
                    bot_version_pause_if_faulting(version_id=seat.bot_version_id)
        return True


def match_record_failure(*, match_id: int, error: str, worker: str = "", attempt: int | None = None) -> str:
    """A run that could not finish for reasons outside the bots: re-queue it, or fail it after
    ``MATCH_MAX_ATTEMPTS`` (rating and settling its group when it was the group's last open game).
    Returns the new status (unchanged when the match is already finished).

    With ``attempt``, only while that attempt (of ``worker``) still holds the match: a worker whose
    lease was taken over (it was thought dead) cannot re-queue a match another worker now runs.
    """
    with transaction.atomic():
        smoke_group_lock(match_id=match_id)
        status, failed = match_store_failure(match_id=match_id, error=error, worker=worker, attempt=attempt)
        if failed is not None:
            _rate_group_of_failed(failed)
        return status


def _rate_group_of_failed(match: Match) -> None:
    """A failed game may have been the last open one of its rotation group: rate the group then,
    on the games that finished (inside the transaction that failed it)."""
    if match.rated and match.ladder_id and match.group_id:
        ratings_apply_group(group_id=match.group_id)
    _settle(match)


def _settle(match: Match) -> None:
    """Settle the match's group when its last game ended; a smoke group's version is judged then,
    or at its first game not passed (``arena.runs.smoke.smoke_after_game``), in the same transaction."""
    match_group_settle(match=match)
    if match.kind == Match.Kind.SMOKE:
        smoke_after_game(match=match)


def match_groups_settle(*, limit: int = 500) -> list[int]:
    """Settle the rotation groups left with no game queued or running but not marked finished
    (their last open game was failed by the recovery sweep, or a recording crashed between its
    commits): each in its own transaction, rated first when it is a ladder group (exactly once:
    ``ratings_apply_group``). Returns the group ids settled. Reads only unfinished groups (a
    partial index)."""
    open_games = Match.objects.filter(group_id=OuterRef("pk"), status__in=MATCH_OPEN_STATUSES)
    present = (Match.objects.filter(group_id=OuterRef("pk")).order_by().values("group_id")
               .annotate(n=Count("id")).values("n"))
    # A group missing games (withdrawn to be re-created: a paused tournament's) is not finished.
    ids = list(MatchGroup.objects.filter(finished_at__isnull=True).exclude(Exists(open_games))
               .annotate(present=Subquery(present)).filter(present__gte=F("size"))
               .order_by("pk").values_list("pk", flat=True)[:limit])
    for group_id in ids:
        with transaction.atomic():
            game = (Match.objects.filter(group_id=group_id).order_by("-rated", "group_index")
                    .only("id", "kind", "rated", "ladder_id", "group_id").first())
            if game is not None:
                _rate_group_of_failed(game)
    return ids
