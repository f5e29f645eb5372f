"""Reads shared by pages and the API: matches, seats, who may read a seat's log."""

from __future__ import annotations

from django.db.models import QuerySet

from arena.bots.models import Bot
from arena.matches.models import Match, MatchSeat


def match_list(*, bot: Bot | int | None = None, ladder=None, status: str | None = None,
               kind: str | None = None, game: str | None = None) -> QuerySet[Match]:
    """Matches newest first, optionally of one bot, ladder (object or slug), status, kind or game."""
    qs = Match.objects.select_related("ladder").prefetch_related("seats__bot_version__bot")
    if game:
        qs = qs.filter(game=game)
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
    return (match.seats.select_related("bot_version__bot__owner")
            .defer("bot_version__archive", "bot_version__bot__owner__password").order_by("seat"))


def match_seat_log_visible(*, seat: MatchSeat, user) -> bool:
    """True when ``user`` may read the seat's log and fault message: the bot's owner or staff."""
    if user is None or not user.is_authenticated:
        return False
    return bool(user.is_staff or seat.bot_version.bot.owner_id == user.pk)
