"""Reads shared by pages and the API: matches, seats, who may read a seat's log, full replays."""

from __future__ import annotations

import json
import lzma
import zlib

from django.db.models import QuerySet

from arena.api.replays import replay_json_bytes
from arena.bots.models import Bot
from arena.matches.models import Match, MatchSeat
from workers.replay import ReplayError, expand


def match_list(*, bot: Bot | int | None = None, ladder=None, status: str | None = None,
               kind: str | None = None) -> QuerySet[Match]:
    """Matches newest first, optionally of one bot, ladder (object or slug), status or kind."""
    qs = Match.objects.select_related("ladder").prefetch_related("seats__bot_version__bot")
    if bot is not None:
        qs = qs.filter(seats__bot_version__bot=bot).distinct()
    if ladder is not None:
        qs = qs.filter(ladder__slug=ladder) if isinstance(ladder, str) else qs.filter(ladder=ladder)
    if status:
        qs = qs.filter(status=status)
    if kind:
        qs = qs.filter(kind=kind)
    return qs.order_by("-created_at", "-id")


def match_seats(*, match: Match) -> QuerySet[MatchSeat]:
    """The match's seats in seat order with their bot versions and bots."""
    return match.seats.select_related("bot_version__bot__owner").defer("bot_version__archive").order_by("seat")


def match_seat_log_visible(*, seat: MatchSeat, user) -> bool:
    """True when ``user`` may read the seat's log and fault message: the bot's owner or staff."""
    if user is None or not user.is_authenticated:
        return False
    return bool(user.is_staff or seat.bot_version.bot.owner_id == user.pk)


def match_full_replay(match: Match) -> dict | None:
    """The finished match's replay in full form (``workers.replay.expand``), as viewers read it.

    None when the match has no replay (not finished yet). Raises ``workers.replay.ReplayError``
    with a message for stored data that is not a replay this arena reads. The full form shows
    every hidden value at every step, which the rules allow once the match is over: only a done
    match's replay is expanded.
    """
    if match.status != Match.Status.DONE:
        return None
    stored = match.replay
    if stored is None or not bytes(stored):
        return None
    try:
        data = replay_json_bytes(stored)
    except (OSError, EOFError, zlib.error, lzma.LZMAError, ValueError) as exc:
        # gzip raises OSError/EOFError on a damaged stream, bz2 OSError, lzma LZMAError.
        raise ReplayError(f"the stored replay cannot be decompressed ({type(exc).__name__})") from None
    try:
        replay = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise ReplayError("the stored replay is not valid JSON") from None
    return expand(replay)
