"""Celery tasks of matches: play and record one match; recover stuck and lost ones.

Tasks take ids, re-fetch rows, claim before working (a redelivered message is harmless) and
call one service to record.
"""

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


@shared_task(name="arena.run_match", soft_time_limit=settings.MATCH_SOFT_TIME_LIMIT,
             time_limit=settings.MATCH_HARD_TIME_LIMIT, acks_late=True, reject_on_worker_lost=True,
             bind=True)
def run_match(self, match_id: int) -> str:
    """Claim, play and record one match; a no-op when the match is not queued any more."""
    from arena.matches.models import Match
    from arena.matches.services import match_claim, match_reclaim, match_record_failure, match_record_outcome
    from workers.runner import run_match as play

    worker = worker_name(self)
    match = match_claim(match_id=match_id, worker=worker)
    if match is None and (self.request.delivery_info or {}).get("redelivered"):
        match = match_reclaim(match_id=match_id, worker=worker)  # its worker died mid-match
    if match is None:
        return "skipped"
    try:
        seats = list(match.seats.select_related("bot_version__bot").order_by("seat"))
        with tempfile.TemporaryDirectory(prefix=f"arena-match-{match.pk}-") as tmp:
            specs = [seat_spec(s.bot_version, Path(tmp)) for s in seats]
            outcome = play(match.game, specs, match.seed, options=match.options or None).to_dict()
        replay = compressed_public_replay(outcome.get("replay"))
        match_record_outcome(match_id=match.pk, outcome=outcome, replay=replay, worker=worker)
        return Match.Status.DONE
    except SoftTimeLimitExceeded:
        return match_record_failure(match_id=match.pk, error="the match task hit its soft time limit",
                                    worker=worker)
    except Exception:
        log.exception("match %s could not be played", match_id)
        return match_record_failure(match_id=match.pk, error=traceback.format_exc(), worker=worker)


@shared_task(name="arena.requeue_stuck", soft_time_limit=60, time_limit=90)
def requeue_stuck() -> int:
    """Re-queue matches stuck in running, re-send lost ones, retry pending smoke tests."""
    from arena.bots.services import bot_version_pending_stale
    from arena.bots.tasks import smoke_test_version
    from arena.matches.services import match_requeue_stuck

    sent = match_requeue_stuck()
    for version_id in bot_version_pending_stale():
        smoke_test_version.delay(version_id)
    return len(sent)
