"""Celery tasks of bots: the smoke test a new version passes before it plays anyone.

A smoke test is one sandboxed match per seat count (and options) of the ladders the version will
enter (``arena.bots.models.SmokeTest``). Like a match, the version's smoke test is claimed first
(a duplicate message does nothing), holds a lease while it runs (a killed worker's smoke test is
run again by another, from the tests it had not finished) and is judged once.
"""

from __future__ import annotations

import functools
import logging
import traceback

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings

from arena.jobs.connections import close_broken_connections, retrying_on_a_dropped_connection
from arena.jobs.lost_process import LeasedTask
from arena.jobs.scratch import scratch_folder, scratch_remove_stale_now_and_then
from arena.jobs.worker_names import worker_name
from arena.matches.seating import compressed_public_replay, seat_spec

log = logging.getLogger(__name__)

OPPONENT = "builtin:random"


@shared_task(name="arena.smoke_test_version", soft_time_limit=settings.MATCH_SOFT_TIME_LIMIT,
             time_limit=settings.MATCH_HARD_TIME_LIMIT, acks_late=True, reject_on_worker_lost=True,
             bind=True, base=LeasedTask,
             end_lease_of_lost_process="arena.bots.services:bot_version_end_smoke_lease_of_lost_process")
def smoke_test_version(self, version_id: int) -> str:
    """Play a pending version's smoke tests (its seat drawn at random, built-in bots in the others,
    on seeds drawn for it) and judge it; returns its status."""
    from arena.bots.models import BotVersion, SmokeTest
    from arena.bots.services import (
        bot_version_claim_smoke_test, bot_version_judge_smoke_tests, bot_version_release_smoke_test,
        bot_version_smoke_heartbeat, smoke_test_claim, smoke_test_record_failure, smoke_test_record_outcome)
    from workers.runner import SeatSpec
    from workers.runner import run_match as play

    scratch_remove_stale_now_and_then()
    worker = worker_name(self)
    version = bot_version_claim_smoke_test(version_id=version_id, worker=worker)
    if version is None:
        return "skipped"
    game, attempt = version.bot.game, version.smoke_attempts
    queued = list(version.smoke_tests.filter(status=SmokeTest.Status.QUEUED).order_by("index")
                  .values_list("pk", flat=True))
    test = None
    try:
        with bot_version_smoke_heartbeat(version_id=version.pk, attempt=attempt) as heartbeat:
            for test_id in queued:
                test = smoke_test_claim(test_id=test_id, worker=worker)
                if test is None:
                    continue  # skipped after an earlier failure
                with scratch_folder("smoke", version.pk) as tmp:
                    full = BotVersion.objects.select_related("bot").get(pk=version.pk)  # with its archive
                    seats = [SeatSpec(bot=OPPONENT, name="random", version="builtin") for _ in range(test.seat_count)]
                    seats[test.seat] = seat_spec(full, tmp)
                    outcome = play(game, seats, test.seed, options=test.options or None).to_dict()
                recorded = retrying_on_a_dropped_connection(functools.partial(
                    smoke_test_record_outcome, test_id=test.pk, outcome=outcome,
                    replay=compressed_public_replay(outcome.get("replay"))))
                test = None
                if recorded.status == SmokeTest.Status.FAILED:
                    break
            heartbeat.finishing()
            return retrying_on_a_dropped_connection(
                lambda: bot_version_judge_smoke_tests(version_id=version_id)).status
    except SoftTimeLimitExceeded:
        close_broken_connections()
        if test is not None:
            smoke_test_record_failure(test_id=test.pk, error="The smoke test hit its time limit.", final=True)
        return bot_version_judge_smoke_tests(version_id=version_id).status
    except (SystemExit, KeyboardInterrupt):
        # The worker is shutting down: the smoke test goes back to the queue, the attempt does not count.
        close_broken_connections()
        SmokeTest.objects.filter(status=SmokeTest.Status.RUNNING, version_id=version_id).update(
            status=SmokeTest.Status.QUEUED)
        bot_version_release_smoke_test(version_id=version_id, attempt=attempt, counts=False)
        raise
    except Exception as exc:
        log.exception("smoke test of version %s could not run", version_id)
        close_broken_connections()  # a dropped connection must not also lose the failure
        if test is not None:
            recorded = retrying_on_a_dropped_connection(
                lambda: smoke_test_record_failure(test_id=test.pk, error=traceback.format_exc()))
            if recorded.status == SmokeTest.Status.FAILED:  # out of attempts: the verdict
                return bot_version_judge_smoke_tests(version_id=version_id).status
        return retrying_on_a_dropped_connection(functools.partial(
            bot_version_release_smoke_test, version_id=version_id, attempt=attempt,
            log=f"The smoke test could not run: {exc}"))
