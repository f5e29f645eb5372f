"""Reads shared by pages and the API: ladders, leaderboards, rating history."""

from __future__ import annotations

from django.db.models import QuerySet

from arena.bots.models import Bot
from arena.ladders.models import Ladder, Rating, RatingChange


def ladder_list(*, game: str | None = None, active_only: bool = True) -> QuerySet[Ladder]:
    """Ladders, optionally of one game; active ones only unless told otherwise."""
    qs = Ladder.objects.all()
    if game:
        qs = qs.filter(game=game)
    if active_only:
        qs = qs.filter(active=True)
    return qs


def ladder_leaderboard(*, ladder: Ladder) -> list[Rating]:
    """Entered bots best first, each with ``.position`` (1-based; equal values share a position).

    Elo ladders sort by Elo; solo ladders by mean score (bots with no game last), and each
    row carries ``.mean_score`` and ``.interval95`` (half-width of the 95% interval).
    """
    rows = list(Rating.objects.filter(ladder=ladder).select_related("bot", "bot__owner", "bot__active_version")
                .defer("bot__active_version__archive"))  # archives can be MiBs each
    if ladder.is_solo:
        def key(r: Rating):
            return (r.games == 0, -(r.mean_score or 0.0), r.bot.name)
        value = lambda r: (r.games == 0, r.mean_score)  # noqa: E731
    else:
        def key(r: Rating):
            return (-r.elo, r.bot.name)
        value = lambda r: r.elo  # noqa: E731
    rows.sort(key=key)
    previous = object()
    for index, row in enumerate(rows, start=1):
        current = value(row)
        row.position = index if current != previous else rows[index - 2].position
        previous = current
    return rows


def rating_history(*, ladder: Ladder, bot: Bot) -> QuerySet[RatingChange]:
    """The bot's rating changes on the ladder, oldest first (for charts)."""
    return RatingChange.objects.filter(ladder=ladder, bot=bot).order_by("created_at", "id")


def bot_ratings(*, bot: Bot) -> QuerySet[Rating]:
    """The bot's standing on every ladder it is entered in."""
    return Rating.objects.filter(bot=bot).select_related("ladder")
