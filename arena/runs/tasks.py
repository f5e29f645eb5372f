"""The Celery tasks of queued work: play and record a match, smoke-test a version, recover lost
work, prune old data. Their registered names (``arena.run_match``, ``arena.smoke_test_version``,
``arena.requeue_stuck``, ``arena.retention_prune``) never change, so messages already queued survive
a deploy.

Tasks take ids, re-fetch rows, claim before working (a redelivered or duplicated message is
harmless), hold a lease while they work (``arena/jobs/leases.py``) and call one service to
record (``arena/runs/recording.py``, ``arena/runs/smoke.py``). A smoke test is one sandboxed match
per seat count (and options) of the ladders the version will enter (``arena.bots.models.SmokeTest``);
a killed worker's smoke test is run again by another, from the tests it had not finished.
"""

from __future__ import annotations

import functools
import logging
import traceback
from dataclasses import asdict

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings

from arena.bots.models import BotVersion, SmokeTest
from arena.jobs.connections import close_broken_connections, retrying_on_a_dropped_connection
from arena.jobs.lost_process import LeasedTask
from arena.jobs.scratch import scratch_folder, scratch_remove_stale_now_and_then
from arena.jobs.worker_names import worker_is_gone, worker_name
from arena.matches.models import Match
from arena.matches.seating import compressed_public_replay, seat_spec
from arena.matches.live import match_live_clear, match_live_watcher
from arena.matches.services import match_claim, match_hand_back, match_heartbeat, match_reclaim
from arena.matches.signals import match_finished
from arena.runs import notify
from arena.runs.builds import bot_version_build
from arena.runs.recording import match_record_failure, match_record_outcome
from arena.runs.recovery import recovery_sweep
from arena.runs.retention import retention_prune as prune
from arena.runs.smoke import (
    bot_version_claim_smoke_test,
    bot_version_judge_smoke_tests,
    bot_version_release_smoke_test,
    bot_version_smoke_heartbeat,
    smoke_test_claim,
    smoke_test_record_failure,
    smoke_test_record_outcome,
)
from workers.runner import SeatSpec
from workers.runner import run_match as play

log = logging.getLogger(__name__)

OPPONENT = "builtin:random"


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
    match = _claim(self, match_id)
    if match is None:
        return "skipped"
    worker, attempt = worker_name(self), match.attempts
    try:
        with match_heartbeat(match_id=match.pk, attempt=attempt, worker=worker) as heartbeat:
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
    return len(recovery_sweep().sent)


@shared_task(name="arena.retention_prune", soft_time_limit=3600, time_limit=3700)
def retention_prune() -> dict:
    """Apply the retention policy (scheduled only with ``RETENTION_ENABLED``; docs/retention.md).
    Idempotent: what is pruned stays pruned, and a second run finds nothing more."""
    report = prune(days=settings.RETENTION_DAYS, apply=True, archives=settings.RETENTION_ARCHIVES)
    log.info("retention: %s", report)
    return asdict(report)


@shared_task(name="arena.smoke_test_version", soft_time_limit=settings.MATCH_SOFT_TIME_LIMIT,
             time_limit=settings.MATCH_HARD_TIME_LIMIT, acks_late=True, reject_on_worker_lost=True,
             bind=True, base=LeasedTask,
             end_lease_of_lost_process="arena.runs.smoke:bot_version_end_smoke_lease_of_lost_process")
def smoke_test_version(self, version_id: int) -> str:
    """Play a pending version's smoke tests (its seat drawn at random, built-in bots in the others,
    on seeds drawn for it) and judge it; returns its status. A failed version's owner is told
    (arena/runs/notify.py) once the verdict committed."""
    status = _play_smoke_tests(self, version_id)
    if status == "failed":
        try:
            notify.after_version_judged(sender=None, version_id=version_id)
        except Exception as exc:  # telling the owner never undoes a verdict
            log.warning("could not notify the owner of version %s: %r", version_id, exc)
    return status


def _play_smoke_tests(self, version_id: int) -> str:
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
            # A compiled version is built first (once), inside the sandbox; a failed build fails it.
            built = bot_version_build(version_id=version.pk)
            if built.status != BotVersion.Status.PENDING:
                heartbeat.finishing()
                return built.status
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
