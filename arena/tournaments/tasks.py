"""Celery tasks of tournaments: the beat tick, and advancing as soon as a tournament game ends."""

from __future__ import annotations

import logging

from celery import shared_task

from arena.tournaments.services import tournament_advance as advance
from arena.tournaments.services import tournament_of_match
from arena.tournaments.services import tournaments_tick as tick

log = logging.getLogger(__name__)


@shared_task(name="arena.tournaments_tick", soft_time_limit=60, time_limit=90)
def tournaments_tick() -> dict:
    """Start the tournaments that are due and advance the running ones whose round has finished."""
    return tick()


@shared_task(name="arena.tournament_advance", soft_time_limit=60, time_limit=90)
def tournament_advance(tournament_id: int) -> str:
    """Pair the next round (or finish) if the current round has finished; harmless when it has not."""
    return advance(tournament_id=tournament_id)


def advance_after_match(match_id: int) -> None:
    """Called once a tournament game is recorded or failed for good (after its transaction): ask for
    the tournament to advance now rather than at the next tick. A broker that is down only delays
    it to the tick."""
    tournament_id = tournament_of_match(match_id=match_id)
    if tournament_id is None:
        return
    try:
        tournament_advance.delay(tournament_id)
    except Exception:  # the beat tick advances it anyway
        log.warning("could not send tournament_advance(%s); the tick will advance it", tournament_id,
                    exc_info=True)
