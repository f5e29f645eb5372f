"""Luck on the pages (docs/luck.md): a match's luck per seat and per step, for the replay viewer."""

from __future__ import annotations

from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404

from arena.matches.models import Match
from arena.matches.selectors import match_luck_steps
from workers.replay import ReplayError


def match_luck(request, match_id: int):
    """Every seat's score, luck and play of a done match, with the luck of the setup and of each
    step (recomputed when asked, then cached); 404 while the match has no public replay, 409 with
    the reason when its replay cannot be measured."""
    match = get_object_or_404(Match.objects.select_related("group").only(
        "id", "status", "replay", "group_id", "group__id", "group__finished_at"), pk=match_id)
    try:
        report = match_luck_steps(match, user=request.user)
    except ReplayError as exc:
        return JsonResponse({"detail": f"The luck of this match cannot be measured: {exc}"}, status=409)
    if report is None:
        raise Http404("This match has no replay yet.")
    return JsonResponse(report)
