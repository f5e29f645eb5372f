"""Cheap change tokens for live pages (static/arena/live.js).

A live region may name a token URL (``data-live-token``, ``/live/<kind>/<key>/``) and the token the
page was rendered with (``data-live-token-value``). live.js then polls the token, a few columns of
one or two rows, and fetches the page again only when it changed; ``final`` stops the polling (a
match done, a tournament over). Without a token a region re-fetches the whole page on its interval.

A page of another app registers its kind in its own module, for example::

    from arena.web.live import live_id, register_live

    @register_live("widget")
    def _widget_token(key: str, user):
        row = Widget.objects.filter(pk=live_id(key)).values_list("status", "changed_at").first()
        return None if row is None else (f"{row[0]}:{row[1]}", row[0] == "done")

and marks its region ``data-live data-live-pending data-live-token="{% url 'web:live' 'widget' widget.id %}"
data-live-token-value="{{ live_token }}"`` (``live_token = token_of("widget", widget.id, request.user)[0]``
in the view). ``user`` is the one asking: a kind whose pages are private answers None (a 404) to
anyone else, as the A/B test page's token does (``arena/web/abtest_views.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db.models import Count, Max, Q
from django.http import Http404, JsonResponse

from arena.matches.live import match_live_step
from arena.matches.models import Match
from arena.matches.selectors import match_chance_open
from arena.tournaments.models import Tournament

TokenFunction = Callable[[str, Any], "tuple[str, bool] | None"]
LIVE_TOKENS: dict[str, TokenFunction] = {}


def register_live(kind: str):
    """Decorator: ``fn(key, user) -> (token, final)``, or None when there is no such object or
    ``user`` may not see it (a 404)."""
    def register(fn: TokenFunction) -> TokenFunction:
        LIVE_TOKENS[kind] = fn
        return fn
    return register


def token_of(kind: str, key, user=None) -> tuple[str, bool] | None:
    """The current (token, final) of ``kind``/``key`` as ``user`` may see it, or None."""
    fn = LIVE_TOKENS.get(kind)
    return None if fn is None else fn(str(key), user)


def live_token(request, kind: str, key: str):
    """``{"token": ..., "final": bool}``, never cached."""
    found = token_of(kind, key, request.user)
    if found is None:
        raise Http404(f"Nothing live here: {kind} {key}.")
    response = JsonResponse({"token": found[0], "final": found[1]})
    response["Cache-Control"] = "no-store"
    return response


def live_id(key: str) -> int | None:
    """A key that is a row id, or None."""
    return int(key) if key.isascii() and key.isdigit() and 0 < int(key) < 2**63 else None


@register_live("match")
def _match_token(key: str, user):
    pk = live_id(key)
    row = None if pk is None else Match.objects.filter(pk=pk).values_list(
        "status", "attempts", "started_at", "finished_at", "group_id").first()
    if row is None:
        return None
    status, attempts, started, finished, group_id = row
    # A game being played moves with its live steps, unless its chance is shared with games still
    # to play: then nobody but staff sees its moves, and its token does not say how far it got.
    step = None
    if status == Match.Status.RUNNING and (getattr(user, "is_staff", False)
                                           or not match_chance_open(Match(pk=pk, group_id=group_id))):
        step = match_live_step(match_id=pk, attempt=attempts)
    return f"{status}:{attempts}:{started and started.timestamp()}:{finished and finished.timestamp()}:{step}", status in (
        Match.Status.DONE, Match.Status.FAILED)


@register_live("tournament")
def _tournament_token(key: str, user):
    tournament = Tournament.objects.filter(slug=key).values_list("pk", "status").first()
    if tournament is None:
        return None
    pk, status = tournament
    games = Match.objects.filter(group__tournament_table__round__tournament_id=pk).aggregate(
        all=Count("id"), open=Count("id", filter=Q(status__in=[Match.Status.QUEUED, Match.Status.RUNNING])), last=Max("id"))
    final = status in (Tournament.Status.FINISHED, Tournament.Status.CANCELLED) and not games["open"]
    return f"{status}:{games['all']}:{games['open']}:{games['last']}", final
