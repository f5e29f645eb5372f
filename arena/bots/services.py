"""Bot services: creating bots and versions (upload rules), changing, resuming; sending a version's
smoke test (which ``arena/runs/smoke.py`` runs and judges)."""

from __future__ import annotations

import hashlib
import logging

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone

from arena.bots.models import BOT_NAME_VALIDATOR, Bot, BotVersion
from arena.bots.uploads import upload_check, upload_read
from arena.jobs.outbox import task_send_on_commit
from engines import list_games

log = logging.getLogger(__name__)


def bot_check_game(*, game: str) -> None:
    """A ValidationError unless ``game`` is a registered game."""
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
    bot_check_game(game=game)
    _check_name(name)
    filename, data = upload_read(upload)
    checked = upload_check(filename=filename, data=data)
    try:
        with transaction.atomic():
            bot = Bot.objects.create(owner=owner, name=name, game=game, description=description)
            _version_store(bot=bot, filename=checked.filename, kind=checked.kind, data=checked.data,
                           language=checked.language)
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
        return _version_store(bot=bot, filename=checked.filename, kind=checked.kind, data=checked.data,
                              language=checked.language)


def _version_store(*, bot: Bot, filename: str, kind: str, data: bytes, language: str = "python") -> BotVersion:
    number = (bot.versions.aggregate(n=Max("number"))["n"] or 0) + 1
    version = BotVersion.objects.create(
        bot=bot, number=number, kind=kind, filename=filename, archive=data,
        sha256=hashlib.sha256(data).hexdigest(), size=len(data), language=language)
    bot_version_send_smoke_test_on_commit(version.pk)
    return version


def bot_version_send_smoke_test_on_commit(version_id: int) -> None:
    """Send ``arena.smoke_test_version`` once the upload is committed (it plans the version's smoke
    matches and plays them, ``arena/runs/smoke.py``); a broker that is down leaves it to the recovery
    sweep, which plans the smoke test of every pending version that has none (the upload still succeeds)."""
    task_send_on_commit("arena.smoke_test_version", version_id)


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
