"""Server-rendered pages: parse input, call one service or selector, render a template.

One module per page family: this one (home, games, ladders, docs, tournaments), ``bot_views`` (bots,
versions, smoke tests, challenges), ``match_views`` (matches, replays, logs); ``page_helpers`` what
they share.

Parts of pages that change while someone looks (pending versions, queued and running matches,
leaderboards) are marked ``data-live`` in the templates: static/arena/live.js fetches the same
page again and swaps those parts in, so nobody has to reload.
"""

from __future__ import annotations

from django.conf import settings
from django.core.cache import cache
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.utils.safestring import mark_safe

from arena.bots.models import BotVersion
from arena.bots.selectors import bot_id_named
from arena.ladders.models import Ladder, Rating
from arena.ladders.selectors import (
    head_to_head,
    ladder_leaderboard,
    ladder_list,
    ladder_ranking,
    ladder_rankings,
    ladder_board_version,
    leaderboard_trends,
    probability_a_stronger,
    with_entry_counts,
)
from arena.matches.models import Match
from arena.matches.selectors import (
    match_list,
)
from arena.tournaments.models import Tournament
from arena.tournaments.selectors import (
    tournament_points,
    tournament_progress,
    tournament_rounds,
    tournament_standings,
)
from arena.web import docs
from arena.web.live import token_of
from arena.web.page_helpers import (
    ACTIVE,
    RECENT_MATCHES,
    bot_rows,
    latest_versions,
    PAGE_SIZE,
    matches_by_ids,
    page_number,
)
from arena.web.selectors import (
    bot_recent_match_ids,
    game_get,
    game_list,
    game_rules_text,
    matches_for_listing,
)
from workers.toolchains import TITLES as LANGUAGE_TITLES

# --- home, games, ladders, docs ----------------------------------------------------------------

def home(request):
    """Games, active ladders and the latest matches; a signed-in user's bots, their latest
    results and what needs them (failed or paused versions) first."""
    ladders = with_entry_counts(ladder_list())
    recent = matches_for_listing(match_list(status=Match.Status.DONE), with_timing=False)[:10]
    context = {"games": game_list(), "ladders": ladders, "recent": recent,
               "tournaments": tournaments_to_show()}
    if request.user.is_authenticated:
        bots = list(bot_rows().filter(owner=request.user).order_by("name"))
        latest = latest_versions(b.pk for b in bots)
        rows = [{"bot": bot, "latest": latest.get(bot.pk)} for bot in bots]
        context.update({
            "my_rows": rows,
            "attention": [row for row in rows if needs_attention(row)],
            "my_recent": matches_by_ids(bot_recent_match_ids(
                version_ids=BotVersion.objects.filter(bot__owner=request.user).values("id"), limit=10))
            if bots else [],
            "live_pending": any(row["latest"] and row["latest"].status == BotVersion.Status.PENDING for row in rows),
        })
    return render(request, "web/home.html", context)


def tournaments_to_show(limit: int = 5):
    """Running and scheduled tournaments first, then the latest finished ones."""
    live = list(Tournament.objects.filter(status__in=["running", "paused", "scheduled"]).order_by("start_at")[:limit])
    return live + list(Tournament.objects.filter(status="finished").order_by("-finished_at")[:max(0, limit - len(live))])


def tournaments_of_game(game_id: str):
    return list(Tournament.objects.filter(game=game_id).order_by("-start_at", "-id")[:20])


def needs_attention(row) -> bool:
    latest, bot = row["latest"], row["bot"]
    return bool((latest and latest.status == BotVersion.Status.FAILED)
                or (bot.active_version and bot.active_version.paused_at))


def games(request):
    """Every registered game."""
    return render(request, "web/games.html", {"games": game_list()})


def game_detail(request, game_id: str):
    """A game: players, summary, ladders, its rules as HTML, what a bot is sent, the starter kit."""
    game = game_get(game_id=game_id)
    if game is None:
        raise Http404(f"No game {game_id!r}.")
    ladders = with_entry_counts(ladder_list(game=game_id))
    rules = game_rules_text(game_id=game_id)
    return render(request, "web/game_detail.html", {
        "game": game, "ladders": ladders, "tournaments": tournaments_of_game(game_id),
        "rules_html": docs.render_markdown(docs.rules_for_site(rules)) if rules else "",
        "examples": docs.interface_examples(game_id),
        "has_starter_kit": docs.starter_kit_zip(game_id) is not None,
        "kit_languages": docs.starter_kit_languages(game_id)})


def starter_kit(request, game_id: str):
    """The game's starter kit as a zip download (``?language=cpp`` and so on: that language's kit)."""
    language = request.GET.get("language", "python")
    data = docs.starter_kit_zip(game_id, language) if game_get(game_id=game_id) else None
    if data is None:
        raise Http404(f"No starter kit for {game_id!r} in {language[:40]!r}.")
    response = HttpResponse(data, content_type="application/zip")
    name = f"{game_id}-starter-kit.zip" if language == "python" else f"{game_id}-{language}-starter-kit.zip"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


def doc_page(request, name: str):
    """One of the published docs (docs/<name>.md) as HTML."""
    text = docs.doc_text(name)
    if text is None:
        raise Http404(f"No document {name!r}.")
    return render(request, "web/doc.html", {
        "title": docs.PUBLISHED_DOCS[name], "html": docs.render_markdown(text), "name": name,
        "published": docs.PUBLISHED_DOCS})


def ladders(request):
    """Every active ladder."""
    rows = with_entry_counts(ladder_list())
    return render(request, "web/ladders.html", {"ladders": rows})


def ladder_detail(request, slug: str):
    """A ladder's leaderboard (ranked and paginated in the database, its HTML cached under the
    board's version) and its latest matches."""
    ladder = get_object_or_404(Ladder, slug=slug)
    ranking = ladder_ranking(ladder=ladder, key=request.GET.get("by"))
    language = request.GET.get("language", "")
    language_error = ""
    if language and language not in LANGUAGE_TITLES:
        # Never ignored: an empty board under the reason.
        language_error = f"Unknown language {language[:40]!r}: one of {', '.join(LANGUAGE_TITLES)}."
    context = {
        "ladder": ladder, "ranking": ranking, "rankings": ladder_rankings(ladder=ladder), "language": language,
        "provisional_games": settings.LEADERBOARD_PROVISIONAL_GAMES,
        "provisional_note": ranking.provisional_note
        or f"Fewer than {settings.LEADERBOARD_PROVISIONAL_GAMES} games: its rating is still settling",
        # Rating changes (and so the trend) follow the live rating: Elo, or the mean score when solo.
        "trend_label": "Mean score" if ladder.is_solo else "Elo",
        "show_elo": ranking.key != "elo" and not ladder.is_solo,
        "trend_games": settings.LEADERBOARD_TREND_GAMES}
    context["leaderboard_html"] = leaderboard_html(request, context)
    recent = matches_for_listing(match_list(ladder=ladder), with_timing=False)[:RECENT_MATCHES]
    return render(request, "web/ladder_detail.html", {
        **context, "recent": recent, "game": game_get(game_id=ladder.game),
        "live_pending": any(m.status in ACTIVE for m in recent),
        "language_error": language_error, "languages": LANGUAGE_TITLES.items()},
        status=400 if language_error else 200)


LEADERBOARD_CACHE_SECONDS = 600   # a bound on memory: the version changes whenever the board does


def leaderboard_html(request, context: dict) -> str:
    """The leaderboard's table and page links (``web/_leaderboard.html``), from the cache when the
    board's version (``ladder_board_version``, read before the rows) has not changed since it was
    drawn. Drawing a page of 50 costs about 25 ms of web and database CPU at 800 entries; the
    version, about 5 ms (bench/page_cpu.py)."""
    ladder, ranking, language = context["ladder"], context["ranking"], context["language"]
    version = ladder_board_version(ladder=ladder)
    paginator = Paginator(ladder_leaderboard(ladder=ladder, ranking=ranking, language=language or None), PAGE_SIZE)
    number = page_number(paginator, request.GET.get("page"))
    key = None if version is None else "leaderboard:1:" + ":".join(str(part) for part in (
        ladder.pk, ranking.key, language, number, context["provisional_games"], context["trend_games"], version))
    html = cache.get(key) if key else None
    if html is None:
        board = paginator.page(number)
        rows = list(board.object_list)
        trends = leaderboard_trends(ladder=ladder, bot_ids=[row.bot_id for row in rows])
        for row in rows:
            row.trend = trends.get(row.bot_id)
            row.rating_interval = ranking.interval_of(row) if ranking.interval_of else None
            row.provisional = ranking.is_provisional(row)
            row.paused = bool(row.bot.active_version and row.bot.active_version.paused_at)
        board.object_list = rows
        html = render_to_string("web/_leaderboard.html", {**context, "board": board, "rows": rows})
        if key:
            cache.set(key, str(html), LEADERBOARD_CACHE_SECONDS)
    return mark_safe(html)  # noqa: S308 - drawn by the template above, its values escaped there


def compare_pick(request, name: str) -> int | None:
    """The id of the bot named or numbered ``name`` (``bot_id_named``); None when absent; ValueError for a name no bot has."""
    raw = request.GET.get(name, "").strip()
    if raw and (bot_id := bot_id_named(raw)) is None:
        raise ValueError(f"No bot is called {raw[:40]!r} (for {name.upper()}): give a bot's name or id.")
    return bot_id if raw else None


def ladder_compare(request, slug: str):
    """Two bots of a ladder side by side: P(A stronger than B) from the stored batch ratings and
    their head-to-head record at shared tables; a form to pick them. A bot id that is not a
    number or the same bot twice is a 400; a bot not entered in the ladder a 404."""
    ladder = get_object_or_404(Ladder, slug=slug)
    entrants = list(Rating.objects.filter(ladder=ladder).select_related("bot")
                    .only("id", "bot_id", "bot__id", "bot__name").order_by("bot__name", "bot_id"))
    context = {"ladder": ladder, "entrants": entrants, "a": None, "b": None, "error": ""}
    a_id = b_id = None
    try:
        a_id = compare_pick(request, "a")
        b_id = compare_pick(request, "b")
        if a_id is not None and a_id == b_id:
            raise ValueError("Pick two different bots.")
    except ValueError as exc:
        # The form keeps the picks it understood, so that a person fixes one choice, not both.
        context.update(error=str(exc), a_id=a_id, b_id=b_id)
        return render(request, "web/ladder_compare.html", context, status=400)
    context["a_id"], context["b_id"] = a_id, b_id
    if a_id is None or b_id is None:
        return render(request, "web/ladder_compare.html", context)
    picked = {r.bot_id: r for r in Rating.objects.filter(ladder=ladder, bot_id__in=[a_id, b_id])
              .select_related("bot").only("id", "bot_id", "elo", "games", "batch_rating", "batch_low", "batch_high",
                                          "batch_games", "batch_provisional", "batch_fitted_at", "bot__id",
                                          "bot__name")}
    missing = [str(i) for i in (a_id, b_id) if i not in picked]
    if missing:
        raise Http404(f"No bot {' or '.join(missing)} is entered in {ladder.name}.")
    a, b = picked[a_id], picked[b_id]
    context.update(a=a, b=b, probability=probability_a_stronger(a, b), record=head_to_head(ladder=ladder, a=a_id, b=b_id))
    return render(request, "web/ladder_compare.html", context)


# --- tournaments -------------------------------------------------------------------------------

def tournaments(request):
    """Tournaments: running, scheduled, then finished (and cancelled), newest first."""
    rows = list(Tournament.objects.order_by("-start_at", "-id")[:200])
    by_status = {status: [t for t in rows if t.status == status] for status in Tournament.Status.values}
    return render(request, "web/tournaments.html", {
        "running": by_status["running"] + by_status["paused"], "scheduled": by_status["scheduled"][::-1],
        "finished": by_status["finished"] + by_status["cancelled"]})


def tournament_detail(request, slug: str):
    """A tournament: setup, progress, standings, the bracket (elimination), rounds with their tables
    and each table's games."""
    tournament = get_object_or_404(Tournament, slug=slug)
    live_state = token_of("tournament", tournament.slug)
    progress = tournament_progress(tournament)
    rounds = tournament_rounds(tournament)
    # An entrant's owner sees their bots' tables and games first ("my tables and games").
    mine = set()
    if request.user.is_authenticated:
        mine = set(tournament.entrants.filter(bot__owner=request.user).values_list("pk", flat=True))
    my_tables = [{"round": r["number"], **table} for r in rounds for table in r["tables"]
                 if mine & {e["id"] for e in table["entrants"]}]
    return render(request, "web/tournament_detail.html", {
        "tournament": tournament, "game": game_get(game_id=tournament.game), "progress": progress,
        "standings": tournament_standings(tournament), "rounds": rounds, "my_tables": my_tables, "my_entrants": mine,
        "points": tournament_points(tournament),
        "live_pending": tournament.status == Tournament.Status.RUNNING, "live_token": live_state})
