"""Bot pages: a bot, my bots, creating a bot or a version, settings, resume, challenges, smoke tests."""

from __future__ import annotations

import hashlib
from types import SimpleNamespace

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from arena.api.access import can_see_private
from arena.api.replays import full_replay_response, replay_response
from arena.api.throttles import ChallengeThrottle
from arena.bots.models import Bot, BotVersion
from arena.bots.services import bot_create, bot_update, bot_version_create, bot_version_resume
from arena.ladders.selectors import (
    bot_ratings,
)
from arena.ladders.models import Rating
from arena.matches.models import Match
from arena.matches.selectors import match_seat_log_visible
from arena.matches.smoke import SmokeTestRow, smoke_tests_of
from arena.matches.services import ChallengeRateLimited, challenge_create
from arena.tournaments.selectors import (
    tournaments_of_bot,
)
from arena.web.live import live_id, register_live
from arena.web.forms import BotCreateForm, BotSettingsForm, BotVersionForm, ChallengeForm
from arena.web.page_helpers import (
    ACTIVE,
    BOT_FIELDS,
    RECENT_MATCHES,
    bot_rows,
    form_error,
    latest_versions,
    matches_by_ids,
    throttled_message,
    upload_throttled,
    viewer_context,
)
from arena.web.selectors import (
    RATING_CHART_POINTS,
    bot_faulted_matches,
    bot_rating_charts,
    bot_recent_form,
    bot_recent_match_ids,
    bot_results_by_opponent,
    game_list,
)

# --- bots --------------------------------------------------------------------------------------

def bot_detail(request, bot_id: int):
    """A bot: its standing and rating charts, results by opponent, faults and decision times over
    recent matches, versions (with smoke tests for the owner), recent matches, and the owner's logs.
    Every part reads a bounded window in a fixed number of queries."""
    live = _bot_token(str(bot_id), request.user)   # before the rows: never newer than they are
    bot = get_object_or_404(bot_rows(), pk=bot_id)
    live_token = live[0] if live else ""
    private = can_see_private(request.user, bot)
    versions = bot.versions.defer("archive", "artifact").order_by("-number")
    versions = list(versions if private else versions.defer("validation_log", "build_log"))
    smoke = smoke_tests_of(version_ids=[v.pk for v in versions], texts=False) if private else {}
    for version in versions:
        version.smoke = smoke.get(version.pk, [])
        version.smoke_over = version.status != BotVersion.Status.PENDING
    version_ids = [v.pk for v in versions]
    recent = matches_by_ids(bot_recent_match_ids(version_ids=version_ids, limit=RECENT_MATCHES), with_logs=private)
    logs = []
    if private:
        for match in recent:
            for seat in match.seats.all():
                if (seat.bot_version.bot_id == bot.pk and (seat.log or seat.fault_message)
                        and match_seat_log_visible(seat=seat, user=request.user, match=match)):
                    logs.append({"match": match, "seat": seat})
    ratings = list(bot_ratings(bot=bot))
    aggregates = bot_aggregates(bot=bot, version_ids=version_ids, recent=recent, ratings=ratings)
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
        "live_token": live_token,
        "settings_form": BotSettingsForm(initial={"description": bot.description, "is_active": bot.is_active}),
        "version_form": BotVersionForm(),
        "challenge_form": ChallengeForm(bot=bot) if private and bot.active_version_id else None,
        "tournaments": tournaments_of_bot(bot),
    })


@register_live("bot")
def _bot_token(key: str, user):
    """What the live parts of a bot's page show, in a few columns: the bot's active version and
    state, each version's status (a pending one turning active or refused, a pause), its ratings'
    game counts and its newest matches' statuses. Never final: a new version may come."""
    pk = live_id(key)
    bot = None if pk is None else Bot.objects.filter(pk=pk).values_list("active_version_id", "is_active").first()
    if bot is None:
        return None
    versions = list(BotVersion.objects.filter(bot_id=pk).order_by("id").values_list(
        "id", "status", "paused_at", "validated_at", "build_status"))
    games = list(Rating.objects.filter(bot_id=pk).order_by("ladder_id").values_list("ladder_id", "games"))
    recent = bot_recent_match_ids(version_ids=[v[0] for v in versions], limit=RECENT_MATCHES)
    statuses = sorted(Match.objects.filter(pk__in=recent).values_list("id", "status", "attempts"))
    text = repr((bot, versions, games, statuses))
    return hashlib.sha256(text.encode()).hexdigest()[:20], False


def bot_aggregates(*, bot, version_ids, recent, ratings) -> dict:
    """The bot page's rating charts, recent form and results by opponent: reads of hundreds of
    rows (a third of the page's CPU) that change only when one of its matches finishes or its
    ladder is refitted. Cached under what that changes: its newest matches' statuses, its standings
    and their last refit (the official rating's history), and its creation time, which keeps a
    recreated database's reused ids apart; an older match finishing late shows within
    BOT_PAGE_CACHE_SECONDS."""
    stamp = repr((bot.pk, bot.created_at.isoformat(), [(m.pk, m.status) for m in recent],
                  [(r.ladder_id, r.games, r.elo, r.faults, r.score_sum, r.batch_fitted_at) for r in ratings]))
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
    bots = list(bot_rows().filter(owner=request.user).prefetch_related("ratings__ladder").order_by("name"))
    latest = latest_versions(b.pk for b in bots)
    rows = [{"bot": bot, "latest": latest.get(bot.pk)} for bot in bots]
    return render(request, "web/my_bots.html", {
        "rows": rows, "live_pending": any(r["latest"] and r["latest"].status == "pending" for r in rows)})


@login_required
def bot_create_view(request):
    """Upload a new bot; every bad upload gets its specific message and stores nothing."""
    form = BotCreateForm(request.POST or None, request.FILES or None, initial={"game": request.GET.get("game")})
    status = 200
    if request.method == "POST":
        throttled = upload_throttled(request)
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
                form_error(form, exc, BOT_FIELDS, "file")
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
        throttled = upload_throttled(request)
        if throttled:
            form.add_error(None, throttled)
            status = 429
        elif form.is_valid():
            try:
                version = bot_version_create(bot=bot, upload=form.cleaned_data["file"], by=request.user)
            except ValidationError as exc:
                form_error(form, exc, {}, "file")
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
    bot = get_object_or_404(Bot.objects.select_related("active_version").defer("active_version__archive", "active_version__artifact"), pk=bot_id)
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
    bot = get_object_or_404(Bot.objects.select_related("active_version").defer("active_version__archive", "active_version__artifact"), pk=bot_id)
    if not can_see_private(request.user, bot):
        raise PermissionDenied("Only the bot's owner can challenge with it.")
    form = ChallengeForm(request.POST, bot=bot)
    throttled = throttled_message(request, ChallengeThrottle(), "challenges")
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


def smoke_test(request, bot_id: int, number: int, index: int) -> tuple[BotVersion, SmokeTestRow]:
    """A smoke match of one of the bot's versions, for its owner and staff, once the version's whole
    smoke test has ended (its seed and replay are not shown before)."""
    version = get_object_or_404(BotVersion.objects.select_related("bot__owner").defer("archive", "artifact"),
                                bot_id=bot_id, number=number)
    if not can_see_private(request.user, version.bot):
        raise PermissionDenied("Only the bot's owner can see its smoke tests.")
    test = next((t for t in smoke_tests_of(version_ids=[version.pk]).get(version.pk, []) if t.index == index), None)
    if test is None:
        raise Http404("No such smoke test.")
    if version.status == BotVersion.Status.PENDING:
        raise Http404("This smoke test has not ended yet.")
    return version, test


@login_required
def smoke_test_detail(request, bot_id: int, number: int, index: int):
    """One smoke-test match of a version: where it played, how it went, its log and replay."""
    version, test = smoke_test(request, bot_id, number, index)
    return render(request, "web/smoke_test.html", {
        "test": test, "bot": version.bot, "version": version, "has_replay": test.replay_present,
        "viewer": viewer_context(version.bot.game) if test.replay_present else None})


def _stored_replay(test: SmokeTestRow):
    return Match.objects.filter(pk=test.match_id).values_list("replay", flat=True).first()


@login_required
def smoke_test_replay_full(request, bot_id: int, number: int, index: int):
    """A smoke test's replay in full form, for the viewer on its page (owner and staff)."""
    _version, test = smoke_test(request, bot_id, number, index)
    # The match page's reader takes a finished match with a stored replay: a played smoke test is one.
    return full_replay_response(request, match=SimpleNamespace(status=Match.Status.DONE, replay=_stored_replay(test)))


@login_required
def smoke_test_replay(request, bot_id: int, number: int, index: int):
    """A smoke test's replay as a JSON download (owner and staff)."""
    _version, test = smoke_test(request, bot_id, number, index)
    response = replay_response(request, match_id=test.match_id, stored=_stored_replay(test))
    if response is None:
        raise Http404("This smoke test has no replay.")
    response["Content-Disposition"] = f'attachment; filename="smoke-test-{bot_id}-v{number}-{index}.json"'
    return response
