"""Celery tasks of bots: the smoke test a new version passes before it plays anyone."""

from __future__ import annotations

import logging
import tempfile
from pathlib import Path

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings

from arena.matches.seating import seat_spec

log = logging.getLogger(__name__)

SMOKE_TEST_SEED = 20261129


def smoke_test_seats(game_id: str) -> int:
    """Seats of a smoke test: two when the game allows it (the bot against a built-in), else its minimum."""
    from engines import get_game

    game = get_game(game_id)
    return max(game.min_players, min(2, game.max_players))


@shared_task(name="arena.smoke_test_version", soft_time_limit=settings.MATCH_SOFT_TIME_LIMIT,
             time_limit=settings.MATCH_HARD_TIME_LIMIT, acks_late=True, reject_on_worker_lost=True)
def smoke_test_version(version_id: int) -> str:
    """Play one sandboxed match of a pending version (seat 0) against built-in bots and judge it."""
    from arena.bots.services import bot_version_claim_smoke_test, bot_version_record_smoke_test
    from workers.runner import SeatSpec
    from workers.runner import run_match as play

    version = bot_version_claim_smoke_test(version_id=version_id)
    if version is None:
        return "skipped"
    game = version.bot.game
    try:
        with tempfile.TemporaryDirectory(prefix=f"arena-smoke-{version.pk}-") as tmp:
            seats = [seat_spec(version, Path(tmp))]
            seats += [SeatSpec(bot="builtin:random", name="random", version="builtin")
                      for _ in range(smoke_test_seats(game) - 1)]
            outcome = play(game, seats, SMOKE_TEST_SEED).to_dict()
    except SoftTimeLimitExceeded:
        return bot_version_record_smoke_test(
            version_id=version_id, outcome=None, log="The smoke test hit its time limit.").status
    except Exception as exc:
        log.exception("smoke test of version %s could not run", version_id)
        if version.smoke_attempts < settings.MATCH_MAX_ATTEMPTS:
            raise  # infrastructure trouble: the periodic task sends it again
        return bot_version_record_smoke_test(
            version_id=version_id, outcome=None, log=f"The smoke test could not run: {exc}").status
    return bot_version_record_smoke_test(version_id=version_id, outcome=outcome).status
