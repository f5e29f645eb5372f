"""Reads of bots shared by pages and the API."""

from __future__ import annotations

from arena.bots.models import Bot
from arena.keyset import MAX_ID


def bot_by_name_or_id(value: str) -> Bot | None:
    """The bot named ``value`` (case-insensitively), else the bot whose id it is; None for neither.

    Every place that takes "a bot" from a person (the match filters, the compare page and API)
    reads it here, so a name that works in one works in all. A name wins over an id: a bot may be
    called "2048"."""
    value = value.strip()
    if not value or len(value) > 40:
        return None
    bot = Bot.objects.filter(name__iexact=value).only("id", "name").first()
    if bot is None and value.isascii() and value.isdigit() and int(value) <= MAX_ID:
        bot = Bot.objects.filter(pk=int(value)).only("id", "name").first()
    return bot


def bot_id_named(value: str) -> int | None:
    """The id of the bot named or numbered ``value`` (:func:`bot_by_name_or_id`); for a number no bot
    has, that number (the caller's "not entered" 404 then says so); None for a name no bot has."""
    bot = bot_by_name_or_id(value)
    if bot is not None:
        return bot.pk
    value = value.strip()
    return int(value) if value.isascii() and value.isdigit() and 1 <= int(value) <= MAX_ID else None
