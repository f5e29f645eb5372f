"""Cheap change tokens for live pages (static/arena/live.js).

A live region may name a token URL (``data-live-token``, ``/live/<kind>/<key>/``) and the token the
page was rendered with (``data-live-token-value``). live.js then polls the token, a few columns of
one or two rows, and fetches the page again only when it changed; ``final`` stops the polling (a
match done, a tournament over). Without a token a region re-fetches the whole page on its interval.

A page of another app registers its kind in its own module, e.g. an A/B test page::

    from arena.web.live import register_live

    @register_live("abtest")
    def _abtest_token(key: str):
        row = ABTest.objects.filter(pk=key).values_list("status", "games").first()
        return None if row is None else (f"{row[0]}:{row[1]}", row[0] in ("finished", "stopped", "failed"))

and marks its region ``data-live data-live-pending data-live-token="{% url 'web:live' 'abtest' test.id %}"
data-live-token-value="{{ live_token }}"`` (``live_token = token_of("abtest", test.id)[0]`` in the view).
"""

from __future__ import annotations

from collections.abc import Callable

from django.db.models import Count, Max, Q
from django.http import Http404, JsonResponse

from arena.matches.models import Match
from arena.tournaments.models import Tournament

TokenFunction = Callable[[str], "tuple[str, bool] | None"]
LIVE_TOKENS: dict[str, TokenFunction] = {}


def register_live(kind: str):
    """Decorator: ``fn(key) -> (token, final)``, or None when there is no such object (a 404)."""
    def register(fn: TokenFunction) -> TokenFunction:
        LIVE_TOKENS[kind] = fn
        return fn
    return register


def token_of(kind: str, key) -> tuple[str, bool] | None:
    """The current (token, final) of ``kind``/``key``, or None."""
    fn = LIVE_TOKENS.get(kind)
    return None if fn is None else fn(str(key))


def live_token(request, kind: str, key: str):
    """``{"token": ..., "final": bool}``, never cached."""
    found = token_of(kind, key)
    if found is None:
        raise Http404(f"Nothing live here: {kind} {key}.")
    response = JsonResponse({"token": found[0], "final": found[1]})
    response["Cache-Control"] = "no-store"
    return response


def _id(key: str) -> int | None:
    return int(key) if key.isascii() and key.isdigit() and 0 < int(key) < 2**63 else None


@register_live("match")
def _match_token(key: str):
    pk = _id(key)
    row = None if pk is None else Match.objects.filter(pk=pk).values_list("status", "attempts", "started_at", "finished_at").first()
    if row is None:
        return None
    status, attempts, started, finished = row
    return f"{status}:{attempts}:{started and started.timestamp()}:{finished and finished.timestamp()}", status in (
        Match.Status.DONE, Match.Status.FAILED)


@register_live("tournament")
def _tournament_token(key: str):
    tournament = Tournament.objects.filter(slug=key).values_list("pk", "status").first()
    if tournament is None:
        return None
    pk, status = tournament
    games = Match.objects.filter(group__tournament_table__round__tournament_id=pk).aggregate(
        all=Count("id"), open=Count("id", filter=Q(status__in=[Match.Status.QUEUED, Match.Status.RUNNING])), last=Max("id"))
    final = status in (Tournament.Status.FINISHED, Tournament.Status.CANCELLED) and not games["open"]
    return f"{status}:{games['all']}:{games['open']}:{games['last']}", final
