"""Retention: what old unranked matches, unused archives and old rating snapshots may lose, and
nothing else (docs/retention.md).

After ``RETENTION_DAYS`` a finished challenge or A/B test game (the unrated matches a user asked
for) loses its replay and its seats' logs; each seat's fault message is cut to its first line, the arena's reason (the
rest quotes the bot's stderr). Its row and seats (who played, scores, ranks, fault kinds, timing)
stay. With ``archives``, a bot version's archive is emptied once the version can never play again
(its bot has a newer active version, or it failed its smoke test), it was uploaded before the cutoff,
and it has no match waiting or running, no tournament match and no tournament entry (a tournament
plays the versions frozen at its start). With ``snapshot_days``, the rating snapshots (the official
rating's history, one per refit that moved it) taken before that cutoff are thinned: each rating
keeps its first snapshot and the last of each day (UTC), so its chart still spans its whole life,
at a day's resolution where it is old; its latest snapshot (the bot page's "now", and what the next
refit compares with) is the last of its day, so it always stays.

Never touched: ladder matches (the leaderboards, rating histories and ``ratings_check`` read their
seats and rating changes), tournament matches, matches that are not finished, smoke tests, and
anything newer than its cutoff.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, timedelta

from django.db import transaction
from django.db.models import Exists, F, OuterRef, Q, Subquery, Sum
from django.db.models.functions import Coalesce, Length, TruncDay
from django.utils import timezone

from arena.bots.models import Bot, BotVersion
from arena.ladders.models import RatingSnapshot
from arena.matches.models import Match, MatchSeat
from arena.tournaments.models import Entrant

_BATCH = 1000


@dataclass
class RetentionReport:
    """What a run pruned (or, dry, would prune)."""
    replays: int = 0
    replay_bytes: int = 0
    logs: int = 0
    log_chars: int = 0
    fault_messages: int = 0
    archives: int = 0
    archive_bytes: int = 0
    snapshots: int = 0
    applied: bool = False


# The unrated matches users ask for: a challenge, or a game of an A/B test (its result is counted in
# the test's tally, which keeps its history; the game itself is then worth what a challenge is).
PRUNABLE_KINDS = (Match.Kind.CHALLENGE, Match.Kind.ABTEST)


def prunable_matches(*, cutoff):
    """Finished challenges and A/B test games that finished before ``cutoff``: the only matches
    retention touches."""
    return Match.objects.filter(kind__in=PRUNABLE_KINDS, rated=False, ladder__isnull=True,
                                status=Match.Status.DONE, finished_at__lt=cutoff)


def prunable_archives(*, cutoff):
    """Bot versions whose archive can never be needed again (see the module's docstring)."""
    superseded = Exists(Bot.objects.filter(pk=OuterRef("bot_id"), active_version__number__gt=OuterRef("number")))
    needed = Exists(MatchSeat.objects.filter(bot_version=OuterRef("pk")).filter(
        Q(match__status__in=[Match.Status.QUEUED, Match.Status.RUNNING]) | Q(match__kind=Match.Kind.TOURNAMENT)))
    active = Exists(Bot.objects.filter(active_version=OuterRef("pk")))
    # A tournament freezes its entrants' versions at the start: later rounds seat them, superseded or not.
    entered = Exists(Entrant.objects.filter(version=OuterRef("pk")))
    return (BotVersion.objects.alias(superseded=superseded, needed=needed, active=active, entered=entered)
            .filter(created_at__lt=cutoff, needed=False, active=False, entered=False)
            .filter(Q(status=BotVersion.Status.FAILED) | Q(status=BotVersion.Status.READY, superseded=True))
            .exclude(archive=b""))


def prunable_snapshots(*, cutoff):
    """Rating snapshots taken before ``cutoff`` that thinning removes: every one but its rating's
    first and the last of each day (UTC). What decides (a rating's first, each day's last) is never
    removed, so removing some never changes which others qualify: a run may stop anywhere, and a
    second run at the same cutoff finds nothing."""
    # The rating's first and a snapshot's next: each one probe of the (rating, fitted_at) index. As
    # scalar subqueries with a limit they stay probes; written as EXISTS, PostgreSQL may plan a hash
    # semi-join that walks the rating's every snapshot for each one (3 s a batch on 200,000 rows).
    theirs = RatingSnapshot.objects.filter(rating=OuterRef("rating")).values("fitted_at")
    return (RatingSnapshot.objects.filter(fitted_at__lt=cutoff)
            .alias(first_at=Subquery(theirs.order_by("fitted_at")[:1]),
                   next_at=Subquery(theirs.filter(fitted_at__gt=OuterRef("fitted_at")).order_by("fitted_at")[:1]),
                   day_end=TruncDay("fitted_at", tzinfo=UTC) + timedelta(days=1))
            .filter(fitted_at__gt=F("first_at"), next_at__lt=F("day_end")))


def retention_prune(*, days: int, apply: bool = False, archives: bool = False, snapshot_days: int | None = None,
                    now=None) -> RetentionReport:
    """Prune what is older than ``days`` days, and thin the rating snapshots older than
    ``snapshot_days`` (None: left alone); only when ``apply``, else count what would go."""
    for kept in (days, snapshot_days):
        if kept is not None and kept < 1:
            raise ValueError(f"retention of {kept} days: keep at least one day")
    now = now or timezone.now()
    cutoff = now - timedelta(days=days)
    report = RetentionReport(applied=apply)
    matches = prunable_matches(cutoff=cutoff)
    with_replay = matches.filter(replay__isnull=False)
    seats = MatchSeat.objects.filter(match__in=matches.values("pk"))
    with_log = seats.exclude(log="")
    long_message = seats.filter(fault_message__contains="\n")
    versions = prunable_archives(cutoff=cutoff) if archives else BotVersion.objects.none()
    snapshots = (prunable_snapshots(cutoff=now - timedelta(days=snapshot_days)) if snapshot_days is not None
                 else RatingSnapshot.objects.none())
    if not apply:
        report.replays = with_replay.count()
        report.replay_bytes = with_replay.aggregate(n=Coalesce(Sum(Length("replay")), 0))["n"]
        report.logs = with_log.count()
        report.log_chars = with_log.aggregate(n=Coalesce(Sum(Length("log")), 0))["n"]
        report.fault_messages = long_message.count()
        report.archives = versions.count()
        report.archive_bytes = versions.aggregate(n=Coalesce(Sum("size"), 0))["n"]
        report.snapshots = snapshots.count()
        return report
    # In batches of ids, each its own short transaction: recording and pages never wait long.
    for ids in _batches(with_replay):
        report.replays += Match.objects.filter(pk__in=ids, replay__isnull=False).update(replay=None)
    for ids in _batches(with_log):
        report.logs += MatchSeat.objects.filter(pk__in=ids).exclude(log="").update(log="")
    for ids in _batches(long_message):
        for seat in MatchSeat.objects.filter(pk__in=ids).only("id", "fault_message"):
            MatchSeat.objects.filter(pk=seat.pk).update(fault_message=seat.fault_message.split("\n", 1)[0])
            report.fault_messages += 1
    for ids in _batches(versions):
        with transaction.atomic():
            # Checked again under the lock: a match may have seated the version since.
            still = prunable_archives(cutoff=cutoff).filter(pk__in=ids).select_for_update(of=("self",))
            # A compiled version's built artifact goes with its sources (it too can never play again).
            report.archives += BotVersion.objects.filter(pk__in=list(still.values_list("pk", flat=True))).update(
                archive=b"", artifact=b"")
    for ids in _batches(snapshots):
        # No check again: a snapshot that qualified still does (see prunable_snapshots).
        report.snapshots += RatingSnapshot.objects.filter(pk__in=ids).delete()[0]
    return report


def _batches(queryset):
    last = 0
    while True:
        ids = list(queryset.filter(pk__gt=last).order_by("pk").values_list("pk", flat=True)[:_BATCH])
        if not ids:
            return
        yield ids
        last = ids[-1]
