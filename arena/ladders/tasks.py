"""Celery tasks of ladders, run by the beat scheduler: matchmaking and the batch rating refit."""

from __future__ import annotations

from celery import shared_task

from arena.ladders.batch import batch_refit_all
from arena.ladders.services import matchmaking_tick as tick


@shared_task(name="arena.matchmaking_tick", soft_time_limit=60, time_limit=90)
def matchmaking_tick() -> int:
    """Top up the match queue of every active ladder."""
    return tick()


@shared_task(name="arena.batch_refit", soft_time_limit=600, time_limit=660)
def batch_refit() -> list[str]:
    """Refit the batch ratings of every ladder that has new rated results (a no-op otherwise)."""
    return batch_refit_all()
