"""A version's smoke test as match rows: one group of matches of kind ``smoke``, and how they read.

A smoke test is one group (``MatchGroup``, chance set ``smoke:<version id>``) of unrated matches,
one per seat count (and options) planned for the version (``arena/runs/smoke.py``), each on its own
seed, the version in a seat drawn at random and built-in versions in the others. They are queued,
claimed, leased, recorded and recovered like every match (one pipeline, ``arena/runs/tasks.py``);
their seeds, replays and logs stay private until the whole group has finished (the chance set), and
they show on no public list. ``SmokeTestRow`` is how pages and the verdict read one of them.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import BooleanField, Count, ExpressionWrapper, Q
from django.utils import timezone

from arena.bots.models import BotVersion
from arena.jobs.outbox import outbox_send_on_commit
from arena.matches.models import MAX_SEED, Match, MatchGroup, MatchSeat
from arena.matches.services import MATCH_OPEN_STATUSES, MATCH_OUTBOX, match_group_settle
from engines import InvalidOptions, get_game

# The error of a smoke match withdrawn before it was played: its version did not build, or failed
# another game of its smoke test (one failure decides). Such a match shows as skipped.
NOT_PLAYED = "Not played: "
NOT_BUILT = NOT_PLAYED + "the version does not build."
EARLIER_FAILED = NOT_PLAYED + "an earlier test failed."


def smoke_chance_set(version_id: int) -> str:
    """The chance set of a version's smoke group: its games stay private until all have ended."""
    return f"smoke:{version_id}"


def smoke_version_id(chance_set: str) -> int | None:
    """The version whose smoke group has ``chance_set`` (None for any other group)."""
    kind, _, pk = chance_set.partition(":")
    return int(pk) if kind == "smoke" and pk.isdigit() else None


def smoke_group_of(*, version_id: int) -> MatchGroup | None:
    """The version's smoke group, if it was planned (found from its seats: an indexed read)."""
    match = (Match.objects.filter(kind=Match.Kind.SMOKE, seats__bot_version_id=version_id)
             .select_related("group").only("id", "group").first())
    return match.group if match is not None else None


def match_smoke_group_create(*, version: BotVersion, opponents: Sequence[BotVersion],
                             plan: Sequence[tuple[int, dict]]) -> MatchGroup:
    """Queue a version's smoke test: one group of ``smoke`` matches, one per ``(seat_count,
    options)`` of ``plan``, each on a seed of its own and with the version in a seat drawn at random
    (both drawn here, on the server, and shown to nobody before the group has finished: a fixed or
    public seed would let a bot recognise its test); ``opponents`` (distinct ready versions, at
    least the largest seat count less one) take the other seats in order. The version may be
    pending: that is what it is tested for. Sent on commit like every match. Raises
    ValidationError for a seat count or options the game does not take."""
    game = version.bot.game
    info = get_game(game)
    for seats, options in plan:
        if not info.min_players <= seats <= info.max_players:
            raise ValidationError(f"{game} takes {info.min_players}-{info.max_players} players, not {seats}.",
                                  code="seat_count")
        try:
            info.resolve_options(options or {}, seats)
        except InvalidOptions as exc:
            raise ValidationError(str(exc), code="options") from None
    if not plan or len(opponents) < max(seats for seats, _ in plan) - 1:
        raise ValidationError("Not enough opponents for the smoke test.", code="opponents")
    seeds = [secrets.randbelow(MAX_SEED + 1) for _ in plan]
    now = timezone.now()
    with transaction.atomic():
        group = MatchGroup.objects.create(game=game, seed=seeds[0], size=len(plan),
                                          chance_set=smoke_chance_set(version.pk))
        for index, ((seats, options), seed) in enumerate(zip(plan, seeds)):
            mine, others = secrets.randbelow(seats), iter(opponents)
            match = Match.objects.create(kind=Match.Kind.SMOKE, game=game, options=options or {}, seed=seed,
                                         rated=False, queued_at=now, group=group, group_index=index)
            MatchSeat.objects.bulk_create([
                MatchSeat(match=match, seat=s, bot_version=version if s == mine else next(others))
                for s in range(seats)])
            outbox_send_on_commit(MATCH_OUTBOX, match.pk)
    return group


def smoke_matches_withdraw(*, version_id: int, error: str = NOT_BUILT) -> int:
    """Fail the smoke matches of the version still queued or running, unplayed (its build failed, or
    it failed one of them: the verdict is known), and settle the group; inside the caller's
    transaction. A worker still playing one finds it finished when it records (its play is
    discarded). Returns how many."""
    group = smoke_group_of(version_id=version_id)
    if group is None:
        return 0
    # The group first, then its games: the order every recording of one of them takes (smoke_group_lock).
    MatchGroup.objects.select_for_update().filter(pk=group.pk).values_list("pk").first()
    open_games = Match.objects.filter(group_id=group.pk, status__in=MATCH_OPEN_STATUSES)
    withdrawn = open_games.update(status=Match.Status.FAILED, error=error, finished_at=timezone.now(),
                                  lease_expires_at=None)
    last = Match.objects.filter(group_id=group.pk).only("id", "group_id").first()
    if last is not None:
        match_group_settle(match=last)
    return withdrawn


def smoke_group_lock(*, match_id: int) -> None:
    """Lock the group of a smoke match (nothing for any other match), before the match itself:
    recording one game of a smoke test may withdraw the others, whose recordings lock them first,
    so every recording of a smoke game takes the group first. Inside the caller's transaction."""
    games = Match.objects.filter(pk=match_id, kind=Match.Kind.SMOKE).values("group_id")
    MatchGroup.objects.select_for_update().filter(pk__in=games).values_list("pk").first()


@dataclass
class SmokeTestRow:
    """One smoke match as its version's owner reads it: where the version played and how it went."""

    match_id: int
    index: int
    seat_count: int
    options: dict
    seat: int
    seed: int
    match_status: str
    attempts: int
    started_at: datetime | None
    finished_at: datetime | None
    fault_kind: str
    fault_step: int | None
    fault_message: str
    log: str
    error: str
    timing: dict | None
    replay_present: bool

    @property
    def status(self) -> str:
        """queued, running, passed (played without a fault), failed, or skipped (never played)."""
        if self.match_status == Match.Status.DONE:
            return "failed" if self.fault_kind else "passed"
        if self.match_status == Match.Status.FAILED:
            return "skipped" if self.error.startswith(NOT_PLAYED) else "failed"
        return self.match_status

    @property
    def is_finished(self) -> bool:
        """Nothing more will happen to it."""
        return self.match_status in (Match.Status.DONE, Match.Status.FAILED)

    @property
    def passed(self) -> bool:
        """Played to the end without a fault of the version."""
        return self.status == "passed"

    @property
    def error_summary(self) -> str:
        """The last line of ``error`` (what the owner may see; the traceback is for staff)."""
        lines = [line for line in self.error.splitlines() if line.strip()]
        return lines[-1].strip()[:500] if lines else ""


def smoke_tests_of(*, version_ids: Sequence[int], texts: bool = True) -> dict[int, list[SmokeTestRow]]:
    """Each version's smoke matches in plan order (versions without any are absent); ``texts``
    reads the logs and fault messages too. Two queries."""
    seats = (MatchSeat.objects.filter(bot_version_id__in=list(version_ids), match__kind=Match.Kind.SMOKE)
             .select_related("match").defer("match__replay")
             .annotate(replay_present=ExpressionWrapper(Q(match__replay__isnull=False), output_field=BooleanField()))
             .order_by("bot_version_id", "match__group_index"))
    if not texts:
        seats = seats.defer("log", "fault_message")
    seats = list(seats)
    counts = dict(MatchSeat.objects.filter(match_id__in=[s.match_id for s in seats]).values("match_id")
                  .annotate(n=Count("id")).values_list("match_id", "n"))
    rows: dict[int, list[SmokeTestRow]] = {}
    for seat in seats:
        match = seat.match
        rows.setdefault(seat.bot_version_id, []).append(SmokeTestRow(
            match_id=match.pk, index=match.group_index or 0, seat_count=counts.get(match.pk, 0),
            options=match.options or {}, seat=seat.seat, seed=match.seed, match_status=match.status,
            attempts=match.attempts, started_at=match.started_at, finished_at=match.finished_at,
            fault_kind=seat.fault_kind, fault_step=seat.fault_step,
            fault_message=seat.fault_message if texts else "", log=seat.log if texts else "",
            error=match.error, timing=seat.timing, replay_present=seat.replay_present))
    return rows
