"""What authors are told, decided above the apps: each receiver reads the rows of the apps that
own them and calls ``arena.notifications.services.notification_send``, whose (user, kind, key)
uniqueness makes a redelivered task or a second signal harmless.

- a version failed its smoke test: its owner;
- a bot was paused from the ladders (the automatic pause, recorded with a match): its owner;
- a challenge ended: whoever asked for it;
- a bot faulted in a tournament game: its owner, once per game;
- a bot faulted in most of its games of a tournament (at least SIGNAL_MIN_GAMES played): its owner
  and every staff user, once per tournament and bot.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db.models import Count, Q
from django.urls import reverse

from arena.bots.models import BotVersion
from arena.matches.models import Match, MatchSeat
from arena.notifications.models import Kind
from arena.notifications.services import notification_send
from arena.tournaments.models import Table

SIGNAL_MIN_GAMES = 4


def _result_lines(seats: list[MatchSeat]) -> str:
    return "\n".join(f"seat {s.seat}: {s.bot_version.bot.name} v{s.bot_version.number}, score {s.score:g}, rank {s.rank}"
                     + (f", faulted ({s.fault_kind} at step {s.fault_step})" if s.fault_kind else "")
                     if s.score is not None else f"seat {s.seat}: {s.bot_version.bot.name}" for s in seats)


def after_match(sender, match_id: int, **kwargs) -> None:
    """A match was recorded done, or failed for good."""
    match = Match.objects.select_related("requested_by").defer("replay").filter(pk=match_id).first()
    if match is None:
        return
    seats = list(MatchSeat.objects.filter(match=match).select_related("bot_version__bot__owner").order_by("seat"))
    url = reverse("web:match_detail", args=[match.pk])
    if match.kind == Match.Kind.CHALLENGE and match.requested_by_id:
        words = "ended" if match.status == Match.Status.DONE else "could not be played"
        notification_send(user=match.requested_by, kind=Kind.CHALLENGE_ENDED, key=f"match:{match.pk}",
                          title=f"Your challenge (match #{match.pk}) {words}",
                          body=_result_lines(seats) if match.status == Match.Status.DONE else match.error_summary, url=url)
    for seat in seats if match.kind != Match.Kind.SMOKE else []:
        version, bot = seat.bot_version, seat.bot_version.bot
        if version.paused_at is not None and not bot.builtin:
            notification_send(user=bot.owner, kind=Kind.BOT_PAUSED, key=f"pause:{version.pk}:{version.paused_at.isoformat()}",
                              title=f"{bot.name} v{version.number} was paused from the ladders",
                              body=version.pause_reason, url=reverse("web:bot_detail", args=[bot.pk]))
    if match.kind == Match.Kind.TOURNAMENT and match.status == Match.Status.DONE:
        _tournament_faults(match, [s for s in seats if s.fault_kind], url)
    if match.kind == Match.Kind.SMOKE:  # its group's last game judges the version
        for seat in seats:
            if seat.bot_version.kind != BotVersion.Kind.BUILTIN:
                after_version_judged(sender, version_id=seat.bot_version_id)


def _tournament_faults(match: Match, faulted: list[MatchSeat], url: str) -> None:
    table = Table.objects.select_related("round__tournament").filter(group_id=match.group_id).first()
    if table is None or not faulted:
        return
    tournament = table.round.tournament
    page = reverse("web:tournament_detail", args=[tournament.slug])
    for seat in faulted:
        bot = seat.bot_version.bot
        if bot.builtin:
            continue
        notification_send(user=bot.owner, kind=Kind.TOURNAMENT_FAULT, key=f"match:{match.pk}:seat:{seat.seat}",
                          title=f"{bot.name} faulted in {tournament.name} (match #{match.pk})",
                          body=f"{seat.fault_kind} at step {seat.fault_step}; the built-in fallback played its seat.", url=url)
        games = MatchSeat.objects.filter(match__group__tournament_table__round__tournament=tournament,
                                         match__status=Match.Status.DONE, bot_version__bot=bot).aggregate(
            played=Count("id"), faulted=Count("id", filter=~Q(fault_kind="")))
        if games["played"] >= SIGNAL_MIN_GAMES and 2 * games["faulted"] > games["played"]:
            title = f"{bot.name} faulted in {games['faulted']} of its {games['played']} games of {tournament.name}"
            body = ("Most of its games were played by the built-in fallback. Its owner may fix it; an admin may "
                    "withdraw it from the tournament.")
            staff = list(get_user_model().objects.filter(is_staff=True, is_active=True))
            for user in [bot.owner] + [u for u in staff if u.pk != bot.owner_id]:
                notification_send(user=user, kind=Kind.TOURNAMENT_SIGNAL, key=f"tournament:{tournament.pk}:bot:{bot.pk}",
                                  title=title, body=body, url=page)


def after_version_judged(sender, version_id: int, **kwargs) -> None:
    """A version's smoke test was judged: its owner hears of a failure."""
    version = BotVersion.objects.select_related("bot__owner").defer("archive").filter(pk=version_id).first()
    if version is None or version.status != BotVersion.Status.FAILED or version.bot.builtin:
        return
    bot = version.bot
    log = version.validation_log or ""
    notification_send(user=bot.owner, kind=Kind.VERSION_FAILED, key=f"version:{version.pk}",
                      title=f"{bot.name} v{version.number} failed its smoke test",
                      body=log[:2000] + ("…" if len(log) > 2000 else ""), url=reverse("web:bot_detail", args=[bot.pk]))
