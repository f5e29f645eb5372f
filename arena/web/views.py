"""Server-rendered pages: parse input, call one service or selector, render a template."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.db.models import Count
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from arena.api.access import can_see_private
from arena.api.replays import full_replay_response, replay_response
from arena.api.throttles import ChallengeThrottle, UploadThrottle
from arena.bots.models import Bot, BotVersion
from arena.bots.services import bot_create, bot_update, bot_version_create
from arena.keyset import Bounds, keyset_page, parse_bounds
from arena.ladders.models import Ladder
from arena.ladders.selectors import bot_ratings, ladder_leaderboard, ladder_list, rating_history
from arena.matches.models import Match
from arena.matches.selectors import (match_list, match_replay_visible, match_seat_log_visible, match_seats,
                                     match_seed_visible)
from arena.matches.services import ChallengeRateLimited, challenge_create
from arena.web.charts import rating_chart
from arena.web.forms import BotCreateForm, BotSettingsForm, BotVersionForm, ChallengeForm, SignupForm
from arena.web.selectors import game_get, game_list, game_rules_text, matches_for_listing
from workers.viewer import VIEWER_SCRIPTS, VIEWER_STYLES, game_legend

PAGE_SIZE = 50
RECENT_MATCHES = 20

# Which form field a service's ValidationError code belongs to (the rest concern the file).
_BOT_FIELDS = {"invalid": "name", "name_taken": "name", "unknown_game": "game"}


def _page(request, items, size: int = PAGE_SIZE):
    return Paginator(items, size).get_page(request.GET.get("page"))


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


# --- home, games, ladders ----------------------------------------------------------------------

def home(request):
    """Games, active ladders and the latest finished matches."""
    ladders = ladder_list().annotate(entry_count=Count("ratings"))
    recent = matches_for_listing(match_list(status=Match.Status.DONE))[:10]
    return render(request, "web/home.html", {"games": game_list(), "ladders": ladders, "recent": recent})


def signup(request):
    """Create an account and log in."""
    if request.user.is_authenticated:
        return redirect("web:my_bots")
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, f"Welcome, {user.username}. Upload your first bot below.")
        return redirect("web:bot_create")
    return render(request, "registration/signup.html", {"form": form})


def games(request):
    """Every registered game."""
    return render(request, "web/games.html", {"games": game_list()})


def game_detail(request, game_id: str):
    """A game: players, summary, ladders and its rules."""
    game = game_get(game_id=game_id)
    if game is None:
        raise Http404(f"No game {game_id!r}.")
    ladders = ladder_list(game=game_id).annotate(entry_count=Count("ratings"))
    return render(request, "web/game_detail.html", {
        "game": game, "ladders": ladders, "rules": game_rules_text(game_id=game_id)})


def ladders(request):
    """Every active ladder."""
    rows = ladder_list().annotate(entry_count=Count("ratings"))
    return render(request, "web/ladders.html", {"ladders": rows})


def ladder_detail(request, slug: str):
    """A ladder's leaderboard and its latest matches."""
    ladder = get_object_or_404(Ladder, slug=slug)
    board = _page(request, ladder_leaderboard(ladder=ladder))
    recent = matches_for_listing(match_list(ladder=ladder))[:RECENT_MATCHES]
    game = game_get(game_id=ladder.game)
    return render(request, "web/ladder_detail.html", {
        "ladder": ladder, "board": board, "recent": recent, "game": game})


# --- bots --------------------------------------------------------------------------------------

def bot_detail(request, bot_id: int):
    """A bot: versions, ratings, recent matches; its logs for the owner and staff."""
    bot = get_object_or_404(
        Bot.objects.select_related("owner", "active_version").defer("active_version__archive"), pk=bot_id)
    private = can_see_private(request.user, bot)
    versions = bot.versions.defer("archive").order_by("-number")
    recent = list(matches_for_listing(match_list(bot=bot, limit=RECENT_MATCHES), with_logs=private)[:RECENT_MATCHES])
    logs = []
    if private:
        for match in recent:
            for seat in match.seats.all():
                if seat.bot_version.bot_id == bot.pk and (seat.log or seat.fault_message):
                    logs.append({"match": match, "seat": seat})
    ratings = list(bot_ratings(bot=bot))
    for rating in ratings:
        rating.chart = rating_chart(rating_history(ladder=rating.ladder, bot=bot))
    return render(request, "web/bot_detail.html", {
        "bot": bot, "private": private, "versions": versions, "ratings": ratings,
        "recent": recent, "logs": logs,
        "settings_form": BotSettingsForm(initial={"description": bot.description, "is_active": bot.is_active}),
        "version_form": BotVersionForm(),
        "challenge_form": ChallengeForm(bot=bot) if private and bot.active_version_id else None,
    })


@login_required
def my_bots(request):
    """The signed-in user's bots with their latest version's status."""
    bots = (Bot.objects.filter(owner=request.user).select_related("active_version").defer("active_version__archive")
            .prefetch_related("ratings__ladder").order_by("name"))
    latest = {}
    for version in BotVersion.objects.filter(bot__owner=request.user).defer("archive").order_by("bot", "-number"):
        latest.setdefault(version.bot_id, version)
    rows = [{"bot": bot, "latest": latest.get(bot.pk)} for bot in bots]
    return render(request, "web/my_bots.html", {"rows": rows})


@login_required
def bot_create_view(request):
    """Upload a new bot; every bad upload gets its specific message and stores nothing."""
    form = BotCreateForm(request.POST or None, request.FILES or None)
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
    return render(request, "web/bot_create.html", {"form": form}, status=status)


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
        messages.error(request, " ".join(e for errors in form.errors.values() for e in errors))
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


# --- matches -----------------------------------------------------------------------------------

def matches(request):
    """Matches newest first, filtered by ladder or status, a keyset page at a time (?before=ID,
    ?after=ID from the older/newer links): the last page costs what the first costs."""
    status = request.GET.get("status") or None
    if status not in (None, *Match.Status.values):
        status = None
    try:
        bounds = parse_bounds(request.GET.get("before"), request.GET.get("after"))
    except ValueError:
        bounds = Bounds()  # a hand-edited link: the first page
    ladder = request.GET.get("ladder") or None
    page = keyset_page(matches_for_listing(match_list(ladder=ladder, status=status, bounds=bounds)),
                       bounds=bounds, size=PAGE_SIZE)
    filters = {k: v for k, v in (("ladder", ladder), ("status", status)) if v}
    return render(request, "web/matches.html", {
        "page": page, "status": status or "", "ladder": request.GET.get("ladder", ""),
        "statuses": Match.Status.values,
        "newer_url": _keyset_url(filters, page.previous_bounds), "older_url": _keyset_url(filters, page.next_bounds)})


def _keyset_url(filters: dict, bounds: Bounds | None) -> str | None:
    """The query string of a neighbouring keyset page, keeping the filters; None when there is none."""
    if bounds is None:
        return None
    cursor = {"before": bounds.before} if bounds.before else {"after": bounds.after} if bounds.after else {}
    return "?" + urlencode({**filters, **cursor})


def match_detail(request, match_id: int):
    """A match: result, faults, timings, the replay viewer and download; seat logs for their owners and staff."""
    match = get_object_or_404(Match.objects.select_related("ladder", "requested_by").defer("replay"), pk=match_id)
    seats = []
    for seat in match_seats(match=match):
        seats.append({"seat": seat, "private": match_seat_log_visible(seat=seat, user=request.user)})
    has_replay = match_replay_visible(match=match) and Match.objects.filter(pk=match.pk, replay__isnull=False).exists()
    viewer = None
    if has_replay:
        try:
            legend = game_legend(match.game)
        except KeyError:
            legend = {}  # the viewer says which game it does not know
        viewer = {"legend": legend, "scripts": VIEWER_SCRIPTS, "styles": VIEWER_STYLES}
    return render(request, "web/match_detail.html", {
        "match": match, "seats": seats, "has_replay": has_replay, "viewer": viewer,
        "seed_visible": match_seed_visible(match=match, user=request.user)})


def match_replay(request, match_id: int):
    """The replay as a JSON file download."""
    match = get_object_or_404(Match.objects.only("id", "status", "replay"), pk=match_id)
    if not match_replay_visible(match=match):
        raise Http404("This match has no replay yet.")
    response = replay_response(request, match_id=match.pk, stored=match.replay)
    if response is None:
        raise Http404("This match has no replay yet.")
    return response


def match_replay_full(request, match_id: int):
    """The replay in full form (every view at every step), which the viewer on the match page reads."""
    match = get_object_or_404(Match.objects.only("id", "status", "replay"), pk=match_id)
    return full_replay_response(request, match=match)


@login_required
def match_log(request, match_id: int, seat: int):
    """One seat's log as plain text, for the bot's owner and staff."""
    match = get_object_or_404(Match.objects.defer("replay"), pk=match_id)
    row = match_seats(match=match).filter(seat=seat).first()
    if row is None:
        raise Http404(f"Match {match.pk} has no seat {seat}.")
    if not match_seat_log_visible(seat=row, user=request.user):
        raise PermissionDenied("Only the bot's owner and staff can read its log.")
    return HttpResponse(row.log, content_type="text/plain; charset=utf-8")
