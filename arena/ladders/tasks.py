"""Celery tasks of ladders: matchmaking, run by the beat scheduler."""

from __future__ import annotations

from celery import shared_task


@shared_task(name="arena.matchmaking_tick", soft_time_limit=60, time_limit=90)
def matchmaking_tick() -> int:
    """Top up the match queue of every active ladder."""
    from arena.ladders.services import matchmaking_tick as tick

    return tick()
