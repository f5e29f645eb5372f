"""Pausing a bot version whose recent ladder matches faulted too often (settings ``AUTOPAUSE_*``).

The policy is pure (``arena.bots.autopause.pause_reason``); reading the version's latest ladder
seats spans bots and matches, so applying it lives here, called by the recording of a ladder match
(``arena.runs.recording``) inside its transaction.
"""

from __future__ import annotations

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from arena.bots.autopause import pause_reason
from arena.bots.models import BotVersion
from arena.matches.models import Match, MatchSeat


def bot_version_pause_if_faulting(*, version_id: int, now=None) -> bool:
    """Pause a ready, playing version from the ladders when its latest ladder matches break the
    fault rules (settings ``AUTOPAUSE_*``, ``arena.bots.autopause``); True when it was paused now.
    Matches before its owner last resumed it do not count. Call it inside the transaction that
    records a ladder match in which the version faulted."""
    now = now or timezone.now()
    with transaction.atomic():
        version = BotVersion.objects.select_for_update().defer("archive").filter(
            pk=version_id, status=BotVersion.Status.READY, paused_at__isnull=True).first()
        if version is None:
            return False
        streak, window = settings.AUTOPAUSE_STREAK, settings.AUTOPAUSE_WINDOW
        seats = MatchSeat.objects.filter(bot_version=version, match__kind=Match.Kind.LADDER,
                                         match__status=Match.Status.DONE)
        if version.resumed_at:
            seats = seats.filter(match__finished_at__gt=version.resumed_at)
        faults = list(seats.order_by("-match__finished_at", "-match_id")
                      .values_list("fault_kind", flat=True)[:max(streak, window, 1)])
        reason = pause_reason(faults, streak=streak, window=window, rate=settings.AUTOPAUSE_RATE,
                              min_matches=settings.AUTOPAUSE_MIN_MATCHES)
        if reason is None:
            return False
        version.paused_at = now
        version.pause_reason = reason
        version.save(update_fields=["paused_at", "pause_reason"])
        return True
