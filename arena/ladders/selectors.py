"""Reads shared by pages and the API: ladders, leaderboards, rating history.

A leaderboard is ranked by one of the ladder's *rankings* (``RANKINGS``): a SQL value to sort
by, best first, with its label and explanation. The position is a ``RANK()`` window in the
database and pages are sliced there too, so a page of a 2,000-bot ladder reads 50 rows. Another
rating (say a batch fit with an interval) is one more entry in ``RANKINGS`` and in
``ladder_rankings``; the pages and the API list whatever a ladder offers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import (
    BigIntegerField,
    Case,
    Count,
    F,
    FloatField,
    IntegerField,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Sum,
    Value,
    When,
    Window,
)
from django.db.models.expressions import Combinable
from django.db.models.functions import Cast, Coalesce, Rank

from arena.bots.models import Bot, BotVersion
from arena.keyset import Bounds
from arena.ladders.models import Ladder, Rating, RatingChange
from arena.matches.models import Match, MatchSeat
from competition.ratings.batch import BatchRating, probability_stronger


def _per_game(total: str) -> Combinable:
    """``total / games`` as a float in SQL, NULL before the first game."""
    return Case(When(games=0, then=Value(None)), default=Cast(total, FloatField()) / Cast("games", FloatField()),
                output_field=FloatField())


@dataclass(frozen=True)
class Ranking:
    """One way to rank a ladder: ``value`` (SQL, higher is better) orders and positions the rows;
    ``unranked`` (SQL, true for rows without a value yet) puts those last; ``interval_of`` gives
    the half-width shown after the value, when the ranking has one."""

    key: str
    label: str
    explanation: str
    value: Callable[[], Combinable]
    unranked: Callable[[], Combinable] | None = None
    interval_of: Callable[[Rating], float | None] | None = None
    decimals: int = 0
    # Whether a row's value is still settling (the "provisional" mark); None: under
    # LEADERBOARD_PROVISIONAL_GAMES games. ``provisional_note`` says why, for the page.
    provisional_of: Callable[[Rating], bool] | None = None
    provisional_note: str = ""

    def is_provisional(self, rating: Rating) -> bool:
        """The provisional mark of ``rating`` under this ranking."""
        if self.provisional_of is not None:
            return self.provisional_of(rating)
        return rating.games < settings.LEADERBOARD_PROVISIONAL_GAMES

    def order_by(self) -> list:
        """Best first; rows without a value last."""
        first = [Case(When(self.unranked(), then=Value(1)), default=Value(0), output_field=IntegerField()).asc()] \
            if self.unranked else []
        return first + [F("rating_value").desc(nulls_last=True)]


RANKINGS = {
    "batch": Ranking(
        key="batch", label="Batch rating",
        explanation="Batch rating: one fit of every rated result of the ladder at once (each rotation group, or "
                    "lone match, as one unit; a faulted seat ranks below every seat that did not fault), so the "
                    "order the games were played in does not matter. It reads each bot's score against its "
                    "table's mean, or only the ranks, as the ladder is set, on the Elo scale. ± half the width of its interval (from "
                    "resampling the groups). Refitted every few minutes; bots without a rated result yet are "
                    "listed last.",
        value=lambda: F("batch_rating"), unranked=lambda: Q(batch_rating__isnull=True),
        interval_of=lambda rating: rating.batch_half_width,
        provisional_of=lambda rating: rating.batch_rating is None or rating.batch_provisional,
        provisional_note="Its interval is still wide: too few results to place it with confidence."),
    "elo": Ranking(
        key="elo", label="Elo",
        explanation="Elo rating: every rated rotation group (or lone match) moves it once, by how the bot "
                    "finished against each other seat (on average over the group's games), weighted by how "
                    "likely that was from the ratings before.",
        value=lambda: F("elo")),
    "mean_score": Ranking(
        key="mean_score", label="Mean score",
        explanation="Mean score per game, ± the half-width of its 95% interval (a faulted game counts at "
                    "most 0). Bots without a game are listed last.",
        value=lambda: _per_game("score_sum"), unranked=lambda: Q(games=0),
        interval_of=lambda rating: rating.interval95, decimals=2),
}


def ladder_rankings(*, ladder: Ladder) -> list[Ranking]:
    """The rankings a ladder offers, its default first: the mean score on a solo ladder; the batch
    rating on a multi-seat ladder once it has been fitted (Elo until then, when every row of the
    batch ranking would be unranked)."""
    if ladder.is_solo:
        return [RANKINGS["mean_score"]]
    if ladder.batch_fitted_at is None:
        return [RANKINGS["elo"], RANKINGS["batch"]]
    return [RANKINGS["batch"], RANKINGS["elo"]]


def ladder_ranking(*, ladder: Ladder, key: str | None = None) -> Ranking:
    """The ladder's ranking called ``key``, or its default one (also for an unknown key)."""
    offered = ladder_rankings(ladder=ladder)
    return next((r for r in offered if r.key == key), offered[0])


def ladder_list(*, game: str | None = None, active_only: bool = True) -> QuerySet[Ladder]:
    """Ladders, optionally of one game; active ones only unless told otherwise."""
    qs = Ladder.objects.all()
    if game:
        qs = qs.filter(game=game)
    if active_only:
        qs = qs.filter(active=True)
    return qs


def with_entry_counts(ladders: QuerySet[Ladder]) -> QuerySet[Ladder]:
    """These ladders, each with ``entry_count`` (bots entered), counted per ladder on the ratings'
    (ladder, bot) index. A join with GROUP BY over every rating cost milliseconds per list, twice
    under a paginator (its COUNT wraps the grouped query)."""
    entries = (Rating.objects.filter(ladder=OuterRef("pk")).order_by().values("ladder")
               .annotate(n=Count("*")).values("n"))
    return ladders.annotate(entry_count=Coalesce(Subquery(entries, output_field=IntegerField()), 0))


LEADERBOARD_FIELDS = [
    "id", "ladder_id", "bot_id", "elo", "games", "wins", "draws", "losses", "faults", "score_sum", "score_sq_sum",
    "rank_sum", "first_places", "last_played_at",
    "batch_rating", "batch_low", "batch_high", "batch_games", "batch_provisional", "batch_fitted_at",
    "bot__id", "bot__name", "bot__game", "bot__owner_id", "bot__is_active", "bot__owner__id", "bot__owner__username",
    "bot__active_version_id", "bot__active_version__id", "bot__active_version__number",
    "bot__active_version__bot_id", "bot__active_version__paused_at", "bot__active_version__language",
]


class Leaderboard:
    """A ladder's entries best first by one of its rankings, ranked in SQL, read a page (a slice)
    at a time.

    A slice costs one query whatever its depth: the ranking (``RANK()`` over the ladder's
    ratings) cut to the slice, the entries with their bot, owner's username and active version
    number. Each row
    carries ``position`` (equal values share it), ``rating_value``, ``win_rate_value`` (share of
    games ranked first), ``mean_rank_value`` and ``mean_score_value`` (NULL before the first game).
    ``count()`` and ``len()`` count the entries; iterating reads them all.
    """

    def __init__(self, ladder: Ladder, ranking: str | Ranking | None = None, language: str | None = None):
        self.ladder = ladder
        self.ranking = ranking if isinstance(ranking, Ranking) else ladder_ranking(ladder=ladder, key=ranking)
        self.language = language

    def _entries(self) -> QuerySet[Rating]:
        """The ladder's ratings; only bots whose active version is in ``language`` when given."""
        entries = Rating.objects.filter(ladder=self.ladder)
        if self.language:
            entries = entries.filter(bot__active_version__language=self.language)
        return entries

    def count(self) -> int:
        return self._entries().count()

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
        # One query: the window ranks every entry of the ladder before LIMIT/OFFSET cut the page, and
        # the page's rows come with their bot, owner and version (two queries cost a second
        # compile and round trip: about a third of the leaderboard's own CPU, bench/page_cpu.py).
        order = self.ranking.order_by()
        return list(self._entries()
                    .select_related("bot__owner", "bot__active_version").only(*LEADERBOARD_FIELDS)
                    .annotate(rating_value=self.ranking.value())
                    .annotate(position=Window(expression=Rank(), order_by=order),
                              win_rate_value=_per_game("first_places"), mean_rank_value=_per_game("rank_sum"),
                              mean_score_value=_per_game("score_sum"))
                    .order_by(*order, "bot__name", "id")[item])


def ladder_leaderboard(*, ladder: Ladder, ranking: str | Ranking | None = None,
                       language: str | None = None) -> Leaderboard:
    """Entered bots best first by ``ranking`` (the ladder's default when None), only those whose
    active version is in ``language`` when given (positions among them): a ``Leaderboard`` to
    slice (paginate); no archives, no password hashes are read."""
    return Leaderboard(ladder, ranking, language)




def ladder_board_version(*, ladder: Ladder) -> str | None:
    """A token that changes whenever anything a leaderboard of ``ladder`` shows may have changed, or
    None when the database cannot say (only PostgreSQL can): the row versions (``xmin``, the id of
    the transaction that wrote each row's current version, which every UPDATE replaces) of the
    ladder, its ratings, their bots, the bots' owners and active versions, with the count of ratings.

    It is read from the rows themselves, so no writer has to remember to bump it: a rating
    recorded, a batch refit, a bot renamed or taken off, a version paused or made active, an owner
    renamed, a bot deleted (its rating goes) all change it, whichever code path wrote them (an ORM
    ``update()`` included). Read it before the rows it stands for: a page cached under it is then
    never older than the rows it names (a write committed between the two reads leaves newer rows
    under the older token, which the next read replaces). None, too, inside a transaction that has
    written (its own rows keep one ``xmin`` however often it rewrites them, and may roll back). One query, about 5 ms of database CPU at
    800 entries (bench/page_cpu.py), against about 25 ms of web and database CPU to rank and draw
    a page of 50."""
    if connection.vendor != "postgresql":
        return None
    sql = _BOARD_VERSION_SQL.format(
        ladders=connection.ops.quote_name(Ladder._meta.db_table),
        ratings=connection.ops.quote_name(Rating._meta.db_table),
        bots=connection.ops.quote_name(Bot._meta.db_table),
        versions=connection.ops.quote_name(BotVersion._meta.db_table),
        users=connection.ops.quote_name(get_user_model()._meta.db_table))
    with connection.cursor() as cursor:
        cursor.execute(sql, [ladder.pk, ladder.pk])
        written, *row = cursor.fetchone()
    return None if written is not None else "-".join("" if value is None else str(value) for value in row)


# xid has no cast to a number but through its text. Sums and the count: each UPDATE of a row gives it
# the newer transaction's id, so its term grows; an insert or a delete changes the count too.
_BOARD_VERSION_SQL = """
SELECT txid_current_if_assigned(), (SELECT l.xmin::text FROM {ladders} l WHERE l.id = %s), count(*),
       sum(r.xmin::text::bigint), max(r.xmin::text::bigint), sum(b.xmin::text::bigint), sum(u.xmin::text::bigint),
       sum((SELECT v.xmin::text::bigint FROM {versions} v WHERE v.id = b.active_version_id))
  FROM {ratings} r JOIN {bots} b ON b.id = r.bot_id JOIN {users} u ON u.id = b.owner_id
 WHERE r.ladder_id = %s
"""


def leaderboard_trends(*, ladder: Ladder, bot_ids: list[int], games: int | None = None) -> dict[int, float]:
    """Rating change of each bot over its last ``games`` rating changes on the ladder
    (``LEADERBOARD_TREND_GAMES``; over all of them when it has fewer): the value now minus the
    value before the oldest of them. One query, a few reads of the (ladder, bot, sequence) index per
    bot; written in SQL once (the ORM compiled its four correlated subqueries on every page: ~9 ms
    of a leaderboard's CPU, bench/page_cpu.py)."""
    if not bot_ids:
        return {}
    games = games or settings.LEADERBOARD_TREND_GAMES
    sql = _TRENDS_SQL.format(changes=connection.ops.quote_name(RatingChange._meta.db_table),
                             ratings=connection.ops.quote_name(Rating._meta.db_table),
                             bots=", ".join(["%s"] * len(bot_ids)))
    with connection.cursor() as cursor:
        cursor.execute(sql, [games - 1, ladder.pk, *bot_ids])
        rows = cursor.fetchall()
    return {bot_id: now - then for bot_id, now, then in rows if now is not None and then is not None}


_TRENDS_SQL = """
SELECT r.bot_id,
       (SELECT c.after FROM {changes} c WHERE c.ladder_id = r.ladder_id AND c.bot_id = r.bot_id
         ORDER BY c.sequence DESC LIMIT 1),
       COALESCE((SELECT c.before FROM {changes} c WHERE c.ladder_id = r.ladder_id AND c.bot_id = r.bot_id
                  ORDER BY c.sequence DESC LIMIT 1 OFFSET %s),
                (SELECT c.before FROM {changes} c WHERE c.ladder_id = r.ladder_id AND c.bot_id = r.bot_id
                  ORDER BY c.sequence LIMIT 1),
                (SELECT c.after FROM {changes} c WHERE c.ladder_id = r.ladder_id AND c.bot_id = r.bot_id
                  ORDER BY c.sequence LIMIT 1))
  FROM {ratings} r WHERE r.ladder_id = %s AND r.bot_id IN ({bots})
"""


def rating_history(*, ladder: Ladder, bot: Bot, limit: int | None = None) -> list[RatingChange]:
    """The bot's rating changes on the ladder, oldest first (for charts); the newest ``limit`` only
    when given. Each carries ``match_id``, ``before``, ``after`` and ``created_at``."""
    qs = (RatingChange.objects.filter(ladder=ladder, bot=bot).only("id", "match_id", "before", "after", "created_at")
          .order_by("-sequence"))  # the order of application, and of ids: the sequence index serves it
    rows = list(qs[:limit] if limit else qs)
    rows.reverse()
    return rows


def rating_history_of_bot(*, bot: Bot, ladder_slug: str | None = None,
                          bounds: Bounds | None = None) -> QuerySet[RatingChange]:
    """The bot's rating changes, on every ladder or on one (by slug), oldest first (by id).

    On one ladder they are ordered by ``sequence``, which is their ids' order there
    (``RatingChange``), so that the (ladder, bot, sequence) index serves them: a keyset page sorts
    them by it (``keyset_page(order_field="sequence")``), and the page's ``bounds`` (ids) become
    bounds on the sequence too, so that a deep page starts in the index where it begins instead of
    reading every change before it."""
    changes = RatingChange.objects.filter(bot=bot).select_related("ladder").only(
        "id", "ladder_id", "ladder__id", "ladder__slug", "match_id", "before", "after", "created_at")
    if ladder_slug is None:
        return changes.order_by("id")
    ladder_id = Ladder.objects.filter(slug=ladder_slug).values_list("id", flat=True).first()
    if ladder_id is None:
        return changes.none()
    changes = changes.filter(ladder_id=ladder_id)
    bounds = bounds or Bounds()
    for cursor, lookup, unbounded in ((bounds.after, "gt", 0), (bounds.before, "lt", 2**31)):
        if cursor is not None:
            # The cursor's own sequence when it is a change of this bot on this ladder (a next or
            # previous link); any other id is still honoured by the id bound the page adds.
            at = RatingChange.objects.filter(pk=cursor, bot=bot, ladder_id=ladder_id).order_by().values("sequence")
            bound = Coalesce(Subquery(at), unbounded, output_field=BigIntegerField())
            changes = changes.filter(**{f"sequence__{lookup}": bound})
    return changes.order_by("sequence")


def bot_ratings(*, bot: Bot) -> QuerySet[Rating]:
    """The bot's standing on every ladder it is entered in."""
    return Rating.objects.filter(bot=bot).select_related("ladder")


# --- comparing two bots ----------------------------------------------------------------------

@dataclass(frozen=True)
class HeadToHead:
    """Two bots' record at the tables they shared on a ladder (done matches, rated or not)."""

    games: int
    groups: int  # rotation groups among those games
    a_ahead: int  # games A finished ahead of B (fault-adjusted ranks)
    b_ahead: int
    level: int  # games they finished level
    a_mean_rank: float | None
    b_mean_rank: float | None


def head_to_head(*, ladder: Ladder, a: Bot | int, b: Bot | int) -> HeadToHead:
    """The record of ``a`` against ``b`` in ``ladder``'s done matches that seated both: one query
    (A's seats, each with B's rank in the same match from the (match, seat) index)."""
    a_id, b_id = getattr(a, "pk", a), getattr(b, "pk", b)
    b_rank = MatchSeat.objects.filter(match=OuterRef("match"), bot_version__bot_id=b_id).values("rank")[:1]
    row = (MatchSeat.objects.filter(match__ladder=ladder, match__status=Match.Status.DONE, bot_version__bot_id=a_id,
                                    rank__isnull=False)
           .annotate(b_rank=Subquery(b_rank)).filter(b_rank__isnull=False)
           .aggregate(games=Count("id"), groups=Count("match__group", distinct=True),
                      a_ahead=Count("id", filter=Q(rank__lt=F("b_rank"))),
                      b_ahead=Count("id", filter=Q(rank__gt=F("b_rank"))),
                      a_sum=Sum("rank"), b_sum=Sum("b_rank")))
    games = row["games"] or 0
    return HeadToHead(games=games, groups=row["groups"] or 0, a_ahead=row["a_ahead"] or 0,
                      b_ahead=row["b_ahead"] or 0, level=games - (row["a_ahead"] or 0) - (row["b_ahead"] or 0),
                      a_mean_rank=row["a_sum"] / games if games else None,
                      b_mean_rank=row["b_sum"] / games if games else None)


def batch_rating_of(rating: Rating):
    """The stored batch rating of ``rating`` as ``batch_rating.BatchRating``; None before its first fit."""
    if rating.batch_rating is None or rating.batch_low is None or rating.batch_high is None:
        return None

    return BatchRating(rating=rating.batch_rating, low=rating.batch_low, high=rating.batch_high,
                       games=rating.batch_games, provisional=rating.batch_provisional)


def probability_a_stronger(a: Rating, b: Rating) -> float | None:
    """P(A is stronger than B) from the two stored batch ratings; None unless both are fitted."""
    fitted_a, fitted_b = batch_rating_of(a), batch_rating_of(b)
    if fitted_a is None or fitted_b is None:
        return None

    return probability_stronger(fitted_a, fitted_b)
