"""Reads shared by pages and the API: ladders, leaderboards, rating history."""

from __future__ import annotations

from django.db.models import Case, F, FloatField, IntegerField, QuerySet, Value, When, Window
from django.db.models.functions import Rank

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


class Leaderboard:
    """A ladder's entries best first, ranked in SQL, read a page (a slice) at a time.

    A slice costs two queries whatever its depth: the ranking (``RANK()`` over the ladder's
    ratings, joined only with the bots' names for the order of equal values) cut to the slice,
    then those entries with their bot, owner's username and active version number. ``count()``
    and ``len()`` count the entries; iterating reads them all.
    """

    def __init__(self, ladder: Ladder):
        self.ladder = ladder
        if ladder.is_solo:
            unplayed = Case(When(games=0, then=Value(1)), default=Value(0), output_field=IntegerField())
            mean = Case(When(games__gt=0, then=F("score_sum") / F("games")), default=Value(None),
                        output_field=FloatField())
            self.ranking = [unplayed.asc(), mean.desc(nulls_last=True)]
        else:
            self.ranking = [F("elo").desc()]

    def count(self) -> int:
        return Rating.objects.filter(ladder=self.ladder).count()

    def __len__(self) -> int:
        return self.count()

    def __iter__(self):
        return iter(self[0:None])

    def __getitem__(self, item):
        if not isinstance(item, slice):
            rows = self[item:item + 1]
            if not rows:
                raise IndexError(item)
            return rows[0]
        ranked = list(Rating.objects.filter(ladder=self.ladder)
                      .annotate(position=Window(expression=Rank(), order_by=self.ranking))
                      .order_by(*self.ranking, "bot__name", "id").values_list("id", "position")[item])
        rows = (Rating.objects.filter(pk__in=[pk for pk, _ in ranked])
                .select_related("bot", "bot__owner", "bot__active_version").only(*LEADERBOARD_FIELDS).in_bulk())
        board = []
        for pk, position in ranked:
            row = rows[pk]
            row.position = position
            board.append(row)
        return board


def ladder_leaderboard(*, ladder: Ladder) -> Leaderboard:
    """Entered bots best first, each with ``.position`` (1-based; equal values share a position).

    Elo ladders sort by Elo; solo ladders by mean score (bots with no game last), and each
    row carries ``.mean_score`` and ``.interval95`` (half-width of the 95% interval). Ranked and
    ordered in SQL, so a page (a slice) reads only its own rows and the position of an entry does
    not depend on the page; each row brings of its bot only what a leaderboard shows (no archives,
    no password hashes).
    """
    return Leaderboard(ladder)


# What a leaderboard row reads: the rating, and of its bot only what the row shows.
LEADERBOARD_FIELDS = (
    "id", "ladder_id", "bot_id", "elo", "games", "wins", "draws", "losses", "faults", "score_sum",
    "score_sq_sum", "last_played_at", "bot__id", "bot__name", "bot__game", "bot__owner_id",
    "bot__owner__id", "bot__owner__username", "bot__active_version_id", "bot__active_version__id",
    "bot__active_version__number", "bot__active_version__bot_id",
)


def rating_history(*, ladder: Ladder, bot: Bot) -> QuerySet[RatingChange]:
    """The bot's rating changes on the ladder, oldest first (for charts)."""
    return RatingChange.objects.filter(ladder=ladder, bot=bot).order_by("created_at", "id")


def rating_history_of_bot(*, bot: Bot, ladder_slug: str | None = None) -> QuerySet[RatingChange]:
    """The bot's rating changes, on every ladder or on one (by slug), oldest first (by id)."""
    changes = RatingChange.objects.filter(bot=bot).select_related("ladder").only(
        "id", "ladder_id", "ladder__id", "ladder__slug", "match_id", "before", "after", "created_at")
    if ladder_slug is not None:
        ladder_id = Ladder.objects.filter(slug=ladder_slug).values_list("id", flat=True).first()
        if ladder_id is None:
            return changes.none()
        changes = changes.filter(ladder_id=ladder_id)
    return changes.order_by("id")


def bot_ratings(*, bot: Bot) -> QuerySet[Rating]:
    """The bot's standing on every ladder it is entered in."""
    return Rating.objects.filter(bot=bot).select_related("ladder")
