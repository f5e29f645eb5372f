"""Bot services: creating bots and versions (upload rules), recording smoke tests, activation."""

from __future__ import annotations

import hashlib

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.db.models import F, Max, Q
from django.utils import timezone

from arena.bots.models import BOT_NAME_VALIDATOR, Bot, BotVersion
from arena.bots.uploads import upload_check, upload_read
from arena.matches.leases import Heartbeat, lease_until
from arena.matches.outbox import Outbox, outbox_send_on_commit
from engines import get_game, list_games
from workers.storable import storable, storable_text


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
    not pending (already judged) or another worker holds a live lease on it (a duplicate message)."""
    now = now or timezone.now()
    free = Q(smoke_lease_expires_at__isnull=True) | Q(smoke_lease_expires_at__lt=now)
    claimed = BotVersion.objects.filter(free, pk=version_id, status=BotVersion.Status.PENDING).update(
        smoke_attempts=F("smoke_attempts") + 1, smoke_lease_expires_at=lease_until(now), smoke_worker=worker[:200])
    if claimed != 1:
        return None
    return BotVersion.objects.select_related("bot").get(pk=version_id)


def _smoke_held(version_id: int, attempt: int):
    return BotVersion.objects.filter(pk=version_id, status=BotVersion.Status.PENDING, smoke_attempts=attempt,
                                     smoke_lease_expires_at__isnull=False)


def bot_version_smoke_heartbeat(*, version_id: int, attempt: int) -> Heartbeat:
    """The heartbeat that renews a smoke test's lease while attempt ``attempt`` runs it."""
    from django.conf import settings

    return Heartbeat(_smoke_held(version_id, attempt), "smoke_lease_expires_at",
                     label=f"smoke test of version {version_id} attempt {attempt}",
                     deadline=settings.MATCH_HARD_TIME_LIMIT)


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
        elif not counts:
            version.smoke_attempts -= 1
        version.smoke_lease_expires_at = None
        version.smoke_sent_at, version.smoke_sends = None, 0
        version.save(update_fields=["status", "validated_at", "validation_log", "smoke_attempts",
                                    "smoke_lease_expires_at", "smoke_sent_at", "smoke_sends"])
        if version.status == BotVersion.Status.PENDING:
            _send_smoke_test_on_commit(version.pk)
        return version.status


def bot_version_record_smoke_test(*, version_id: int, outcome: dict | None, log: str = "") -> BotVersion:
    """Judge a pending version from its smoke-test outcome: ``ready`` (and active) or ``failed``.

    ``outcome`` is the runner's outcome dict (None when the match could not run at all);
    the version passes only if its seat 0 played without a fault. Idempotent: a version
    already judged is returned unchanged.
    """
    from arena.ladders.services import ladder_enter_all

    outcome, log = storable(outcome), storable_text(log)   # the bot's bytes never block the verdict
    with transaction.atomic():
        version = BotVersion.objects.select_for_update().defer("archive").get(pk=version_id)
        if version.status != BotVersion.Status.PENDING:
            return version
        faults = [f for f in (outcome or {}).get("faults", []) if f.get("seat") == 0]
        lines = [log] if log else []
        if outcome is None:
            version.status = BotVersion.Status.FAILED
        elif faults:
            version.status = BotVersion.Status.FAILED
            for f in faults:
                lines.insert(0, f"Fault ({f.get('kind')}) at step {f.get('step')}: {f.get('message', '')}")
        else:
            version.status = BotVersion.Status.READY
            lines.insert(0, f"Smoke test passed: played a full {outcome.get('game', '')} match "
                            f"(seed {outcome.get('seed')}) without a fault.")
        if outcome is not None:
            logs = outcome.get("logs") or []
            if logs and logs[0]:
                lines.append("--- stderr of your bot ---\n" + logs[0])
        version.validation_log = "\n".join(lines)[:65536]
        version.validated_at = timezone.now()
        version.smoke_lease_expires_at = None
        version.save(update_fields=["status", "validation_log", "validated_at", "smoke_lease_expires_at"])
        if version.status == BotVersion.Status.READY:
            bot = Bot.objects.select_for_update().get(pk=version.bot_id)
            current = bot.active_version
            if current is None or current.number < version.number:
                bot.active_version = version
                bot.save(update_fields=["active_version"])
            ladder_enter_all(bot=bot)
        return version


def bot_version_requeue_stuck_smoke_tests(*, now=None) -> list[int]:
    """Put back in the queue the smoke tests whose worker is gone (expired lease); one out of
    attempts fails. Returns the ids re-queued (sent after commit, or by the outbox relay)."""
    from django.conf import settings

    now = now or timezone.now()
    requeued = []
    with transaction.atomic():
        lost = (BotVersion.objects.select_for_update(skip_locked=True)
                .filter(status=BotVersion.Status.PENDING, smoke_lease_expires_at__lt=now).defer("archive"))
        for version in lost:
            if version.smoke_attempts >= settings.MATCH_MAX_ATTEMPTS:
                version.status = BotVersion.Status.FAILED
                version.validated_at = now
                version.validation_log = (f"The smoke test could not be run: its worker was lost "
                                          f"{version.smoke_attempts} times.")
            else:
                requeued.append(version.pk)
                _send_smoke_test_on_commit(version.pk)
            version.smoke_lease_expires_at = None
            version.smoke_sent_at, version.smoke_sends = None, 0
            version.save(update_fields=["status", "validated_at", "validation_log", "smoke_lease_expires_at",
                                        "smoke_sent_at", "smoke_sends"])
    return requeued
