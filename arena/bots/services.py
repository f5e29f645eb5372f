"""Bot services: creating bots and versions (upload rules), recording smoke tests, activation."""

from __future__ import annotations

import hashlib
import json
import secrets

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.db.models import F, Max
from django.utils import timezone

from arena.bots.models import BOT_NAME_VALIDATOR, Bot, BotVersion, SmokeTest
from arena.bots.uploads import upload_check, upload_read
from arena.matches.models import MAX_SEED
from engines import get_game, list_games


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
        sha256=hashlib.sha256(data).hexdigest(), size=len(data), smoke_sent_at=timezone.now())
    _send_smoke_test_on_commit(version.pk)
    return version


def _send_smoke_test_on_commit(version_id: int) -> None:
    """Send the smoke test once the upload is committed."""
    from arena.bots.tasks import smoke_test_version

    smoke_test_version.delay_on_commit(version_id)


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


# --- smoke tests ---------------------------------------------------------------------------

def _clean_text(text: str, limit: int = 65536) -> str:
    """Text a bot controls, safe to store anywhere (PostgreSQL refuses NUL in text), capped."""
    return (text or "").replace("\x00", "\ufffd")[:limit]


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


def bot_version_claim_smoke_test(*, version_id: int) -> BotVersion | None:
    """Start (or restart) a pending version's smoke test; None when it is not pending (already judged).

    The first start plans its matches (``smoke_test_plan``), each with its own random seed and
    seat: drawn here, on the server, and shown to nobody before the smoke test has ended (a fixed
    or public seed would let a bot recognise its test). A restart (the version is sent again only
    after a match's time limit without news, so its worker is gone) puts tests left running back
    in the queue.
    """
    with transaction.atomic():
        version = BotVersion.objects.select_for_update().select_related("bot").defer("archive").filter(
            pk=version_id, status=BotVersion.Status.PENDING).first()
        if version is None:
            return None
        version.smoke_attempts += 1
        version.smoke_sent_at = timezone.now()
        version.save(update_fields=["smoke_attempts", "smoke_sent_at"])
        if not version.smoke_tests.exists():
            SmokeTest.objects.bulk_create([
                SmokeTest(version=version, index=i, seat_count=seats, options=options,
                          seat=secrets.randbelow(seats), seed=secrets.randbelow(MAX_SEED + 1))
                for i, (seats, options) in enumerate(smoke_test_plan(game=version.bot.game))])
        else:
            version.smoke_tests.filter(status=SmokeTest.Status.RUNNING).update(status=SmokeTest.Status.QUEUED)
        return version


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
        for test in failed:
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
    version.save(update_fields=["status", "validation_log", "validated_at"])
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
    """Judge a pending version from one smoke-test outcome in which it played seat 0: ``ready``
    (and active) or ``failed``; ``outcome`` None means the test could not run at all (``log`` says
    why). Idempotent: a version already judged is returned unchanged. The smoke-test task judges
    from its planned tests instead (``bot_version_judge_smoke_tests``)."""
    with transaction.atomic():
        version = BotVersion.objects.select_for_update().select_related("bot").defer("archive").get(pk=version_id)
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
        logs = (outcome or {}).get("logs") or []
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


def bot_version_pending_stale(*, now=None) -> list[int]:
    """Ids of versions whose smoke test was neither sent nor started for longer than a match may
    take (it was lost), to send again; each is marked sent, so the next periodic run leaves it.

    A version that already used ``MATCH_MAX_ATTEMPTS`` smoke tests is failed instead.
    """
    from datetime import timedelta

    from django.conf import settings
    from django.db.models.functions import Coalesce

    now = now or timezone.now()
    before = now - timedelta(seconds=settings.MATCH_HARD_TIME_LIMIT + settings.MATCH_STUCK_GRACE)
    resend = []
    stale = (BotVersion.objects.filter(status=BotVersion.Status.PENDING)
             .annotate(last_sent=Coalesce("smoke_sent_at", "created_at")).filter(last_sent__lt=before)
             .defer("archive"))
    for version in stale:
        still_stale = BotVersion.objects.filter(
            pk=version.pk, status=BotVersion.Status.PENDING, smoke_attempts=version.smoke_attempts)
        if version.smoke_attempts >= settings.MATCH_MAX_ATTEMPTS:
            still_stale.update(
                status=BotVersion.Status.FAILED, validated_at=now,
                validation_log=f"The smoke test could not be run after {version.smoke_attempts} attempts.")
        elif still_stale.update(smoke_sent_at=now):  # not claimed meanwhile
            resend.append(version.pk)
    return resend
