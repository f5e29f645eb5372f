"""The Celery tasks of queued work: play and record a match, smoke-test a version, recover lost
work, prune old data. Their registered names (``arena.run_match``, ``arena.smoke_test_version``,
``arena.requeue_stuck``, ``arena.retention_prune``) never change, so messages already queued survive
a deploy.

Tasks take ids, re-fetch rows, claim before working (a redelivered or duplicated message is
harmless), hold a lease while they work (``arena/jobs/leases.py``) and call one service to
record (``arena/runs/recording.py``). A smoke test is a group of matches of kind ``smoke``
(``arena/runs/smoke.py``), played by this one pipeline: its version is judged when the group's
last game is recorded; a compiled version is built by the first of its smoke matches to run.
"""

from __future__ import annotations

import logging
import traceback
from dataclasses import asdict

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import transaction

from arena.bots.models import BotVersion
from arena.jobs.connections import close_broken_connections, retrying_on_a_dropped_connection
from arena.jobs.lost_process import LeasedTask
from arena.jobs.scratch import scratch_folder, scratch_remove_stale_now_and_then
from arena.jobs.worker_names import worker_is_gone, worker_name
from arena.matches.models import Match
from arena.matches.seating import compressed_public_replay, seat_spec
from arena.matches.live import match_live_clear, match_live_watcher
from arena.matches.services import (
    MATCH_OPEN_STATUSES,
    match_claim,
    match_hand_back,
    match_heartbeat,
    match_reclaim,
)
from arena.matches.smoke import smoke_matches_withdraw
from arena.matches.signals import match_finished
from arena.runs.builds import bot_version_build
from arena.runs.recording import match_record_failure, match_record_outcome
from arena.runs.recovery import recovery_sweep
from arena.runs.retention import retention_prune as prune
from arena.runs.smoke import smoke_test_start, smoke_version_of_group
from workers.runner import run_match as play

log = logging.getLogger(__name__)


def _claim(task, match_id: int):
    """The match this message may run: claimed when queued; taken over when the broker redelivered
    the message of a worker that is gone."""
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
    for _receiver, result in match_finished.send_robust(sender=None, match_id=match_id):
        if isinstance(result, Exception):
            log.warning("a follower of match %s failed: %r", match_id, result)


@shared_task(name="arena.run_match", soft_time_limit=settings.MATCH_SOFT_TIME_LIMIT,
             time_limit=settings.MATCH_HARD_TIME_LIMIT, acks_late=True, reject_on_worker_lost=True,
             bind=True, base=LeasedTask,
             end_lease_of_lost_process="arena.matches.services:match_end_lease_of_lost_process")
def run_match(self, match_id: int) -> str:
    """Claim, play and record one match; a no-op when the match is not queued any more."""
    scratch_remove_stale_now_and_then()
    return _run(self, match_id)


def _built(match: Match) -> bool:
    """Build the version a smoke match tests, when it is of a compiled language and not built yet
    (once: its other smoke matches find it built); False when its build failed (the version is
    failed and its smoke matches withdrawn, this one included)."""
    version_id = smoke_version_of_group(group_id=match.group_id)
    if version_id is None:
        return True
    if bot_version_build(version_id=version_id).status != BotVersion.Status.FAILED:
        return True
    # Its own transaction, after the verdict's: the group, then its games (the recordings' order).
    with transaction.atomic():
        smoke_matches_withdraw(version_id=version_id)
    return False


def _run(self, match_id: int, stop_at_time_limit: bool = False) -> str:
    """Claim, play and record one match (the body of ``arena.run_match``); ``stop_at_time_limit``
    raises the soft time limit on, once the match's failure is recorded."""
    match = _claim(self, match_id)
    if match is None:
        return "skipped"
    worker, attempt = worker_name(self), match.attempts
    try:
        with match_heartbeat(match_id=match.pk, attempt=attempt, worker=worker) as heartbeat:
            if match.kind == Match.Kind.SMOKE and not _built(match):
                heartbeat.finishing()
                _announce_finished(match.pk)
                return Match.Status.FAILED
            with scratch_folder("match", match.pk) as tmp:
                seats = list(match.seats.select_related("bot_version__bot").order_by("seat"))
                specs = [seat_spec(s.bot_version, tmp) for s in seats]
                outcome = play(match.game, specs, match.seed, options=match.options or None,
                               on_step=match_live_watcher(match_id=match.pk, attempt=attempt)).to_dict()
            replay = compressed_public_replay(outcome.get("replay"))
            heartbeat.finishing()
            recorded = retrying_on_a_dropped_connection(lambda: match_record_outcome(
                match_id=match.pk, outcome=outcome, replay=replay, worker=worker))
        match_live_clear(match_id=match.pk)
        if not recorded:
            log.warning("match %s was already recorded: the play of attempt %s is discarded", match_id, attempt)
        else:
            _announce_finished(match.pk)
        return Match.Status.DONE
    except SoftTimeLimitExceeded:
        close_broken_connections()
        status = match_record_failure(match_id=match.pk, error="the match task hit its soft time limit",
                                      worker=worker, attempt=attempt)
        if stop_at_time_limit:
            raise
        return status
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
    return len(recovery_sweep().sent)


@shared_task(name="arena.retention_prune", soft_time_limit=3600, time_limit=3700)
def retention_prune() -> dict:
    """Apply the retention policy (scheduled only with ``RETENTION_ENABLED``; docs/retention.md).
    Idempotent: what is pruned stays pruned, and a second run finds nothing more."""
    report = prune(days=settings.RETENTION_DAYS, apply=True, archives=settings.RETENTION_ARCHIVES,
                   snapshot_days=settings.RETENTION_SNAPSHOT_DAYS)
    log.info("retention: %s", report)
    return asdict(report)


@shared_task(name="arena.smoke_test_version", soft_time_limit=settings.MATCH_SOFT_TIME_LIMIT,
             time_limit=settings.MATCH_HARD_TIME_LIMIT, acks_late=True, reject_on_worker_lost=True,
             bind=True, base=LeasedTask,
             end_lease_of_lost_process="arena.runs.smoke:smoke_end_lease_of_lost_process")
def smoke_test_version(self, version_id: int) -> str:
    """Start a pending version's smoke test (its group of smoke matches, planned once) and play
    here those of its games no other worker holds, each claimed, leased and recorded as
    ``arena.run_match`` does (their own messages then find them taken). Returns the version's
    status once they are played (``ready`` or ``failed`` when the last game judged it), or
    ``skipped`` when the version was not pending (a redelivered or late message)."""
    scratch_remove_stale_now_and_then()
    group = retrying_on_a_dropped_connection(lambda: smoke_test_start(version_id=version_id))
    if group is None:
        return "skipped"
    games = list(Match.objects.filter(group_id=group.pk, status__in=MATCH_OPEN_STATUSES)
                 .order_by("group_index").values_list("pk", flat=True))
    try:
        for match_id in games:
            _run(self, match_id, stop_at_time_limit=True)
    except SoftTimeLimitExceeded:
        log.warning("the smoke test of version %s hit its time limit: its games left go to other workers", version_id)
    return BotVersion.objects.filter(pk=version_id).values_list("status", flat=True).first() or ""
