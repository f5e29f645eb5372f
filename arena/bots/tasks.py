"""Celery tasks of bots: the smoke test a new version passes before it plays anyone."""

from __future__ import annotations

import logging
import tempfile
import traceback
from pathlib import Path

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings

from arena.matches.seating import compressed_public_replay, seat_spec, worker_name

log = logging.getLogger(__name__)

OPPONENT = "builtin:random"


@shared_task(name="arena.smoke_test_version", soft_time_limit=settings.MATCH_SOFT_TIME_LIMIT,
             time_limit=settings.MATCH_HARD_TIME_LIMIT, acks_late=True, reject_on_worker_lost=True,
             bind=True)
def smoke_test_version(self, version_id: int) -> str:
    """Play a pending version's smoke tests (one sandboxed match per seat count of the ladders it
    will enter, against built-in bots, on seeds drawn for it) and judge it; returns its status."""
    from arena.bots.models import SmokeTest
    from arena.bots.services import (bot_version_claim_smoke_test, bot_version_judge_smoke_tests,
                                     smoke_test_claim, smoke_test_record_failure, smoke_test_record_outcome)
    from workers.runner import SeatSpec
    from workers.runner import run_match as play

    version = bot_version_claim_smoke_test(version_id=version_id)
    if version is None:
        return "skipped"
    worker = worker_name(self)
    game = version.bot.game
    queued = list(version.smoke_tests.filter(status=SmokeTest.Status.QUEUED).order_by("index")
                  .values_list("pk", flat=True))
    for test_id in queued:
        test = smoke_test_claim(test_id=test_id, worker=worker)
        if test is None:
            continue  # skipped after an earlier failure, or another worker has it
        try:
            with tempfile.TemporaryDirectory(prefix=f"arena-smoke-{version.pk}-{test.index}-") as tmp:
                from arena.bots.models import BotVersion

                full = BotVersion.objects.select_related("bot").get(pk=version.pk)  # with its archive
                seats = [SeatSpec(bot=OPPONENT, name="random", version="builtin") for _ in range(test.seat_count)]
                seats[test.seat] = seat_spec(full, Path(tmp))
                outcome = play(game, seats, test.seed, options=test.options or None).to_dict()
            smoke_test_record_outcome(test_id=test.pk, outcome=outcome,
                                      replay=compressed_public_replay(outcome.get("replay")))
        except SoftTimeLimitExceeded:
            smoke_test_record_failure(test_id=test.pk, error="The smoke test hit its time limit.", final=True)
            break
        except Exception:
            log.exception("smoke test %s of version %s could not run", test.pk, version_id)
            test = smoke_test_record_failure(test_id=test.pk, error=traceback.format_exc())
            if test.status == SmokeTest.Status.QUEUED:
                raise  # infrastructure trouble: the periodic task sends the version again
    return bot_version_judge_smoke_tests(version_id=version_id).status
