"""Celery tasks of bots: the smoke test a new version passes before it plays anyone.

Like a match, a smoke test is claimed first (a duplicate message does nothing), holds a lease
while it runs (a killed worker's smoke test is run again by another) and is judged once.
"""

from __future__ import annotations

import logging

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings

from arena.matches.connections import close_broken_connections, retrying_on_a_dropped_connection
from arena.matches.scratch import scratch_folder, scratch_remove_stale_now_and_then
from arena.matches.seating import seat_spec, worker_name

log = logging.getLogger(__name__)

SMOKE_TEST_SEED = 20261129


def smoke_test_seats(game_id: str) -> int:
    """Seats of a smoke test: two when the game allows it (the bot against a built-in), else its minimum."""
    from engines import get_game

    game = get_game(game_id)
    return max(game.min_players, min(2, game.max_players))


@shared_task(name="arena.smoke_test_version", soft_time_limit=settings.MATCH_SOFT_TIME_LIMIT,
             time_limit=settings.MATCH_HARD_TIME_LIMIT, acks_late=True, reject_on_worker_lost=True,
             bind=True)
def smoke_test_version(self, version_id: int) -> str:
    """Play one sandboxed match of a pending version (seat 0) against built-in bots and judge it."""
    from arena.bots.services import (
        bot_version_claim_smoke_test, bot_version_record_smoke_test, bot_version_release_smoke_test,
        bot_version_smoke_heartbeat)
    from workers.runner import SeatSpec
    from workers.runner import run_match as play

    scratch_remove_stale_now_and_then()
    version = bot_version_claim_smoke_test(version_id=version_id, worker=worker_name(self))
    if version is None:
        return "skipped"
    game, attempt = version.bot.game, version.smoke_attempts
    try:
        with bot_version_smoke_heartbeat(version_id=version.pk, attempt=attempt):
            with scratch_folder("smoke", version.pk) as tmp:
                seats = [seat_spec(version, tmp)]
                seats += [SeatSpec(bot="builtin:random", name="random", version="builtin")
                          for _ in range(smoke_test_seats(game) - 1)]
                outcome = play(game, seats, SMOKE_TEST_SEED).to_dict()
            return retrying_on_a_dropped_connection(
                lambda: bot_version_record_smoke_test(version_id=version_id, outcome=outcome)).status
    except SoftTimeLimitExceeded:
        close_broken_connections()
        return bot_version_record_smoke_test(
            version_id=version_id, outcome=None, log="The smoke test hit its time limit.").status
    except (SystemExit, KeyboardInterrupt):
        # The worker is shutting down: the smoke test goes back to the queue, the attempt does not count.
        close_broken_connections()
        bot_version_release_smoke_test(version_id=version_id, attempt=attempt, counts=False)
        raise
    except Exception as exc:
        log.exception("smoke test of version %s could not run", version_id)
        close_broken_connections()  # a dropped connection must not also lose the failure
        return retrying_on_a_dropped_connection(lambda: bot_version_release_smoke_test(
            version_id=version_id, attempt=attempt, log=f"The smoke test could not run: {exc}"))
