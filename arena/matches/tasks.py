"""Celery tasks of matches: play and record one match; recover lost work.

Tasks take ids, re-fetch rows, claim before working (a redelivered or duplicated message is
harmless), hold a lease while they work (``arena/jobs/leases.py``) and call one service to
record.
"""

from __future__ import annotations

import logging
import traceback

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings

from arena.jobs.connections import close_broken_connections, retrying_on_a_dropped_connection
from arena.jobs.lost_process import LeasedTask
from arena.jobs.scratch import scratch_folder, scratch_remove_stale_now_and_then
from arena.jobs.worker_names import worker_is_gone, worker_name
from arena.matches.seating import compressed_public_replay, seat_spec

log = logging.getLogger(__name__)


def _claim(task, match_id: int):
    """The match this message may run: claimed when queued; taken over when the broker redelivered
    the message of a worker that is gone."""
    from arena.matches.models import Match
    from arena.matches.services import match_claim, match_reclaim

    worker = worker_name(task)
    match = match_claim(match_id=match_id, worker=worker)
    if match is None and (task.request.delivery_info or {}).get("redelivered"):
        holder = Match.objects.filter(pk=match_id, status=Match.Status.RUNNING).values_list(
            "worker", flat=True).first()
        gone = holder if holder and worker_is_gone(holder, node=task.request.hostname) else None
        match = match_reclaim(match_id=match_id, worker=worker, gone=gone)
    return match


def _announce_finished(match_id: int) -> None:
    """Tell followers (tournaments) that a match has ended, after its recording committed; a follower's
    error never turns a recorded match into a failed one."""
    from arena.matches.signals import match_finished

    for _receiver, result in match_finished.send_robust(sender=None, match_id=match_id):
        if isinstance(result, Exception):
            log.warning("a follower of match %s failed: %r", match_id, result)


@shared_task(name="arena.run_match", soft_time_limit=settings.MATCH_SOFT_TIME_LIMIT,
             time_limit=settings.MATCH_HARD_TIME_LIMIT, acks_late=True, reject_on_worker_lost=True,
             bind=True, base=LeasedTask,
             end_lease_of_lost_process="arena.matches.services:match_end_lease_of_lost_process")
def run_match(self, match_id: int) -> str:
    """Claim, play and record one match; a no-op when the match is not queued any more."""
    from arena.matches.models import Match
    from arena.matches.services import (
        match_hand_back, match_heartbeat, match_record_failure, match_record_outcome)
    from workers.runner import run_match as play

    scratch_remove_stale_now_and_then()
    match = _claim(self, match_id)
    if match is None:
        return "skipped"
    worker, attempt = worker_name(self), match.attempts
    try:
        with match_heartbeat(match_id=match.pk, attempt=attempt, worker=worker) as heartbeat:
            with scratch_folder("match", match.pk) as tmp:
                seats = list(match.seats.select_related("bot_version__bot").order_by("seat"))
                specs = [seat_spec(s.bot_version, tmp) for s in seats]
                outcome = play(match.game, specs, match.seed, options=match.options or None).to_dict()
            replay = compressed_public_replay(outcome.get("replay"))
            heartbeat.finishing()
            recorded = retrying_on_a_dropped_connection(lambda: match_record_outcome(
                match_id=match.pk, outcome=outcome, replay=replay, worker=worker))
        if not recorded:
            log.warning("match %s was already recorded: the play of attempt %s is discarded", match_id, attempt)
        else:
            _announce_finished(match.pk)
        return Match.Status.DONE
    except SoftTimeLimitExceeded:
        close_broken_connections()
        return match_record_failure(match_id=match.pk, error="the match task hit its soft time limit",
                                    worker=worker, attempt=attempt)
    except (SystemExit, KeyboardInterrupt):
        # The worker is shutting down (soft shutdown cancels running tasks): hand the match back.
        close_broken_connections()
        if match_hand_back(match_id=match.pk, attempt=attempt, worker=worker):
            log.warning("match %s handed back to the queue: the worker is shutting down", match_id)
        raise
    except Exception:
        log.exception("match %s could not be played", match_id)
        close_broken_connections()  # a dropped connection must not also lose the failure
        status = retrying_on_a_dropped_connection(lambda: match_record_failure(
            match_id=match.pk, error=traceback.format_exc(), worker=worker, attempt=attempt))
        if status == Match.Status.FAILED:
            _announce_finished(match.pk)
        return status


@shared_task(name="arena.requeue_stuck", soft_time_limit=60, time_limit=90)
def requeue_stuck() -> int:
    """The recovery sweep: re-queue the work of lost workers, send what has no message in flight,
    remove stale scratch folders (``arena/runs/recovery.py``). Returns the messages sent."""
    from arena.runs.recovery import recovery_sweep

    return len(recovery_sweep().sent)


@shared_task(name="arena.retention_prune", soft_time_limit=3600, time_limit=3700)
def retention_prune() -> dict:
    """Apply the retention policy (scheduled only with ``RETENTION_ENABLED``; docs/retention.md).
    Idempotent: what is pruned stays pruned, and a second run finds nothing more."""
    from dataclasses import asdict

    from arena.matches.retention import retention_prune as prune

    report = prune(days=settings.RETENTION_DAYS, apply=True, archives=settings.RETENTION_ARCHIVES)
    log.info("retention: %s", report)
    return asdict(report)
