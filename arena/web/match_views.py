"""Match pages: the list with its filters, a match, its replays and its seats' logs."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, render

from arena.api.replays import full_replay_response, replay_response
from arena.abtests.models import ABTestPair
from arena.keyset import Bounds, keyset_page, parse_bounds
from arena.matches.live import match_live_read
from arena.matches.models import Match
from arena.matches.selectors import (
    log_refusal,
    match_chance_open,
    match_list,
    match_replay_visible,
    match_seat_log_visible,
    match_seats,
    match_seed_visible,
    with_chance_state,
)
from arena.tournaments.models import Table
from arena.web.forms import MatchFilterForm
from arena.web.live import token_of
from arena.web.page_helpers import (
    ACTIVE,
    PAGE_SIZE,
    viewer_context,
)
from arena.web.selectors import (
    matches_for_listing,
)
from engines import get_game
from workers.viewer import VIEWER_SCRIPTS

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
        "newer_url": keyset_url(query, page.previous_bounds), "older_url": keyset_url(query, page.next_bounds),
        "live_pending": any(m.status in ACTIVE for m in page.rows)})


def keyset_url(filters: dict, bounds: Bounds | None) -> str | None:
    """The query string of a neighbouring keyset page, keeping the filters; None when there is none."""
    if bounds is None:
        return None
    cursor = {"before": bounds.before} if bounds.before else {"after": bounds.after} if bounds.after else {}
    return "?" + urlencode({**filters, **cursor})


def match_detail(request, match_id: int):
    """A match: result, faults, timings, the replay viewer and download; seat logs for their owners and staff."""
    token = token_of("match", match_id, request.user)   # before the rows: never newer than they are
    match = get_object_or_404(with_chance_state(Match.objects.select_related("ladder", "requested_by", "group")
                                                .defer("replay", "requested_by__password")), pk=match_id)
    seats = []
    for seat in match_seats(match=match):
        seats.append({"seat": seat, "private": match_seat_log_visible(seat=seat, user=request.user, match=match)})
    has_replay = match_replay_visible(match=match, user=request.user) and Match.objects.filter(pk=match.pk, replay__isnull=False).exists()
    viewer = viewer_context(match.game) if has_replay else None
    group_games = (list(Match.objects.filter(group_id=match.group_id).only("id", "group_index", "status")
                        .order_by("group_index")) if match.group_id else [])
    # The whole page is live until the match has finished: its result and replay appear when it
    # lands; while it is played, its public view after the latest step (when its chance is its own).
    live, live_scripts = None, ()
    hidden = match_chance_open(match)
    if match.status in ACTIVE and (not hidden or request.user.is_staff):
        # Loaded while it is queued too: the page turns to running by itself (live.js).
        live_scripts = (VIEWER_SCRIPTS[0], get_game(match.game).facts.viewer_script, "arena/live_board.js")
    if match.status == Match.Status.RUNNING:
        shown = None if hidden and not request.user.is_staff else match_live_read(match_id=match.pk, attempt=match.attempts)
        live = {"hidden": hidden, "shown": shown, "viewer": viewer_context(match.game) if shown else None,
                "seats": [{"seat": item["seat"].seat, "name": item["seat"].bot_version.bot.name} for item in seats]}
    return render(request, "web/match_detail.html", {
        "live": live, "live_scripts": live_scripts, "origin": match_origin(match, request.user),
        "match": match, "seats": seats, "has_replay": has_replay, "viewer": viewer, "group_games": group_games,
        "group_hidden": match.status == Match.Status.DONE and match_chance_open(match),
        "any_fault": any(item["seat"].fault_kind for item in seats),
        "seed_visible": match_seed_visible(match=match, user=request.user), "live_main": True,
        "live_pending": match.status in ACTIVE, "live_kind": "match", "live_key": match.pk,
        "live_token": token[0] if token else ""})


def match_origin(match: Match, user) -> dict:
    """What a match off the ladders was played for, by its kind: a tournament's table (with its
    public page), an A/B test's pair (linked for its owner and staff, who may see the test), a
    challenge or a smoke test. Empty for a ladder match."""
    if match.ladder_id:
        return {}
    origin: dict = {"kind": match.kind, "label": match.get_kind_display()}
    if match.kind == Match.Kind.TOURNAMENT and match.group_id:
        table = Table.objects.select_related("round__tournament").filter(group_id=match.group_id).first()
        if table is not None:
            origin.update(tournament=table.round.tournament, round=table.round.number, table=table.index + 1)
    elif match.kind == Match.Kind.ABTEST and match.group_id:
        pair = ABTestPair.objects.select_related("test").filter(group_id=match.group_id).first()
        if pair is not None:
            origin.update(abtest=pair.test, pair=pair.number + 1,
                          abtest_visible=user.is_staff or pair.test.owner_id == user.pk)
    return origin


def match_replay(request, match_id: int):
    """The replay as a JSON file download."""
    match = get_object_or_404(Match.objects.select_related("group").only(
        "id", "status", "replay", "group_id", "group__id", "group__finished_at"), pk=match_id)
    if not match_replay_visible(match=match, user=request.user):
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
