"""Bot services: creating bots and versions (upload rules), recording smoke tests, activation."""

from __future__ import annotations

import hashlib
import json
import logging
import secrets

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.db.models import F, Max, Q
from django.utils import timezone

from arena.bots.models import BOT_NAME_VALIDATOR, Bot, BotVersion, SmokeTest
from arena.bots.uploads import upload_check, upload_read
from arena.jobs.leases import Heartbeat, lease_until
from arena.matches.models import MAX_SEED
from arena.jobs.outbox import Outbox, outbox_send_on_commit
from engines import get_game, list_games
from workers.storable import storable, storable_text

log = logging.getLogger(__name__)


def _check_game(game: str) -> None:
    if game not in {g.id for g in list_games()}:
        raise ValidationError(f"Unknown game {game!r}.", code="unknown_game")


def _check_name(name: str) -> None:
    BOT_NAME_VALIDATOR(name)
    if Bot.objects.filter(name__iexact=name).exists():
        raise ValidationError(f"The name {name!r} is taken.", code="name_taken")


def _can_manage(user, bot: Bot) -> bool:
    return bool(user and user.is_authenticated and (user.pk == bot.owner_id or user.is_staff))


def bot_create(*, owner: AbstractBaseUser, name: str, game: str, upload, description: str = "") -> Bot:
    """Create a bot and its first version from ``upload`` (a file object with ``.name``).

    Raises ValidationError (bad name, unknown game, or any upload rule) and stores nothing then.
    The version starts ``pending``; a smoke-test task is sent when the transaction commits.
    """
    _check_game(game)
    _check_name(name)
    filename, data = upload_read(upload)
    checked = upload_check(filename=filename, data=data)
    try:
        with transaction.atomic():
            bot = Bot.objects.create(owner=owner, name=name, game=game, description=description)
            _version_store(bot=bot, filename=checked.filename, kind=checked.kind, data=checked.data)
    except IntegrityError:
        if Bot.objects.filter(name__iexact=name).exists():  # taken by a concurrent request
            raise ValidationError(f"The name {name!r} is taken.", code="name_taken") from None
        raise
    return bot


def bot_version_create(*, bot: Bot, upload, by: AbstractBaseUser | None = None) -> BotVersion:
    """Store a new version of ``bot`` from ``upload``; only its owner or staff (when ``by`` is given).

    Raises PermissionDenied or ValidationError (any upload rule) and stores nothing then.
    The version starts ``pending`` and becomes active only after its smoke test passes.
    """
    if by is not None and not _can_manage(by, bot):
        raise PermissionDenied("Only the bot's owner can upload a new version.")
    if bot.is_builtin:
        raise ValidationError("Built-in bots take no uploads.", code="builtin")
    filename, data = upload_read(upload)
    checked = upload_check(filename=filename, data=data)
    with transaction.atomic():
        Bot.objects.select_for_update().filter(pk=bot.pk).first()  # serialise version numbers
        return _version_store(bot=bot, filename=checked.filename, kind=checked.kind, data=checked.data)


def _version_store(*, bot: Bot, filename: str, kind: str, data: bytes) -> BotVersion:
    number = (bot.versions.aggregate(n=Max("number"))["n"] or 0) + 1
    version = BotVersion.objects.create(
        bot=bot, number=number, kind=kind, filename=filename, archive=data,
        sha256=hashlib.sha256(data).hexdigest(), size=len(data))
    _send_smoke_test_on_commit(version.pk)
    return version


# A pending version without a live lease waits for a worker to run its smoke test.
SMOKE_TEST_OUTBOX = Outbox(
    task="arena.smoke_test_version", model=BotVersion,
    waiting=Q(status=BotVersion.Status.PENDING, smoke_lease_expires_at__isnull=True),
    sent_at="smoke_sent_at", sends="smoke_sends")


def _send_smoke_test_on_commit(version_id: int) -> None:
    """Send the smoke test once the upload is committed; a broker that is down leaves it to the
    outbox relay (the upload still succeeds)."""
    outbox_send_on_commit(SMOKE_TEST_OUTBOX, version_id)


def bot_builtin_ensure(*, owner: AbstractBaseUser, game: str, builtin: str, name: str | None = None) -> Bot:
    """The bot that plays ``builtin:NAME`` of ``game`` (created with a ready version if missing),
    entered in every active ladder of the game."""
    _check_game(game)
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
        from arena.ladders.services import ladder_enter_all

        ladder_enter_all(bot=bot)
    return bot


def bot_update(*, bot: Bot, by: AbstractBaseUser, description: str | None = None,
               is_active: bool | None = None) -> Bot:
    """Change a bot's description or whether it plays ladder matches; owner or staff only."""
    if not _can_manage(by, bot):
        raise PermissionDenied("Only the bot's owner can change it.")
    fields = []
    if description is not None:
        bot.description = description
        fields.append("description")
    if is_active is not None:
        bot.is_active = is_active
        fields.append("is_active")
    if fields:
        bot.full_clean(exclude=["owner", "name", "active_version"])
        bot.save(update_fields=fields)
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
    from django.conf import settings

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
    from django.conf import settings

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
            _send_smoke_test_on_commit(version.pk)
        return version.status


# --- smoke tests: the planned matches -----------------------------------------------------

def _clean_text(text: str, limit: int = 65536) -> str:
    """Text a bot controls, safe to store anywhere (``workers.storable``: NUL shown as U+2400), capped."""
    return storable_text(text or "")[:limit]


def smoke_test_plan(*, game: str) -> list[tuple[int, dict]]:
    """What a new version of a ``game`` bot is smoke-tested at: ``(seat_count, options)`` of every
    active ladder of the game, each pair once, fewest seats first. A game without an active
    ladder gets one two-seat test (or its minimum), so a version is always tested before it plays."""
    from arena.ladders.models import Ladder

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
    from arena.matches.seating import public_outcome

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
    from django.conf import settings

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


def _judge(version: BotVersion, status: str, log: str) -> BotVersion:
    """Set the verdict (inside a transaction, version locked); a ready version becomes active when
    it is the newest ready one, and enters every active ladder of its game."""
    from arena.ladders.services import ladder_enter_all

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


# --- pausing after repeated faults ------------------------------------------------------------

def bot_version_pause_if_faulting(*, version_id: int, now=None) -> bool:
    """Pause a ready, playing version from the ladders when its latest ladder matches break the
    fault rules (settings ``AUTOPAUSE_*``, ``arena.bots.autopause``); True when it was paused now.
    Matches before its owner last resumed it do not count. Call it inside the transaction that
    records a ladder match in which the version faulted."""
    from django.conf import settings

    from arena.bots.autopause import pause_reason
    from arena.matches.models import Match, MatchSeat

    now = now or timezone.now()
    with transaction.atomic():
        version = BotVersion.objects.select_for_update().defer("archive").filter(
            pk=version_id, status=BotVersion.Status.READY, paused_at__isnull=True).first()
        if version is None:
            return False
        streak, window = settings.AUTOPAUSE_STREAK, settings.AUTOPAUSE_WINDOW
        seats = MatchSeat.objects.filter(bot_version=version, match__kind=Match.Kind.LADDER,
                                         match__status=Match.Status.DONE)
        if version.resumed_at:
            seats = seats.filter(match__finished_at__gt=version.resumed_at)
        faults = list(seats.order_by("-match__finished_at", "-match_id")
                      .values_list("fault_kind", flat=True)[:max(streak, window, 1)])
        reason = pause_reason(faults, streak=streak, window=window, rate=settings.AUTOPAUSE_RATE,
                              min_matches=settings.AUTOPAUSE_MIN_MATCHES)
        if reason is None:
            return False
        version.paused_at = now
        version.pause_reason = reason
        version.save(update_fields=["paused_at", "pause_reason"])
        return True


def bot_version_resume(*, version: BotVersion, by: AbstractBaseUser) -> BotVersion:
    """Let a paused version play ladder matches again (owner or staff): its faults before now no
    longer count, so it is paused again only by new ones."""
    if not _can_manage(by, version.bot):
        raise PermissionDenied("Only the bot's owner can resume it.")
    with transaction.atomic():
        BotVersion.objects.filter(pk=version.pk, paused_at__isnull=False).update(
            paused_at=None, resumed_at=timezone.now())
    version.refresh_from_db(fields=["paused_at", "pause_reason", "resumed_at"])
    return version


def bot_version_requeue_stuck_smoke_tests(*, now=None) -> list[int]:
    """Put back in the queue the smoke tests whose worker is gone (expired lease); one out of
    attempts fails. Returns the ids re-queued (sent after commit, or by the outbox relay)."""
    from django.conf import settings

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
                _send_smoke_test_on_commit(version.pk)
            version.smoke_lease_expires_at = None
            version.smoke_sent_at, version.smoke_sends = None, 0
            version.save(update_fields=["status", "validated_at", "validation_log", "smoke_lease_expires_at",
                                        "smoke_sent_at", "smoke_sends"])
    for line in what_happened:  # after the commit: what the logs say happened did
        log.warning("recovery: %s", line)
    return requeued
