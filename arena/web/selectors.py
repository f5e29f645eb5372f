"""Reads that the pages and the API share and that no service of another app provides.

Pure reads: nothing here writes to the database.
"""

from __future__ import annotations

from django.conf import settings
from django.db.models import Avg, BooleanField, Count, ExpressionWrapper, F, Prefetch, Q, Window
from django.db.models.functions import RowNumber

from arena.bots.models import Bot
from arena.ladders.models import Rating, RatingChange, RatingSnapshot
from arena.matches.models import Match, MatchSeat
from arena.matches.selectors import with_chance_state
from arena.matches.timing import TIMING_FIELDS, timing_from_columns
from engines import list_games

def _game_record(game) -> dict:
    return {
        "id": game.id,
        "title": game.title,
        "min_players": game.min_players,
        "max_players": game.max_players,
        "simultaneous": game.info.simultaneous,
        "chance": game.info.chance,
        "default_options": game.default_options,
        "builtin_bots": sorted(game.bots),
        "summary": game.facts.summary,   # one line: what it feels like to play
    }


def game_list() -> list[dict]:
    """Every registered game as a plain record, sorted by id."""
    return [_game_record(game) for game in list_games()]


def game_get(*, game_id: str) -> dict | None:
    """One registered game as a plain record, or None when no such game is registered."""
    for game in list_games():
        if game.id == game_id:
            return _game_record(game)
    return None


def game_rules_text(*, game_id: str) -> str:
    """The game's rules file (``docs/rules/<id>.md``) as text; empty when it is missing."""
    if not game_id.replace("_", "").isalnum():
        return ""
    path = settings.BASE_DIR / "docs" / "rules" / f"{game_id}.md"
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""


# What a listed seat shows of its bot (name, link, owner for the private parts) and version:
# building 3 models per seat of every column (descriptions, hashes, logs) was a third of a list's CPU.
LISTED_SEAT_FIELDS = ["id", "match_id", "seat", "bot_version_id", "score", "rank", "fault_kind", "fault_step",
                      "fault_message", "bot_version__id", "bot_version__bot_id", "bot_version__number",
                      "bot_version__bot__id", "bot_version__bot__name", "bot_version__bot__owner_id"]


def matches_for_listing(queryset, *, with_logs: bool = False, with_timing: bool = True):
    """Matches ready to list: without their replay bytes, bot archives or
    (unless asked) seat logs and timings, but knowing whether each has a replay and each seat a
    log (``replay_present``, ``log_present``), and whether a game sharing its chance is still to be
    played (``chance_open``: ``arena.matches.selectors.with_chance_state``)."""
    fields = LISTED_SEAT_FIELDS + (["log"] if with_logs else []) + (TIMING_FIELDS if with_timing else [])
    seats = (MatchSeat.objects.select_related("bot_version__bot").only(*fields)
             .annotate(log_present=ExpressionWrapper(~Q(log=""), output_field=BooleanField()))
             .order_by("seat"))
    return with_chance_state(queryset.defer("replay").prefetch_related(None)
                             .prefetch_related(Prefetch("seats", queryset=seats))
                             .annotate(replay_present=ExpressionWrapper(Q(replay__isnull=False),
                                                                        output_field=BooleanField())))


# --- a bot's page ----------------------------------------------------------------------------
# Every read below is bounded (the newest N matches or changes) and aggregated in SQL, so the
# page of a bot with 10,000+ matches costs about what a new bot's does, in a fixed number of queries.

RATING_CHART_POINTS = 500    # newest rating changes charted per ladder (and newest official snapshots)
RECENT_WINDOW = 200          # newest finished matches behind the fault and decision-time figures
OPPONENT_WINDOW = 1000       # newest finished matches behind the results by opponent
OPPONENTS_SHOWN = 25


def _finished_seats(version_ids):
    """Seats of these versions (a bot's) in finished matches. Naming the versions lets the database
    walk their seats newest first by index instead of sorting every seat of a busy bot."""
    return MatchSeat.objects.filter(bot_version_id__in=list(version_ids), match__status=Match.Status.DONE).exclude(
        match__kind=Match.Kind.SMOKE)


def bot_recent_match_ids(*, version_ids, limit: int) -> list[int]:
    """Ids of the newest ``limit`` seats' matches (any status but smoke tests, which the versions
    list shows) of these versions: a bot's, or a queryset of ids (a user's; a match seating two of
    them then appears twice)."""
    versions = version_ids if hasattr(version_ids, "query") else list(version_ids)  # a subquery stays one
    return list(MatchSeat.objects.filter(bot_version_id__in=versions).exclude(match__kind=Match.Kind.SMOKE)
                .order_by("-match_id")
                .values_list("match_id", flat=True)[:limit])


def bot_rating_charts(*, bot, ladder_ids: list[int], points: int = RATING_CHART_POINTS) -> dict[int, dict]:
    """Per ladder id: the newest ``points`` rating changes as chart series, oldest first:
    ``{"t": [unix seconds], "v": [value after], "m": [match ids], "start": value before the first,
    "total": changes in all}``. One query (a window per ladder) plus one count."""
    if not ladder_ids:
        return {}
    totals = dict(RatingChange.objects.filter(bot=bot, ladder_id__in=ladder_ids).values("ladder_id")
                  .annotate(n=Count("id")).values_list("ladder_id", "n"))
    rows = (RatingChange.objects.filter(bot=bot, ladder_id__in=ladder_ids)
            .annotate(newest=Window(RowNumber(), partition_by=[F("ladder_id")], order_by=[F("sequence").desc()]))
            .filter(newest__lte=points)
            .values_list("ladder_id", "match_id", "before", "after", "created_at")
            .order_by("ladder_id", "sequence"))  # a ladder's changes in sequence order are in id order
    charts: dict[int, dict] = {}
    for ladder_id, match_id, before, after, created_at in rows:
        chart = charts.setdefault(ladder_id, {"t": [], "v": [], "m": [], "start": before,
                                              "total": totals.get(ladder_id, 0)})
        chart["t"].append(round(created_at.timestamp(), 3))
        chart["v"].append(round(after, 3))
        chart["m"].append(match_id)
    official = bot_official_history(bot=bot, ladder_ids=list(charts), points=points)
    for ladder_id, history in official.items():
        charts[ladder_id]["official"] = history
    return charts


def bot_official_history(*, bot, ladder_ids: list[int], points: int = RATING_CHART_POINTS) -> dict[int, dict]:
    """Per ladder id: the newest ``points`` snapshots of the bot's official (batch) rating, oldest
    first: ``{"t": [unix seconds of the refit], "v": [rating], "lo": [...], "hi": [...]}`` (its 95 %
    interval). One query (a window per ladder)."""
    if not ladder_ids:
        return {}
    rows = (RatingSnapshot.objects.filter(rating__bot=bot, rating__ladder_id__in=ladder_ids)
            .annotate(newest=Window(RowNumber(), partition_by=[F("rating_id")], order_by=[F("fitted_at").desc()]))
            .filter(newest__lte=points)
            .values_list("rating__ladder_id", "fitted_at", "value", "low", "high")
            .order_by("rating__ladder_id", "fitted_at"))
    history: dict[int, dict] = {}
    for ladder_id, fitted_at, value, low, high in rows:
        series = history.setdefault(ladder_id, {"t": [], "v": [], "lo": [], "hi": []})
        series["t"].append(round(fitted_at.timestamp(), 3))
        series["v"].append(round(value, 1))
        series["lo"].append(round(low, 1))
        series["hi"].append(round(high, 1))
    return history


def bot_recent_form(*, version_ids, window: int = RECENT_WINDOW) -> dict:
    """Over the bot's newest ``window`` finished matches: how many, how many faulted and of which
    kind (counted in SQL), and per match its decision times (p50, p95, max ms) for the chart."""
    recent = list(_finished_seats(version_ids).order_by("-match_id")
                  .values("id", "match_id", "match__finished_at", "seat", *TIMING_FIELDS)[:window])
    ids = [row["id"] for row in recent]
    kinds = dict(MatchSeat.objects.filter(pk__in=ids).exclude(fault_kind="").values("fault_kind")
                 .annotate(n=Count("id")).order_by("-n", "fault_kind").values_list("fault_kind", "n"))
    recent.reverse()  # oldest first, for the chart
    times = {"t": [], "m": [], "p50": [], "p95": [], "max": []}
    for row in recent:
        timing = timing_from_columns(row, seat=row["seat"])
        timing = timing if isinstance(timing, dict) else {}
        finished_at, match_id = row["match__finished_at"], row["match_id"]
        if finished_at is None or not timing.get("decisions"):
            continue
        times["t"].append(round(finished_at.timestamp(), 3))
        times["m"].append(match_id)
        for key in ("p50", "p95", "max"):
            value = timing.get(f"{key}_ms")
            times[key].append(round(float(value), 3) if isinstance(value, (int, float)) else None)
    faulted = sum(kinds.values())
    return {"matches": len(recent), "faulted": faulted, "rate": faulted / len(recent) if recent else None,
            "kinds": kinds, "times": times}


def bot_results_by_opponent(*, bot, version_ids, window: int = OPPONENT_WINDOW,
                            limit: int = OPPONENTS_SHOWN) -> list[dict]:
    """Against each opponent in the bot's newest ``window`` finished matches (most games first):
    games together, how often it finished ahead of / behind that opponent, and its mean rank in
    those games. One grouped query."""
    recent = _finished_seats(version_ids).order_by("-match_id").values("match_id")[:window]
    rows = (_finished_seats(version_ids).filter(match_id__in=recent)
            .annotate(opponent_id=F("match__seats__bot_version__bot_id"),
                      opponent_name=F("match__seats__bot_version__bot__name"),
                      opponent_rank=F("match__seats__rank"))
            .filter(~Q(opponent_id=bot.pk))
            .values("opponent_id", "opponent_name")
            .annotate(games=Count("id"), ahead=Count("id", filter=Q(rank__lt=F("opponent_rank"))),
                      behind=Count("id", filter=Q(rank__gt=F("opponent_rank"))), mean_rank=Avg("rank"))
            .order_by("-games", "opponent_name")[:limit])
    return list(rows)


def bot_faulted_matches(*, version, limit: int = 10) -> list[dict]:
    """The version's newest faulted ladder matches (what paused it): match id, kind, step, finished."""
    return list(MatchSeat.objects.filter(bot_version=version, match__kind=Match.Kind.LADDER).exclude(fault_kind="")
                .order_by("-match_id").values("match_id", "fault_kind", "fault_step", "match__finished_at")[:limit])


def profile_bots(*, user):
    """A user's bots for their profile page, with their standing on each ladder (no archives)."""
    ratings = Rating.objects.select_related("ladder").only(
        "id", "bot_id", "elo", "games", "score_sum", "score_sq_sum", "batch_rating", "batch_low", "batch_high",
        "batch_provisional", "ladder__id", "ladder__slug", "ladder__name", "ladder__seat_count",
        "ladder__batch_fitted_at")
    return (Bot.objects.filter(owner=user).select_related("active_version")
            .only("id", "name", "game", "description", "is_active", "builtin", "owner_id",
                  "active_version__id", "active_version__number", "active_version__paused_at",
                  "active_version__status")
            .prefetch_related(Prefetch("ratings", queryset=ratings)).order_by("name"))
