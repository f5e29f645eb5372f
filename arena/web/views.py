"""Server-rendered pages: parse input, call one service or selector, render a template.

Parts of pages that change while someone looks (pending versions, queued and running matches,
leaderboards) are marked ``data-live`` in the templates: static/arena/live.js fetches the same
page again and swaps those parts in, so nobody has to reload.
"""

from __future__ import annotations

import hashlib
from types import SimpleNamespace
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.db.models import BooleanField, ExpressionWrapper, Q
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from arena.api.access import can_see_private
from arena.api.replays import full_replay_response, replay_response
from arena.api.throttles import ChallengeThrottle, UploadThrottle
from arena.bots.models import Bot, BotVersion, SmokeTest
from arena.bots.selectors import bot_id_named
from arena.bots.services import bot_create, bot_update, bot_version_create, bot_version_resume
from arena.keyset import Bounds, keyset_page, parse_bounds
from arena.ladders.models import Ladder
from arena.ladders.models import Rating
from arena.ladders.selectors import (bot_ratings, head_to_head, ladder_leaderboard, ladder_list, ladder_ranking,
                                     ladder_rankings, leaderboard_trends, probability_a_stronger, with_entry_counts)
from arena.matches.models import Match
from arena.matches.selectors import (log_refusal, match_chance_open, match_list, match_replay_visible, match_seat_log_visible,
                                     match_seats, match_seed_visible, with_chance_state)
from arena.matches.services import ChallengeRateLimited, challenge_create
from arena.tournaments.selectors import tournaments_of_bot
from arena.web import docs
from arena.web.forms import BotCreateForm, BotSettingsForm, BotVersionForm, ChallengeForm, MatchFilterForm
from arena.web.selectors import (RATING_CHART_POINTS, bot_faulted_matches, bot_rating_charts, bot_recent_form,
                                 bot_recent_match_ids, bot_results_by_opponent, game_get, game_list, game_rules_text,
                                 matches_for_listing)
from workers.viewer import VIEWER_SCRIPTS, VIEWER_STYLES, game_legend

PAGE_SIZE = 50
RECENT_MATCHES = 20
ACTIVE = (Match.Status.QUEUED, Match.Status.RUNNING)

# Which form field a service's ValidationError code belongs to (the rest concern the file).
_BOT_FIELDS = {"invalid": "name", "name_taken": "name", "unknown_game": "game"}


def _page(request, items, size: int | None = None):
    return Paginator(items, size or PAGE_SIZE).get_page(request.GET.get("page"))


def _throttled(request, throttle, what: str) -> str | None:
    """The API's throttle, applied to the forms too: a message when over the rate."""
    if throttle.allow_request(request, None):
        return None
    wait = throttle.wait()
    return f"Too many {what}: try again in {int(wait) + 1} seconds." if wait else f"Too many {what}."


def _upload_throttled(request) -> str | None:
    return _throttled(request, UploadThrottle(), "uploads")


def _form_error(form, exc: ValidationError, fields: dict[str, str], default: str) -> None:
    if hasattr(exc, "error_dict"):
        for field, errors in exc.message_dict.items():
            form.add_error(field if field in form.fields else None, errors)
        return
    form.add_error(fields.get(getattr(exc, "code", None), default), exc.messages)


def _bot_rows():
    """Bots as the pages list them: no archives, no owners' password hashes."""
    return (Bot.objects.select_related("owner", "active_version")
            .only("id", "name", "game", "description", "builtin", "is_active", "created_at", "owner_id",
                  "owner__id", "owner__username", "active_version__id", "active_version__number",
                  "active_version__status", "active_version__paused_at", "active_version__pause_reason"))


def _latest_versions(bot_ids) -> dict[int, BotVersion]:
    """The newest version of each bot (one query)."""
    latest = {}
    for version in (BotVersion.objects.filter(bot_id__in=list(bot_ids))
                    .only("id", "bot_id", "number", "status", "created_at", "paused_at")
                    .order_by("bot_id", "-number")):
        latest.setdefault(version.bot_id, version)
    return latest


# --- home, games, ladders, docs ----------------------------------------------------------------

def home(request):
    """Games, active ladders and the latest matches; a signed-in user's bots, their latest
    results and what needs them (failed or paused versions) first."""
    ladders = with_entry_counts(ladder_list())
    recent = matches_for_listing(match_list(status=Match.Status.DONE), with_timing=False)[:10]
    context = {"games": game_list(), "ladders": ladders, "recent": recent,
               "tournaments": _tournaments_to_show()}
    if request.user.is_authenticated:
        bots = list(_bot_rows().filter(owner=request.user).order_by("name"))
        latest = _latest_versions(b.pk for b in bots)
        rows = [{"bot": bot, "latest": latest.get(bot.pk)} for bot in bots]
        context.update({
            "my_rows": rows,
            "attention": [row for row in rows if _needs_attention(row)],
            "my_recent": _matches_by_ids(bot_recent_match_ids(
                version_ids=BotVersion.objects.filter(bot__owner=request.user).values("id"), limit=10))
            if bots else [],
            "live_pending": any(row["latest"] and row["latest"].status == BotVersion.Status.PENDING for row in rows),
        })
    return render(request, "web/home.html", context)


def _tournaments_to_show(limit: int = 5):
    """Running and scheduled tournaments first, then the latest finished ones."""
    from arena.tournaments.models import Tournament

    live = list(Tournament.objects.filter(status__in=["running", "paused", "scheduled"]).order_by("start_at")[:limit])
    return live + list(Tournament.objects.filter(status="finished").order_by("-finished_at")[:max(0, limit - len(live))])


def _tournaments_of_game(game_id: str):
    from arena.tournaments.models import Tournament

    return list(Tournament.objects.filter(game=game_id).order_by("-start_at", "-id")[:20])


def _matches_by_ids(ids, *, with_logs: bool = False) -> list[Match]:
    """These matches, newest first, ready to list."""
    return list(matches_for_listing(Match.objects.filter(pk__in=list(ids)).select_related("ladder")
                                    .order_by("-created_at", "-id"), with_logs=with_logs, with_timing=False))


def _needs_attention(row) -> bool:
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
        "game": game, "ladders": ladders, "tournaments": _tournaments_of_game(game_id),
        "rules_html": docs.render_markdown(docs.rules_for_site(rules)) if rules else "",
        "examples": docs.interface_examples(game_id),
        "has_starter_kit": docs.starter_kit_zip(game_id) is not None})


def starter_kit(request, game_id: str):
    """The game's starter kit as a zip download."""
    data = docs.starter_kit_zip(game_id) if game_get(game_id=game_id) else None
    if data is None:
        raise Http404(f"No starter kit for {game_id!r}.")
    response = HttpResponse(data, content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{game_id}-starter-kit.zip"'
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
    """A ladder's leaderboard (ranked and paginated in the database) and its latest matches."""
    ladder = get_object_or_404(Ladder, slug=slug)
    ranking = ladder_ranking(ladder=ladder, key=request.GET.get("by"))
    board = _page(request, ladder_leaderboard(ladder=ladder, ranking=ranking))
    rows = list(board.object_list)
    trends = leaderboard_trends(ladder=ladder, bot_ids=[row.bot_id for row in rows])
    for row in rows:
        row.trend = trends.get(row.bot_id)
        row.rating_interval = ranking.interval_of(row) if ranking.interval_of else None
        row.provisional = ranking.is_provisional(row)
        row.paused = bool(row.bot.active_version and row.bot.active_version.paused_at)
    board.object_list = rows
    recent = matches_for_listing(match_list(ladder=ladder), with_timing=False)[:RECENT_MATCHES]
    return render(request, "web/ladder_detail.html", {
        "ladder": ladder, "board": board, "rows": rows, "ranking": ranking,
        "rankings": ladder_rankings(ladder=ladder), "recent": recent, "game": game_get(game_id=ladder.game),
        "provisional_games": settings.LEADERBOARD_PROVISIONAL_GAMES,
        "provisional_note": ranking.provisional_note
        or f"Fewer than {settings.LEADERBOARD_PROVISIONAL_GAMES} games: its rating is still settling",
        # Rating changes (and so the trend) follow the live rating: Elo, or the mean score when solo.
        "trend_label": "Mean score" if ladder.is_solo else "Elo",
        "show_elo": ranking.key != "elo" and not ladder.is_solo,
        "trend_games": settings.LEADERBOARD_TREND_GAMES,
        "live_pending": any(m.status in ACTIVE for m in recent)})


def _compare_pick(request, name: str) -> int | None:
    """The id of the bot named or numbered ``name`` (``bot_id_named``); None when absent; ValueError for a name no bot has."""
    raw = request.GET.get(name, "").strip()
    if raw and (bot_id := bot_id_named(raw)) is None:
        raise ValueError(f"No bot is called {raw[:40]!r} (for {name.upper()}): give a bot's name or id.")
    return bot_id if raw else None


def ladder_compare(request, slug: str):
    """Two bots of a ladder side by side: P(A stronger than B) from the stored batch ratings and
    their head-to-head record at shared tables; a form to pick them. A bot is picked by name or id;
    a name no bot has or the same bot twice is a 400; a bot not entered in the ladder a 404."""
    ladder = get_object_or_404(Ladder, slug=slug)
    entrants = list(Rating.objects.filter(ladder=ladder).select_related("bot")
                    .only("id", "bot_id", "bot__id", "bot__name").order_by("bot__name", "bot_id"))
    context = {"ladder": ladder, "entrants": entrants, "a": None, "b": None, "error": ""}
    try:
        a_id, b_id = _compare_pick(request, "a"), _compare_pick(request, "b")
        if a_id is not None and a_id == b_id:
            raise ValueError("Pick two different bots.")
    except ValueError as exc:
        context["error"] = str(exc)
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
    from arena.tournaments.models import Tournament

    rows = list(Tournament.objects.order_by("-start_at", "-id")[:200])
    by_status = {status: [t for t in rows if t.status == status] for status in Tournament.Status.values}
    return render(request, "web/tournaments.html", {
        "running": by_status["running"] + by_status["paused"], "scheduled": by_status["scheduled"][::-1],
        "finished": by_status["finished"] + by_status["cancelled"]})


def tournament_detail(request, slug: str):
    """A tournament: setup, progress, standings, the bracket (elimination), rounds with their tables
    and each table's games."""
    from arena.tournaments.models import Tournament
    from arena.tournaments.selectors import tournament_progress, tournament_rounds, tournament_standings
    from arena.tournaments.services import tournament_points

    tournament = get_object_or_404(Tournament, slug=slug)
    progress = tournament_progress(tournament)
    return render(request, "web/tournament_detail.html", {
        "tournament": tournament, "game": game_get(game_id=tournament.game), "progress": progress,
        "standings": tournament_standings(tournament), "rounds": tournament_rounds(tournament),
        "points": tournament_points(tournament),
        "live_pending": tournament.status == Tournament.Status.RUNNING})


# --- bots --------------------------------------------------------------------------------------

def bot_detail(request, bot_id: int):
    """A bot: its standing and rating charts, results by opponent, faults and decision times over
    recent matches, versions (with smoke tests for the owner), recent matches, and the owner's logs.
    Every part reads a bounded window in a fixed number of queries."""
    bot = get_object_or_404(_bot_rows(), pk=bot_id)
    private = can_see_private(request.user, bot)
    versions = bot.versions.defer("archive").order_by("-number")
    versions = list(versions if private else versions.defer("validation_log"))
    smoke = {}
    if private:
        for test in (SmokeTest.objects.filter(version__bot=bot).defer("replay", "log", "fault_message", "outcome")
                     .annotate(replay_present=ExpressionWrapper(Q(replay__isnull=False), output_field=BooleanField()))
                     .order_by("version_id", "index")):
            smoke.setdefault(test.version_id, []).append(test)
    for version in versions:
        version.smoke = smoke.get(version.pk, [])
        version.smoke_over = version.status != BotVersion.Status.PENDING
    version_ids = [v.pk for v in versions]
    recent = _matches_by_ids(bot_recent_match_ids(version_ids=version_ids, limit=RECENT_MATCHES), with_logs=private)
    logs = []
    if private:
        for match in recent:
            for seat in match.seats.all():
                if (seat.bot_version.bot_id == bot.pk and (seat.log or seat.fault_message)
                        and match_seat_log_visible(seat=seat, user=request.user, match=match)):
                    logs.append({"match": match, "seat": seat})
    ratings = list(bot_ratings(bot=bot))
    aggregates = _bot_aggregates(bot=bot, version_ids=version_ids, recent=recent, ratings=ratings)
    charts = aggregates["charts"]
    for rating in ratings:
        rating.chart = charts.get(rating.ladder_id)
        rating.provisional = rating.games < settings.LEADERBOARD_PROVISIONAL_GAMES
    paused = bot.active_version if bot.active_version and bot.active_version.paused_at else None
    return render(request, "web/bot_detail.html", {
        "bot": bot, "private": private, "versions": versions, "ratings": ratings,
        "charts": {r.ladder.slug: r.chart for r in ratings if r.chart},
        "chart_points": RATING_CHART_POINTS,
        "form": aggregates["form"], "opponents": aggregates["opponents"],
        "recent": recent, "logs": logs, "paused": paused,
        "faulted": bot_faulted_matches(version=paused) if paused and private else [],
        "live_pending": any(v.status == BotVersion.Status.PENDING for v in versions)
        or any(m.status in ACTIVE for m in recent),
        "settings_form": BotSettingsForm(initial={"description": bot.description, "is_active": bot.is_active}),
        "version_form": BotVersionForm(),
        "challenge_form": ChallengeForm(bot=bot) if private and bot.active_version_id else None,
        "tournaments": tournaments_of_bot(bot),
    })


def _bot_aggregates(*, bot, version_ids, recent, ratings) -> dict:
    """The bot page's rating charts, recent form and results by opponent: reads of hundreds of
    rows (a third of the page's CPU) that change only when one of its matches finishes. Cached
    under what that changes: its newest matches' statuses and its standings (and its creation
    time, which keeps a recreated database's reused ids apart); an older match finishing late
    shows within BOT_PAGE_CACHE_SECONDS."""
    stamp = repr((bot.pk, bot.created_at.isoformat(), [(m.pk, m.status) for m in recent],
                  [(r.ladder_id, r.games, r.elo, r.faults, r.score_sum) for r in ratings]))
    key = "bot-page:" + hashlib.sha256(stamp.encode()).hexdigest()
    aggregates = cache.get(key)
    if aggregates is None:
        aggregates = {"charts": bot_rating_charts(bot=bot, ladder_ids=[r.ladder_id for r in ratings]),
                      "form": bot_recent_form(version_ids=version_ids),
                      "opponents": bot_results_by_opponent(bot=bot, version_ids=version_ids)}
        cache.set(key, aggregates, settings.BOT_PAGE_CACHE_SECONDS)
    return aggregates


@login_required
def my_bots(request):
    """The signed-in user's bots with their latest version's status, pauses and standing."""
    bots = list(_bot_rows().filter(owner=request.user).prefetch_related("ratings__ladder").order_by("name"))
    latest = _latest_versions(b.pk for b in bots)
    rows = [{"bot": bot, "latest": latest.get(bot.pk)} for bot in bots]
    return render(request, "web/my_bots.html", {
        "rows": rows, "live_pending": any(r["latest"] and r["latest"].status == "pending" for r in rows)})


@login_required
def bot_create_view(request):
    """Upload a new bot; every bad upload gets its specific message and stores nothing."""
    form = BotCreateForm(request.POST or None, request.FILES or None, initial={"game": request.GET.get("game")})
    status = 200
    if request.method == "POST":
        throttled = _upload_throttled(request)
        if throttled:
            form.is_valid()
            form.add_error(None, throttled)
            status = 429
        elif form.is_valid():
            try:
                bot = bot_create(owner=request.user, name=form.cleaned_data["name"],
                                 game=form.cleaned_data["game"], upload=form.cleaned_data["file"],
                                 description=form.cleaned_data["description"])
            except ValidationError as exc:
                _form_error(form, exc, _BOT_FIELDS, "file")
            else:
                messages.success(request, f"{bot.name} uploaded: version 1 is being smoke-tested.")
                return redirect("web:bot_detail", bot_id=bot.pk)
        if status == 200:
            status = 400
    return render(request, "web/bot_create.html", {"form": form, "games": game_list()}, status=status)


@login_required
def bot_version_create_view(request, bot_id: int):
    """Upload a new version of one's own bot."""
    bot = get_object_or_404(Bot, pk=bot_id)
    if not can_see_private(request.user, bot):
        raise PermissionDenied("Only the bot's owner can upload a new version.")
    form = BotVersionForm(request.POST or None, request.FILES or None)
    status = 200
    if request.method == "POST":
        throttled = _upload_throttled(request)
        if throttled:
            form.add_error(None, throttled)
            status = 429
        elif form.is_valid():
            try:
                version = bot_version_create(bot=bot, upload=form.cleaned_data["file"], by=request.user)
            except ValidationError as exc:
                _form_error(form, exc, {}, "file")
            else:
                messages.success(request, f"Version {version.number} uploaded: it is being smoke-tested.")
                return redirect("web:bot_detail", bot_id=bot.pk)
        if status == 200:
            status = 400
    return render(request, "web/bot_version_create.html", {"bot": bot, "form": form}, status=status)


@login_required
@require_POST
def bot_settings_view(request, bot_id: int):
    """Change a bot's description or whether it plays ladder matches (owner and staff)."""
    bot = get_object_or_404(Bot, pk=bot_id)
    if not can_see_private(request.user, bot):
        raise PermissionDenied("Only the bot's owner can change it.")
    form = BotSettingsForm(request.POST)
    if form.is_valid():
        try:
            bot_update(bot=bot, by=request.user, description=form.cleaned_data["description"],
                       is_active=form.cleaned_data["is_active"])
        except ValidationError as exc:
            messages.error(request, " ".join(exc.messages))
        else:
            messages.success(request, "Saved.")
    else:
        messages.error(request, " ".join(e for errors in form.errors.values() for e in errors))
    return redirect("web:bot_detail", bot_id=bot.pk)


@login_required
@require_POST
def bot_resume_view(request, bot_id: int):
    """Let the bot's paused version play ladder matches again (owner and staff)."""
    bot = get_object_or_404(Bot.objects.select_related("active_version").defer("active_version__archive"), pk=bot_id)
    if not can_see_private(request.user, bot):
        raise PermissionDenied("Only the bot's owner can resume it.")
    if bot.active_version and bot.active_version.paused_at:
        bot_version_resume(version=bot.active_version, by=request.user)
        messages.success(request, f"v{bot.active_version.number} plays ladder matches again; "
                                  "only its new faults count towards another pause.")
    return redirect("web:bot_detail", bot_id=bot.pk)


@login_required
@require_POST
def bot_challenge_view(request, bot_id: int):
    """Ask for an unrated challenge match of one's bot against chosen bots."""
    bot = get_object_or_404(Bot.objects.select_related("active_version").defer("active_version__archive"), pk=bot_id)
    if not can_see_private(request.user, bot):
        raise PermissionDenied("Only the bot's owner can challenge with it.")
    form = ChallengeForm(request.POST, bot=bot)
    throttled = _throttled(request, ChallengeThrottle(), "challenges")
    if throttled:
        messages.error(request, throttled)
    elif not form.is_valid():
        # The message shows at the top of the bot's page, away from the form: it names its field.
        messages.error(request, " ".join(f"{form[name].label}: {error}" if name in form.fields else error
                                         for name, errors in form.errors.items() for error in errors))
    else:
        try:
            match = challenge_create(by=request.user, bot=bot, opponents=list(form.cleaned_data["opponents"]),
                                     seed=form.cleaned_data["seed"])
        except (ChallengeRateLimited, ValidationError) as exc:
            messages.error(request, " ".join(exc.messages))
        else:
            messages.success(request, f"Challenge match #{match.pk} is queued.")
            return redirect("web:match_detail", match_id=match.pk)
    return redirect("web:bot_detail", bot_id=bot.pk)


def _smoke_test(request, bot_id: int, number: int, index: int) -> SmokeTest:
    """A smoke test of one of the bot's versions, for its owner and staff, once the version's whole
    smoke test has ended (its seed and replay are not shown before)."""
    test = get_object_or_404(
        SmokeTest.objects.select_related("version__bot__owner").defer("version__archive", "replay"),
        version__bot_id=bot_id, version__number=number, index=index)
    if not can_see_private(request.user, test.version.bot):
        raise PermissionDenied("Only the bot's owner can see its smoke tests.")
    if test.version.status == BotVersion.Status.PENDING:
        raise Http404("This smoke test has not ended yet.")
    return test


@login_required
def smoke_test_detail(request, bot_id: int, number: int, index: int):
    """One smoke-test match of a version: where it played, how it went, its log and replay."""
    test = _smoke_test(request, bot_id, number, index)
    has_replay = SmokeTest.objects.filter(pk=test.pk, replay__isnull=False).exists()
    return render(request, "web/smoke_test.html", {
        "test": test, "bot": test.version.bot, "version": test.version, "has_replay": has_replay,
        "viewer": _viewer(test.version.bot.game) if has_replay else None})


@login_required
def smoke_test_replay_full(request, bot_id: int, number: int, index: int):
    """A smoke test's replay in full form, for the viewer on its page (owner and staff)."""
    test = _smoke_test(request, bot_id, number, index)
    stored = SmokeTest.objects.filter(pk=test.pk).values_list("replay", flat=True).first()
    # The match page's reader takes a finished match with a stored replay: a smoke test is one.
    return full_replay_response(request, match=SimpleNamespace(status=Match.Status.DONE, replay=stored))


@login_required
def smoke_test_replay(request, bot_id: int, number: int, index: int):
    """A smoke test's replay as a JSON download (owner and staff)."""
    test = _smoke_test(request, bot_id, number, index)
    stored = SmokeTest.objects.filter(pk=test.pk).values_list("replay", flat=True).first()
    response = replay_response(request, match_id=test.pk, stored=stored)
    if response is None:
        raise Http404("This smoke test has no replay.")
    response["Content-Disposition"] = f'attachment; filename="smoke-test-{bot_id}-v{number}-{index}.json"'
    return response


# --- matches -----------------------------------------------------------------------------------

def matches(request):
    """Matches newest first, filtered by game, ladder, bot, kind and status (a bad value is an
    error shown above an empty list, never silently ignored), a keyset page at a time (?before=ID,
    ?after=ID from the older/newer links): the last page costs what the first costs."""
    form = MatchFilterForm(request.GET or None)
    try:
        bounds = parse_bounds(request.GET.get("before"), request.GET.get("after"))
    except ValueError:
        bounds = Bounds()  # a hand-edited link: the first page
    filters = {}
    if form.is_bound and not form.is_valid():
        queryset = Match.objects.none()
    else:
        filters = {key: value for key, value in (form.cleaned_data.items() if form.is_bound else ()) if value}
        # Cut a bot's seats to the page in the subquery only when no other filter thins them afterwards.
        limit = PAGE_SIZE + 1 if set(filters) == {"bot"} else None
        queryset = match_list(game=filters.get("game"), ladder=filters.get("ladder"), bot=filters.get("bot"),
                              kind=filters.get("kind"), status=filters.get("status"), bounds=bounds, limit=limit)
    page = keyset_page(matches_for_listing(queryset, with_timing=False), bounds=bounds, size=PAGE_SIZE)
    query = {key: (value.name if key == "bot" else value) for key, value in filters.items()}
    return render(request, "web/matches.html", {
        "form": form, "page": page, "filtered_bot": filters.get("bot"),
        "newer_url": _keyset_url(query, page.previous_bounds), "older_url": _keyset_url(query, page.next_bounds),
        "live_pending": any(m.status in ACTIVE for m in page.rows)})


def _keyset_url(filters: dict, bounds: Bounds | None) -> str | None:
    """The query string of a neighbouring keyset page, keeping the filters; None when there is none."""
    if bounds is None:
        return None
    cursor = {"before": bounds.before} if bounds.before else {"after": bounds.after} if bounds.after else {}
    return "?" + urlencode({**filters, **cursor})


def match_detail(request, match_id: int):
    """A match: result, faults, timings, the replay viewer and download; seat logs for their owners and staff."""
    match = get_object_or_404(with_chance_state(Match.objects.select_related("ladder", "requested_by", "group")
                                                .defer("replay", "requested_by__password")), pk=match_id)
    seats = []
    for seat in match_seats(match=match):
        seats.append({"seat": seat, "private": match_seat_log_visible(seat=seat, user=request.user, match=match)})
    has_replay = match_replay_visible(match=match) and Match.objects.filter(pk=match.pk, replay__isnull=False).exists()
    viewer = _viewer(match.game) if has_replay else None
    group_games = (list(Match.objects.filter(group_id=match.group_id).only("id", "group_index", "status")
                        .order_by("group_index")) if match.group_id else [])
    # The whole page is live until the match has finished: its result and replay appear when it lands.
    return render(request, "web/match_detail.html", {
        "match": match, "seats": seats, "has_replay": has_replay, "viewer": viewer, "group_games": group_games,
        "group_hidden": match.status == Match.Status.DONE and match_chance_open(match),
        "any_fault": any(item["seat"].fault_kind for item in seats),
        "seed_visible": match_seed_visible(match=match, user=request.user), "live_main": True,
        "live_pending": match.status in ACTIVE})


def _viewer(game: str) -> dict:
    """What the replay viewer needs on a page: its scripts, styles and the game's legend."""
    try:
        legend = game_legend(game)
    except KeyError:
        legend = {}  # the viewer says which game it does not know
    return {"legend": legend, "scripts": VIEWER_SCRIPTS, "styles": VIEWER_STYLES}


def match_replay(request, match_id: int):
    """The replay as a JSON file download."""
    match = get_object_or_404(Match.objects.select_related("group").only(
        "id", "status", "replay", "group_id", "group__id", "group__finished_at"), pk=match_id)
    if not match_replay_visible(match=match):
        raise Http404("This match has no replay yet.")
    response = replay_response(request, match_id=match.pk, stored=match.replay)
    if response is None:
        raise Http404("This match has no replay yet.")
    return response


def match_replay_full(request, match_id: int):
    """The replay in full form (every view at every step), which the viewer on the match page reads."""
    match = get_object_or_404(Match.objects.select_related("group").only(
        "id", "status", "replay", "group_id", "group__id", "group__finished_at"), pk=match_id)
    return full_replay_response(request, match=match)


@login_required
def match_log(request, match_id: int, seat: int):
    """One seat's log as plain text, for the bot's owner and staff."""
    match = get_object_or_404(Match.objects.defer("replay"), pk=match_id)
    row = match_seats(match=match).filter(seat=seat).first()
    if row is None:
        raise Http404(f"Match {match.pk} has no seat {seat}.")
    if not match_seat_log_visible(seat=row, user=request.user, match=match):
        raise PermissionDenied(log_refusal(seat=row, user=request.user))
    return HttpResponse(row.log, content_type="text/plain; charset=utf-8")
