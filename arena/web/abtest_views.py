"""A/B test pages: a test's LLR and Elo over its games with the verdict, stopping it, and starting
one from a bot's page. Only the test's owner and staff see a test (others get a 404). The page is
live (arena/web/live.py, kind ``abtest``): its token changes with every counted pair and with the
status, so the chart and the verdict update in place while the test runs."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from arena.abtests.models import VERSION_BLOBS, ABTest
from arena.abtests.services import ABTestLimitReached, abtest_create, abtest_opponents, abtest_report, abtest_stop
from arena.api.access import can_see_private
from arena.bots.models import Bot, BotVersion
from arena.web.live import live_id, register_live, token_of


def _test_for(request, test_id: int) -> ABTest:
    test = get_object_or_404(ABTest.objects.select_related("owner", "a__bot", "b__bot").defer(*VERSION_BLOBS),
                             pk=test_id)
    if not (request.user.is_staff or test.owner_id == request.user.pk):
        raise Http404("No such A/B test.")
    return test


@register_live("abtest")
def _abtest_token(key: str, user):
    """Status, pairs counted and games failed; None (a 404) for anyone but the owner and staff."""
    pk = live_id(key)
    row = None if pk is None else ABTest.objects.filter(pk=pk).values_list(
        "owner_id", "status", "tally", "games_failed").first()
    if row is None or user is None or not (user.is_staff or (user.is_authenticated and user.pk == row[0])):
        return None
    owner_id, status, tally, failed = row
    return f"{status}:{sum((tally or {}).get('counts', []))}:{failed}", status not in ABTest.OPEN


@login_required
def abtest_detail(request, test_id: int):
    """An A/B test: status, verdict, Elo with its interval, LLR between its bounds, and the chart."""
    test = _test_for(request, test_id)
    report = abtest_report(test)
    chart = {"games": [p[0] for p in test.history], "llr": [p[1] for p in test.history],
             "elo": [p[2] for p in test.history], "lo": [p[3] for p in test.history],
             "hi": [p[4] for p in test.history], "bounds": report["bounds"]}
    return render(request, "web/abtest_detail.html", {"test": test, "report": report, "chart": chart,
                                                      "opponents": abtest_opponents(test),
                                                      "live_token": token_of("abtest", test.pk, request.user)})


@login_required
@require_POST
def abtest_stop_view(request, test_id: int):
    """Stop an open test (its owner or staff)."""
    test = _test_for(request, test_id)
    try:
        abtest_stop(by=request.user, test=test)
    except (PermissionDenied, ValidationError) as exc:
        messages.error(request, " ".join(getattr(exc, "messages", [str(exc)])))
    else:
        messages.success(request, f"A/B test #{test.pk} is stopped.")
    return redirect("web:abtest_detail", test_id=test.pk)


def _float(value: str, default: float) -> float:
    try:
        return float(value) if value not in (None, "") else default
    except ValueError:
        raise ValidationError(f"{value!r} is not a number.", code="number") from None


def _version_id(value: str) -> int:
    """A version id from a form (ValueError when it is not one)."""
    number = int(value)
    if not 0 < number < 2**63:
        raise ValueError(value)
    return number


@login_required
@require_POST
def abtest_start_view(request, bot_id: int):
    """Start a test from a bot's page: B one of this bot's versions, A any version one may use."""
    bot = get_object_or_404(Bot, pk=bot_id)
    if not can_see_private(request.user, bot):
        raise PermissionDenied("Only the bot's owner can test its versions.")
    try:
        ids = {name: _version_id(request.POST.get(name, "")) for name in ("a", "b")}
        opponent_ids = [_version_id(value) for value in request.POST.getlist("opponents")]
        num_players = int(request.POST.get("num_players") or 2)
    except ValueError:
        messages.error(request, "A/B test: choose both versions (and the other seats by version).")
        return redirect("web:bot_detail", bot_id=bot.pk)
    found = BotVersion.objects.select_related("bot").defer("archive", "artifact").in_bulk([*ids.values(), *opponent_ids])
    try:
        if any(pk not in found for pk in [*ids.values(), *opponent_ids]) or found[ids["b"]].bot_id != bot.pk:
            raise ValidationError("Choose version B among this bot's versions and A among those listed.")
        max_games = request.POST.get("max_games") or None
        test = abtest_create(by=request.user, game=bot.game, num_players=num_players, a=found[ids["a"]],
                             b=found[ids["b"]], opponents=[found[pk] for pk in opponent_ids],
                             elo0=_float(request.POST.get("elo0"), 0.0), elo1=_float(request.POST.get("elo1"), 10.0),
                             max_games=int(max_games) if max_games and max_games.isdigit() else None)
    except (ABTestLimitReached, ValidationError, PermissionDenied) as exc:
        messages.error(request, "A/B test: " + " ".join(getattr(exc, "messages", [str(exc)])))
        return redirect("web:bot_detail", bot_id=bot.pk)
    messages.success(request, f"A/B test #{test.pk} is queued: its first games start within seconds.")
    return redirect("web:abtest_detail", test_id=test.pk)
