"""Smoke tests and activation: how a bot version becomes active and enters the ladders.

A pending version is smoke-tested (``arena.smoke_test_version``, ``arena/runs/tasks.py``): one
sandboxed match per seat count (and options) of the active ladders of its game, its seat and seed
drawn on the server and shown to nobody before the verdict. Like a match, the smoke test is claimed
first (a duplicate message does nothing), holds a lease while it runs and is judged once; a ready
version becomes its bot's active version and enters every active ladder of its game. A built-in
bot's version needs no smoke test (``bot_builtin_ensure``).

It spans bots (the version), ladders (what to test, what to enter) and matches (the public form of
an outcome), so it lives above them. The one service that starts a version's smoke test is
``arena.bots.services.bot_version_send_smoke_test_on_commit`` (an upload calls it; a build step
would call it once the version is built).
"""

from __future__ import annotations

import json
import logging
import secrets

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from arena.bots.models import Bot, BotVersion, SmokeTest
from arena.bots.services import bot_check_game, bot_version_send_smoke_test_on_commit
from arena.jobs.leases import Heartbeat, lease_until
from arena.ladders.models import Ladder
from arena.ladders.services import ladder_enter_all
from arena.matches.models import MAX_SEED
from arena.matches.seating import public_outcome
from engines import get_game
from workers.storable import storable, storable_text

log = logging.getLogger(__name__)


def bot_builtin_ensure(*, owner: AbstractBaseUser, game: str, builtin: str, name: str | None = None) -> Bot:
    """The bot that plays ``builtin:NAME`` of ``game`` (created with a ready version if missing),
    entered in every active ladder of the game."""
    bot_check_game(game=game)
    if builtin not in get_game(game).bots:
        raise ValidationError(f"{game} has no built-in bot {builtin!r}.", code="unknown_builtin")
    name = name or f"{game}-{builtin}".replace("_", "-")
    with transaction.atomic():
        bot, _ = Bot.objects.get_or_create(
            name=name, defaults={"owner": owner, "game": game, "builtin": builtin,
                                 "description": f"The built-in {builtin!r} bot of {game}."})
        if bot.active_version_id is None:
            version = BotVersion.objects.create(
                bot=bot, number=1, kind=BotVersion.Kind.BUILTIN, filename=f"builtin:{builtin}",
                status=BotVersion.Status.READY, validated_at=timezone.now(),
                validation_log="Built-in bot: no smoke test needed.")
            bot.active_version = version
            bot.save(update_fields=["active_version"])
            ladder_enter_all(bot=bot)
    return bot


def bot_version_claim_smoke_test(*, version_id: int, worker: str = "", now=None) -> BotVersion | None:
    """Start a pending version's smoke test: count the attempt and take its lease. None when it is
    not pending (already judged) or another worker holds a live lease on it (a duplicate message).

    The first start plans its matches (``smoke_test_plan``), each with its own random seed and
    seat: drawn here, on the server, and shown to nobody before the smoke test has ended (a fixed
    or public seed would let a bot recognise its test). A later start happens only once the lease
    is free (the previous worker released it or is gone): tests it left running go back to the queue.
    """
    now = now or timezone.now()
    free = Q(smoke_lease_expires_at__isnull=True) | Q(smoke_lease_expires_at__lt=now)
    with transaction.atomic():
        claimed = BotVersion.objects.filter(free, pk=version_id, status=BotVersion.Status.PENDING).update(
            smoke_attempts=F("smoke_attempts") + 1, smoke_lease_expires_at=lease_until(now),
            smoke_worker=worker[:200])
        if claimed != 1:
            return None
        version = BotVersion.objects.select_related("bot").get(pk=version_id)
        if not version.smoke_tests.exists():
            SmokeTest.objects.bulk_create([
                SmokeTest(version=version, index=i, seat_count=seats, options=options,
                          seat=secrets.randbelow(seats), seed=secrets.randbelow(MAX_SEED + 1))
                for i, (seats, options) in enumerate(smoke_test_plan(game=version.bot.game))])
        else:
            version.smoke_tests.filter(status=SmokeTest.Status.RUNNING).update(status=SmokeTest.Status.QUEUED)
        return version


def _smoke_held(version_id: int, attempt: int):
    return BotVersion.objects.filter(pk=version_id, status=BotVersion.Status.PENDING, smoke_attempts=attempt,
                                     smoke_lease_expires_at__isnull=False)


def bot_version_smoke_heartbeat(*, version_id: int, attempt: int) -> Heartbeat:
    """The heartbeat that renews a smoke test's lease while attempt ``attempt`` runs it."""
    return Heartbeat(_smoke_held(version_id, attempt), "smoke_lease_expires_at",
                     label=f"smoke test of version {version_id} attempt {attempt}",
                     deadline=settings.MATCH_HARD_TIME_LIMIT)


def bot_version_end_smoke_lease_of_lost_process(version_id: int, *, worker: str) -> bool:
    """End the lease of a smoke test now: its worker process ``worker`` died under it, so whoever
    gets the message back runs it at once. False when that process no longer held it."""
    return bool(BotVersion.objects.filter(
        pk=version_id, status=BotVersion.Status.PENDING, smoke_worker=worker[:200],
        smoke_lease_expires_at__isnull=False).update(smoke_lease_expires_at=timezone.now()))


def bot_version_release_smoke_test(*, version_id: int, attempt: int, log: str = "",
                                   counts: bool = True) -> str:
    """A smoke test that could not run for reasons outside the bot: back to the queue (sent after
    commit), or failed with ``log`` when ``counts`` and it is out of attempts. ``counts=False``
    (its worker is shutting down) gives the attempt back. Returns the version's status."""
    with transaction.atomic():
        version = _smoke_held(version_id, attempt).select_for_update().defer("archive").first()
        if version is None:
            current = BotVersion.objects.filter(pk=version_id).values_list("status", flat=True).first()
            return current or ""
        if counts and version.smoke_attempts >= settings.MATCH_MAX_ATTEMPTS:
            version.status = BotVersion.Status.FAILED
            version.validated_at = timezone.now()
            version.validation_log = (log or "The smoke test could not run.")[:65536]
            version.smoke_tests.filter(status__in=[SmokeTest.Status.QUEUED, SmokeTest.Status.RUNNING]).update(
                status=SmokeTest.Status.SKIPPED, finished_at=timezone.now())
        elif not counts:
            version.smoke_attempts -= 1
        version.smoke_lease_expires_at = None
        version.smoke_sent_at, version.smoke_sends = None, 0
        version.save(update_fields=["status", "validated_at", "validation_log", "smoke_attempts",
                                    "smoke_lease_expires_at", "smoke_sent_at", "smoke_sends"])
        if version.status == BotVersion.Status.PENDING:
            bot_version_send_smoke_test_on_commit(version.pk)
        return version.status


# --- smoke tests: the planned matches -----------------------------------------------------

def _clean_text(text: str, limit: int = 65536) -> str:
    """Text a bot controls, safe to store anywhere (``workers.storable``: NUL shown as U+2400), capped."""
    return storable_text(text or "")[:limit]


def smoke_test_plan(*, game: str) -> list[tuple[int, dict]]:
    """What a new version of a ``game`` bot is smoke-tested at: ``(seat_count, options)`` of every
    active ladder of the game, each pair once, fewest seats first. A game without an active
    ladder gets one two-seat test (or its minimum), so a version is always tested before it plays."""
    seen, plan = set(), []
    for ladder in Ladder.objects.filter(game=game, active=True).order_by("seat_count", "id"):
        options = ladder.options or {}
        key = (ladder.seat_count, json.dumps(options, sort_keys=True))
        if key not in seen:
            seen.add(key)
            plan.append((ladder.seat_count, options))
    if not plan:
        info = get_game(game)
        plan.append((max(info.min_players, min(2, info.max_players)), {}))
    return plan


def smoke_test_claim(*, test_id: int, worker: str) -> SmokeTest | None:
    """Move a queued smoke test to running for ``worker``; None when someone else has it or it ended."""
    claimed = SmokeTest.objects.filter(pk=test_id, status=SmokeTest.Status.QUEUED).update(
        status=SmokeTest.Status.RUNNING, worker=worker[:200], started_at=timezone.now(),
        attempts=F("attempts") + 1)
    return SmokeTest.objects.defer("replay").get(pk=test_id) if claimed == 1 else None


def smoke_test_record_outcome(*, test_id: int, outcome: dict, replay: bytes | None = None) -> SmokeTest:
    """Record a played smoke test once: passed when the version's seat played without a fault,
    else failed (and the version's tests not played yet are skipped: one failure decides)."""
    outcome = storable(outcome)  # the bot's bytes never block the verdict
    with transaction.atomic():
        test = SmokeTest.objects.select_for_update().defer("replay").get(pk=test_id)
        if test.is_finished:
            return test
        fault = next((f for f in outcome.get("faults", []) if f.get("seat") == test.seat), None)
        logs = outcome.get("logs") or []
        test.status = SmokeTest.Status.FAILED if fault else SmokeTest.Status.PASSED
        test.fault_kind = (fault or {}).get("kind", "")[:20]
        test.fault_step = (fault or {}).get("step")
        test.fault_message = _clean_text((fault or {}).get("message") or "")
        test.log = _clean_text(logs[test.seat] if test.seat < len(logs) else "")
        test.outcome = public_outcome(outcome)
        test.replay = replay
        test.error = ""
        test.finished_at = timezone.now()
        test.save()
        if fault:
            _skip_remaining(test)
        return test


def smoke_test_record_failure(*, test_id: int, error: str, final: bool = False) -> SmokeTest:
    """A smoke test that could not be played (not the bot's doing): queued again, or failed when
    ``final`` (its time limit) or after ``MATCH_MAX_ATTEMPTS`` tries."""
    with transaction.atomic():
        test = SmokeTest.objects.select_for_update().defer("replay").get(pk=test_id)
        if test.is_finished:
            return test
        test.error = _clean_text(error)
        if final or test.attempts >= settings.MATCH_MAX_ATTEMPTS:
            test.status = SmokeTest.Status.FAILED
            test.finished_at = timezone.now()
            _skip_remaining(test)
        else:
            test.status = SmokeTest.Status.QUEUED
        test.save(update_fields=["status", "error", "finished_at"])
        return test


def _skip_remaining(test: SmokeTest) -> None:
    SmokeTest.objects.filter(version_id=test.version_id, status=SmokeTest.Status.QUEUED).update(
        status=SmokeTest.Status.SKIPPED, finished_at=timezone.now())


def _smoke_test_line(test: SmokeTest, game: str) -> str:
    where = f"{test.seat_count} seat{'s' if test.seat_count != 1 else ''}" + (
        f", options {json.dumps(test.options, sort_keys=True)}" if test.options else "")
    if test.status == SmokeTest.Status.PASSED:
        return (f"Passed at {where}: played a full {game} match from seat {test.seat} "
                f"(seed {test.seed}) without a fault.")
    if test.status == SmokeTest.Status.SKIPPED:
        return f"Not played at {where}: an earlier test failed."
    if test.fault_kind:
        return (f"Failed at {where} (seat {test.seat}, seed {test.seed}): fault ({test.fault_kind}) "
                f"at step {test.fault_step}: {test.fault_message}")
    reason = (test.error.strip().splitlines() or ["no reason recorded"])[-1]
    return f"Failed at {where}: the smoke test could not be played: {reason}"


def bot_version_judge_smoke_tests(*, version_id: int) -> BotVersion:
    """Judge a pending version once every smoke test has ended: ``ready`` (and active, entered in
    the ladders) when all passed, ``failed`` when one failed; unchanged while tests remain.
    Idempotent: a version already judged is returned unchanged."""
    with transaction.atomic():
        version = BotVersion.objects.select_for_update().select_related("bot").defer("archive").get(pk=version_id)
        if version.status != BotVersion.Status.PENDING:
            return version
        tests = list(version.smoke_tests.defer("replay").order_by("index"))
        failed = [t for t in tests if t.status == SmokeTest.Status.FAILED]
        if not tests or (not failed and any(not t.is_finished for t in tests)):
            return version
        lines = [_smoke_test_line(t, version.bot.game) for t in tests]
        for test in tests:
            if test.log:
                lines.append(f"--- stderr of your bot in the {test.seat_count}-seat test ---\n{test.log}")
        status = BotVersion.Status.FAILED if failed else BotVersion.Status.READY
        return _judge(version, status, "\n".join(lines))


def bot_version_fail(*, version: BotVersion, log: str) -> BotVersion:
    """Fail a pending version now with ``log`` as the reason (its build failed: arena/runs/builds.py);
    the caller holds the version's row lock inside its transaction."""
    return _judge(version, BotVersion.Status.FAILED, log)


def _judge(version: BotVersion, status: str, log: str) -> BotVersion:
    """Set the verdict (inside a transaction, version locked); a ready version becomes active when
    it is the newest ready one, and enters every active ladder of its game."""
    version.status = status
    version.validation_log = _clean_text(log)
    version.validated_at = timezone.now()
    version.smoke_lease_expires_at = None
    version.save(update_fields=["status", "validation_log", "validated_at", "smoke_lease_expires_at"])
    if status == BotVersion.Status.READY:
        bot = Bot.objects.select_for_update(of=("self",)).select_related("active_version").defer(
            "active_version__archive").get(pk=version.bot_id)
        current = bot.active_version
        if current is None or current.number < version.number:
            bot.active_version = version
            bot.save(update_fields=["active_version"])
        ladder_enter_all(bot=bot)
    return version


def bot_version_record_smoke_test(*, version_id: int, outcome: dict | None, log: str = "") -> BotVersion:
    """Judge a pending version from its smoke-test outcome: ``ready`` (and active) or ``failed``.

    ``outcome`` is the runner's outcome dict (None when the match could not run at all);
    the version passes only if its seat 0 played without a fault. Idempotent: a version
    already judged is returned unchanged.
    """
    outcome, log = storable(outcome), storable_text(log)   # the bot's bytes never block the verdict
    with transaction.atomic():
        version = BotVersion.objects.select_for_update().defer("archive").get(pk=version_id)
        if version.status != BotVersion.Status.PENDING:
            return version
        faults = [f for f in (outcome or {}).get("faults", []) if f.get("seat") == 0]
        lines = [log] if log else []
        if outcome is None or faults:
            status = BotVersion.Status.FAILED
            for f in faults:
                lines.insert(0, f"Fault ({f.get('kind')}) at step {f.get('step')}: {f.get('message', '')}")
        else:
            status = BotVersion.Status.READY
            lines.insert(0, f"Smoke test passed: played a full {outcome.get('game', '')} match "
                            f"(seed {outcome.get('seed')}) without a fault.")
        if outcome is not None:
            logs = outcome.get("logs") or []
            if logs and logs[0]:
                lines.append("--- stderr of your bot ---\n" + logs[0])
        return _judge(version, status, "\n".join(lines))


def bot_version_requeue_stuck_smoke_tests(*, now=None) -> list[int]:
    """Put back in the queue the smoke tests whose worker is gone (expired lease); one out of
    attempts fails. Returns the ids re-queued (sent after commit, or by the outbox relay)."""
    now = now or timezone.now()
    requeued, what_happened = [], []
    with transaction.atomic():
        lost = (BotVersion.objects.select_for_update(skip_locked=True)
                .filter(status=BotVersion.Status.PENDING, smoke_lease_expires_at__lt=now).defer("archive"))
        for version in lost:
            if version.smoke_attempts >= settings.MATCH_MAX_ATTEMPTS:
                version.status = BotVersion.Status.FAILED
                version.validated_at = now
                version.validation_log = (f"The smoke test could not be run: its worker was lost "
                                          f"{version.smoke_attempts} times.")
                what_happened.append(f"smoke test of version {version.pk} failed: its worker was lost "
                                     f"{version.smoke_attempts} times (last {version.smoke_worker or '?'})")
            else:
                requeued.append(version.pk)
                what_happened.append(f"smoke test of version {version.pk} re-queued: {version.smoke_worker or '?'} "
                                     f"stopped renewing its lease (attempt {version.smoke_attempts} of "
                                     f"{settings.MATCH_MAX_ATTEMPTS})")
                bot_version_send_smoke_test_on_commit(version.pk)
            version.smoke_lease_expires_at = None
            version.smoke_sent_at, version.smoke_sends = None, 0
            version.save(update_fields=["status", "validated_at", "validation_log", "smoke_lease_expires_at",
                                        "smoke_sent_at", "smoke_sends"])
    for line in what_happened:  # after the commit: what the logs say happened did
        log.warning("recovery: %s", line)
    return requeued
