"""The match list's query parameters, parsed: a 400 naming the parameter for a bad value."""

from __future__ import annotations

import re

from rest_framework.exceptions import ValidationError

from arena.bots.selectors import bot_by_name_or_id
from arena.keyset import MAX_ID
from arena.matches.models import LISTED_KINDS, Match
from engines import list_games


# A bot's name (BOT_NAME_VALIDATOR: 2-40 of its characters) or an id (one digit: 1-9): what ?bot=
# takes, and what the schema says (arena/api/views.py). A value of that shape that no bot has, an
# all-digit name included, is no bot's matches: only the database knows which names exist.
BOT_PARAMETER_PATTERN = r"[1-9]|[A-Za-z0-9][A-Za-z0-9_.-]{1,39}"
BOT_PARAMETER = re.compile(BOT_PARAMETER_PATTERN)
NO_BOT = MAX_ID   # an id no bot has (ids are drawn from 1 up)


def _id(value: str) -> bool:
    return value.isascii() and value.isdigit() and 1 <= int(value) <= MAX_ID


def match_filters(params) -> dict:
    """``match_list``'s keyword arguments from ``?bot=`` (a name or an id), ``?game=``, ``?ladder=``,
    ``?status=``, ``?kind=`` and ``?group=``; any of them together."""
    status, kind, game = params.get("status"), params.get("kind"), params.get("game")
    if status is not None and status not in Match.Status.values:
        raise ValidationError({"status": [f"Use one of: {', '.join(Match.Status.values)}."]})
    if kind is not None and kind not in LISTED_KINDS:
        raise ValidationError({"kind": [f"Use one of: {', '.join(LISTED_KINDS)}."]})
    games = [g.id for g in list_games()]
    if game is not None and game not in games:
        raise ValidationError({"game": [f"Use one of: {', '.join(games)}."]})
    bot = params.get("bot")
    if bot is not None:
        if not BOT_PARAMETER.fullmatch(bot):
            raise ValidationError({"bot": ["Use a bot's name (2-40 letters, digits, '.', '_', '-') or id."]})
        found = bot_by_name_or_id(bot)
        # A name or id no bot has is no bot's matches, as ?ladder= of a slug no ladder has.
        bot = found.pk if found is not None else int(bot) if _id(bot) else NO_BOT
    group = params.get("group")
    if group is not None and not _id(group):
        raise ValidationError({"group": [f"Use a rotation group id (an integer from 1 to {MAX_ID})."]})
    return {"bot": bot, "ladder": params.get("ladder") or None, "game": game or None, "status": status,
            "kind": kind, "group": int(group) if group else None}
