"""Bot services: creating bots and versions (upload rules), recording smoke tests, activation."""

from __future__ import annotations

import hashlib

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone

from arena.bots.models import BOT_NAME_VALIDATOR, Bot, BotVersion
from arena.bots.uploads import upload_check, upload_read
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


def bot_version_claim_smoke_test(*, version_id: int) -> BotVersion | None:
    """Mark a pending version's smoke test as started; None when it is not pending (already judged)."""
    with transaction.atomic():
        version = BotVersion.objects.select_for_update().filter(
            pk=version_id, status=BotVersion.Status.PENDING).first()
        if version is None:
            return None
        version.smoke_attempts += 1
        version.smoke_sent_at = timezone.now()
        version.save(update_fields=["smoke_attempts", "smoke_sent_at"])
        return version


def bot_version_record_smoke_test(*, version_id: int, outcome: dict | None, log: str = "") -> BotVersion:
    """Judge a pending version from its smoke-test outcome: ``ready`` (and active) or ``failed``.

    ``outcome`` is the runner's outcome dict (None when the match could not run at all);
    the version passes only if its seat 0 played without a fault. Idempotent: a version
    already judged is returned unchanged.
    """
    from arena.ladders.services import ladder_enter_all

    outcome, log = storable(outcome), storable_text(log)   # the bot's bytes never block the verdict
    with transaction.atomic():
        version = BotVersion.objects.select_for_update().select_related("bot").get(pk=version_id)
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
        version.save(update_fields=["status", "validation_log", "validated_at"])
        if version.status == BotVersion.Status.READY:
            bot = Bot.objects.select_for_update().get(pk=version.bot_id)
            current = bot.active_version
            if current is None or current.number < version.number:
                bot.active_version = version
                bot.save(update_fields=["active_version"])
            ladder_enter_all(bot=bot)
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
