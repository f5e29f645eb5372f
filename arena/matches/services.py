"""Match services: creating matches and challenges, claiming, leases, storing outcomes, re-queueing.

This app records facts only: ``match_store_outcome`` and ``match_store_failure`` write a match's
result or failure inside the caller's transaction. What follows from them in other apps (ratings,
the auto-pause of faulting bots) is ``arena/runs/recording.py``'s, in that same transaction.
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Sequence
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import DataError, connection, transaction
from django.db.models import Count, F, Q
from django.utils import timezone

from arena.bots.models import Bot, BotVersion
from arena.jobs.leases import Heartbeat, lease_until
from arena.jobs.outbox import Outbox, outbox_send_on_commit
from arena.matches.models import MAX_SEED, Match, MatchGroup, MatchSeat
from arena.matches.timing import TIMING_FIELDS, timing_columns
from competition.rotation import seat_orders
from engines import InvalidOptions, get_game, list_games
from workers.luck import LUCK_MODEL
from workers.runner import ranks_with_faults
from workers.storable import storable_text

MAX_LOG_CHARS = 64 * 1024

log = logging.getLogger(__name__)


class ChallengeRateLimited(ValidationError):
    """The user asked for more challenge matches than the hourly limit allows;
    ``retry_after``: seconds until the oldest challenge of the hour leaves the window."""

    retry_after: int | None = None


# Every kind of match (ladder, challenge, tournament) waits in one outbox: queued is waiting.
MATCH_OUTBOX = Outbox(task="arena.run_match", model=Match, waiting=Q(status=Match.Status.QUEUED),
                      since="queued_at")


def _send_run_match_on_commit(match_id: int) -> None:
    """Send the match task once the current transaction commits (never for a rolled-back match);
    a broker that is down leaves it to the outbox relay, the caller never sees an error."""
    outbox_send_on_commit(MATCH_OUTBOX, match_id)


def _held(match_id: int, attempt: int, worker: str = ""):
    """The match while attempt ``attempt`` (of the process ``worker``, when given) still runs it.

    The attempt alone does not tell two runs apart once the admin re-queued a running match (its
    attempts start again); the process recorded at the claim does.
    """
    held = Match.objects.filter(pk=match_id, status=Match.Status.RUNNING, attempts=attempt)
    return held.filter(worker=worker[:200]) if worker else held


def match_heartbeat(*, match_id: int, attempt: int, worker: str = "") -> Heartbeat:
    """The heartbeat that renews the lease of a match while attempt ``attempt`` (of ``worker``) runs it."""
    return Heartbeat(_held(match_id, attempt, worker), "lease_expires_at",
                     label=f"match {match_id} attempt {attempt}", deadline=settings.MATCH_HARD_TIME_LIMIT)


def match_validate(*, game: str, versions: Sequence[BotVersion], options: dict | None = None,
                   same_bot: bool = False) -> None:
    """Raise ValidationError unless ``versions`` (seat order) can play ``game`` with ``options``:
    what match_create checks, for forms that show the error before creating anything. Versions of
    one bot may meet only with ``same_bot`` (an A/B test of a new version against its old one)."""
    if game not in {g.id for g in list_games()}:
        raise ValidationError(f"Unknown game {game!r}.", code="unknown_game")
    info = get_game(game)
    if not info.min_players <= len(versions) <= info.max_players:
        raise ValidationError(
            f"{game} takes {info.min_players}-{info.max_players} players, not {len(versions)}.",
            code="seat_count")
    try:
        info.resolve_options(options or {}, len(versions))
    except InvalidOptions as exc:
        raise ValidationError(str(exc), code="options") from None
    bot_ids = [v.bot_id for v in versions]
    if len(set(bot_ids)) != len(bot_ids) and not (same_bot and len({v.pk for v in versions}) == len(versions)):
        raise ValidationError("A bot cannot play against itself.", code="same_bot")
    for v in versions:
        if v.bot.game != game:
            raise ValidationError(f"{v.bot.name} plays {v.bot.game}, not {game}.", code="wrong_game")
        if v.status != BotVersion.Status.READY:
            raise ValidationError(f"{v.label} is not ready ({v.status}).", code="not_ready")


def match_create(*, game: str, versions: Sequence[BotVersion], seed: int | None = None,
                 options: dict | None = None, ladder=None, kind: str = Match.Kind.LADDER,
                 requested_by: AbstractBaseUser | None = None, group: MatchGroup | None = None,
                 group_index: int | None = None, same_bot: bool = False) -> Match:
    """Create a queued match, one seat per version in order; the task is sent on commit.

    Ladder matches are rated; challenge and tournament matches are not. Raises
    ValidationError for an unknown game, a seat count it does not take, bad options, a
    version of another game or not ready, or the same bot twice. ``group`` and
    ``group_index`` place it in a rotation group (use :func:`match_group_create`).
    """
    match_validate(game=game, versions=versions, options=options, same_bot=same_bot)
    rated = kind == Match.Kind.LADDER
    now = timezone.now()
    with transaction.atomic():
        match = Match.objects.create(
            kind=kind, ladder=ladder, game=game, options=options or {},
            seed=seed if seed is not None else secrets.randbelow(MAX_SEED + 1), rated=rated,
            requested_by=requested_by, queued_at=now, group=group, group_index=group_index)
        MatchSeat.objects.bulk_create(
            [MatchSeat(match=match, seat=i, bot_version=v) for i, v in enumerate(versions)])
        _send_run_match_on_commit(match.pk)
    return match


def match_group_create(*, game: str, versions: Sequence[BotVersion], seed: int | None = None,
                       options: dict | None = None, ladder=None, kind: str = Match.Kind.LADDER,
                       all_orders: bool = False, requested_by: AbstractBaseUser | None = None,
                       same_bot: bool = False, chance_set: str = "",
                       orders: Sequence[Sequence[int]] | None = None) -> list[Match]:
    """Create a rotation group: one queued match per seat order of the table ``versions``
    (``competition.rotation.seat_orders``), all on one seed, in one transaction.

    Its games' seeds, replays and logs stay private until every game sharing their chance has been
    played (``arena.matches.selectors.match_chance_open``): the group's own, every group on the
    same seed, and every group of the same non-empty ``chance_set`` (groups on different seeds
    released together, e.g. ``"abtest:<id>"``).

    ``versions`` is the table in its own order; game g seats ``versions[orders[g][seat]]`` at
    ``seat``. ``orders`` may be given (each a permutation of the table, e.g. an A/B test's pair:
    two games, A and B swapped, the opponents where they were); else they are the rotation's.
    Returns the matches in group order. Raises ValidationError as match_create does, and for
    ``all_orders`` beyond the seats it allows or an order that is not a permutation.
    """
    if orders is not None:
        if not orders or any(sorted(order) != list(range(len(versions))) for order in orders):
            raise ValidationError(f"Seat orders must each be a permutation of the {len(versions)} seats.",
                                  code="seat_orders")
    else:
        try:
            orders = seat_orders(len(versions), all_orders=all_orders)
        except ValueError as exc:
            raise ValidationError(str(exc), code="seat_orders") from None
    seed = seed if seed is not None else secrets.randbelow(MAX_SEED + 1)
    with transaction.atomic():
        group = MatchGroup.objects.create(game=game, seed=seed, size=len(orders), chance_set=chance_set)
        return [match_create(game=game, versions=[versions[i] for i in order], seed=seed, options=options,
                             ladder=ladder, kind=kind, requested_by=requested_by, group=group,
                             group_index=index, same_bot=same_bot)
                for index, order in enumerate(orders)]


def challenge_create(*, by: AbstractBaseUser, bot: Bot, opponents: Sequence[Bot], seed: int | None = None,
                     options: dict | None = None) -> Match:
    """An unrated match of ``bot`` (owned by ``by``, or staff) against chosen bots, ``bot`` in seat 0.

    Rate-limited per user (``CHALLENGES_PER_HOUR``); raises PermissionDenied,
    ChallengeRateLimited or ValidationError (see match_create).
    """
    if not (by.is_authenticated and (by.pk == bot.owner_id or by.is_staff)):
        raise PermissionDenied("Only the bot's owner can challenge with it.")
    limit = getattr(settings, "CHALLENGES_PER_HOUR", 20)
    since = timezone.now() - timedelta(hours=1)
    recent = Match.objects.filter(kind=Match.Kind.CHALLENGE, requested_by=by, created_at__gte=since)
    if not by.is_staff and recent.count() >= limit:
        oldest = recent.order_by("created_at").values_list("created_at", flat=True).first()
        wait = max(1, int((oldest - since).total_seconds()) + 1) if oldest else 3600
        error = ChallengeRateLimited(
            f"At most {limit} challenge matches per hour: the next one is possible in {wait} seconds.",
            code="rate_limited")
        error.retry_after = wait
        raise error
    bots = [bot, *opponents]
    if any(o.pk == bot.pk for o in opponents):
        raise ValidationError("A bot cannot play against itself.", code="same_bot")
    twice = sorted({o.name for o in opponents if sum(p.pk == o.pk for p in opponents) > 1})
    if twice:
        raise ValidationError(f"A bot takes one seat: {', '.join(twice)} is listed more than once.",
                              code="same_bot")
    missing = [b.name for b in bots if b.active_version_id is None]
    if missing:
        raise ValidationError(f"No ready version yet: {', '.join(missing)}.", code="not_ready")
    return match_create(game=bot.game, versions=[b.active_version for b in bots], seed=seed,
                        options=options, kind=Match.Kind.CHALLENGE, requested_by=by)


def match_claim(*, match_id: int, worker: str) -> Match | None:
    """Move a queued match to running for ``worker`` and take its lease; None when someone else
    has it or it is finished (a duplicate or late message)."""
    now = timezone.now()
    claimed = Match.objects.filter(pk=match_id, status=Match.Status.QUEUED).update(
        status=Match.Status.RUNNING, worker=worker[:200], started_at=now, attempts=F("attempts") + 1,
        lease_expires_at=lease_until(now))
    if claimed != 1:
        return None
    return Match.objects.defer("replay").get(pk=match_id)


def match_reclaim(*, match_id: int, worker: str, gone: str | None = None, now=None) -> Match | None:
    """Take over a running match whose worker is gone, for a message the broker redelivered.

    With late acks and reject-on-worker-lost a killed worker process puts its message back while
    the match is still marked running. It is taken when its lease has run out, or when ``gone``
    names the worker recorded on it and the caller knows that process is dead (a pool process of
    its own machine). None otherwise (its worker may be alive: the lease decides), and when it is
    out of attempts (the recovery task fails it).
    """
    now = now or timezone.now()
    running = Match.objects.filter(pk=match_id, status=Match.Status.RUNNING,
                                   attempts__lt=settings.MATCH_MAX_ATTEMPTS)
    running = running.filter(worker=gone) if gone else running.filter(lease_expires_at__lt=now)
    taken = running.update(worker=worker[:200], started_at=now, attempts=F("attempts") + 1,
                           lease_expires_at=lease_until(now))
    if taken != 1:
        return None
    return Match.objects.defer("replay").get(pk=match_id)


def match_end_lease_of_lost_process(match_id: int, *, worker: str) -> bool:
    """End the lease of a match now: its worker process ``worker`` died under it (its worker's main
    process saw it go, ``arena/jobs/lost_process.py``), so whoever gets the message back takes it
    over at once. False when that process no longer held the match."""
    return bool(Match.objects.filter(pk=match_id, status=Match.Status.RUNNING, worker=worker[:200],
                                     lease_expires_at__isnull=False).update(lease_expires_at=timezone.now()))


def match_hand_back(*, match_id: int, attempt: int, worker: str = "") -> bool:
    """Give a running match back to the queue at once (its worker is shutting down); the attempt
    does not count. False when attempt ``attempt`` no longer holds it."""
    with transaction.atomic():
        handed = _held(match_id, attempt, worker).update(
            status=Match.Status.QUEUED, attempts=F("attempts") - 1, lease_expires_at=None,
            queued_at=timezone.now(), sent_at=None, sends=0,
            error=f"handed back by {worker or 'its worker'}, which was shutting down")
        if handed:
            _send_run_match_on_commit(match_id)
    return bool(handed)


def _seat_output(outcome: dict, seat: int) -> tuple[str, str, dict | None]:
    logs = outcome.get("logs") or []
    fault = next((f for f in outcome.get("faults", []) if f.get("seat") == seat), None)
    timing = next((t for t in outcome.get("timing", []) if t.get("seat") == seat), None)
    return (logs[seat] if seat < len(logs) else ""), (fault or {}).get("message") or "", timing


def seats_whose_output_is_refused(outcome: dict) -> list[int]:
    """The seats whose log, fault message or timing the database refuses, each probed on its own."""
    refused = []
    for seat in range(len(outcome.get("scores") or [])):
        log, message, timing = _seat_output(outcome, seat)
        try:
            with transaction.atomic(), connection.cursor() as cursor:
                if connection.vendor == "postgresql":
                    cursor.execute("SELECT %s::text, %s::text, %s::jsonb", [log, message, json.dumps(timing)])
                else:
                    cursor.execute("SELECT %s, %s, %s", [log, message, json.dumps(timing)])
        except (DataError, ValueError):
            refused.append(seat)
    return refused


def outcome_with_seats_faulted(outcome: dict, seats: list[int]) -> dict:
    """``outcome`` with ``seats`` faulted for output the database refused, their texts dropped."""
    outcome = dict(outcome)
    logs = list(outcome.get("logs") or [])
    faults = [f for f in outcome.get("faults", []) if f.get("seat") not in seats]
    for seat in seats:
        if seat < len(logs):
            logs[seat] = "[the log of this bot could not be stored]"
        step = next((f.get("step") for f in outcome.get("faults", []) if f.get("seat") == seat), 0)
        faults.append({"seat": seat, "kind": "protocol", "step": step,
                       "message": "the bot's output could not be stored"})
    outcome["logs"] = logs
    outcome["faults"] = sorted(faults, key=lambda f: (f.get("step") or 0, f["seat"]))
    outcome["timing"] = [t for t in outcome.get("timing", []) if t.get("seat") not in seats]
    engine_ranks = ((outcome.get("replay") or {}).get("result") or {}).get("engine_ranks") or outcome["ranks"]
    outcome["ranks"] = ranks_with_faults(list(engine_ranks), {f["seat"] for f in outcome["faults"]})
    return outcome


def match_store_outcome(*, match_id: int, outcome: dict, replay: bytes | None,
                        worker: str) -> tuple[Match, list[MatchSeat]] | None:
    """Store a played match's facts inside the caller's transaction: seats, replay, status done.

    Returns the match (locked) and its seats, or None when it is already done or failed (a
    redelivered task, or a re-queued match finishing twice). Its ``rated`` stays True only when it
    is still to be rated (False when its group was rated without it). Rating it, settling its group
    and pausing faulting bots follow in the same transaction (``arena.runs.recording``).
    """
    match = Match.objects.select_for_update().filter(pk=match_id).first()
    if match is None or match.is_finished:
        return None
    seats = list(match.seats.select_related("bot_version").order_by("seat"))
    scores, ranks = outcome["scores"], outcome["ranks"]
    if len(scores) != len(seats) or len(ranks) != len(seats):
        raise ValueError(f"outcome has {len(scores)} scores for {len(seats)} seats")
    faults = {f["seat"]: f for f in outcome.get("faults", [])}
    timing = {t["seat"]: t for t in outcome.get("timing", [])}
    logs = outcome.get("logs") or []
    for seat in seats:
        fault = faults.get(seat.seat)
        seat.score = float(scores[seat.seat])
        seat.rank = int(ranks[seat.seat])
        seat.fault_kind = fault["kind"] if fault else ""
        seat.fault_step = fault.get("step") if fault else None
        seat.fault_message = (fault.get("message") or "")[:MAX_LOG_CHARS] if fault else ""
        for field, value in timing_columns(timing.get(seat.seat), seat=seat.seat).items():
            setattr(seat, field, value)
        seat.log = (logs[seat.seat] if seat.seat < len(logs) else "")[-MAX_LOG_CHARS:]
    MatchSeat.objects.bulk_update(
        seats, ["score", "rank", "fault_kind", "fault_step", "fault_message", *TIMING_FIELDS, "log"])
    match.status = Match.Status.DONE
    match.replay = replay
    match.finished_at = timezone.now()
    match.lease_expires_at = None
    match.error = ""
    if worker:
        match.worker = worker[:200]
    if match.rated and match.ladder_id and match.group_id and MatchGroup.objects.filter(
            pk=match.group_id, rated_at__isnull=False).exists():
        # Its group was rated without it (it failed, then was re-queued from the admin): the
        # result is kept, unrated, so the group stays rated exactly once.
        match.rated = False
    match.save()
    return match, seats


def match_store_failure(*, match_id: int, error: str, worker: str = "",
                        attempt: int | None = None) -> tuple[str, Match | None]:
    """A run that could not finish for reasons outside the bots: re-queue it, or fail it after
    ``MATCH_MAX_ATTEMPTS``, inside the caller's transaction. Returns the new status (unchanged when
    the match is already finished) and the match when it failed now: its group is then rated and
    settled by the caller (``arena.runs.recording.match_record_failure``).

    With ``attempt``, only while that attempt (of ``worker``) still holds the match: a worker whose
    lease was taken over (it was thought dead) cannot re-queue a match another worker now runs.
    """
    match = Match.objects.select_for_update().defer("replay").filter(pk=match_id).first()
    if match is None:
        return "", None
    if match.is_finished:
        return match.status, None
    if attempt is not None and (match.status != Match.Status.RUNNING or match.attempts != attempt
                                or (worker and match.worker != worker[:200])):
        return match.status, None
    match.error = storable_text(error[-MAX_LOG_CHARS:])
    if worker:
        match.worker = worker[:200]
    match.lease_expires_at = None
    if match.attempts >= settings.MATCH_MAX_ATTEMPTS:
        match.status = Match.Status.FAILED
        match.finished_at = timezone.now()
    else:
        match.status = Match.Status.QUEUED
        match.queued_at = timezone.now()
        match.sent_at, match.sends = None, 0
        _send_run_match_on_commit(match.pk)
    match.save(update_fields=["error", "worker", "lease_expires_at", "status", "finished_at", "queued_at",
                              "sent_at", "sends"])
    return match.status, (match if match.status == Match.Status.FAILED else None)


MATCH_OPEN_STATUSES = (Match.Status.QUEUED, Match.Status.RUNNING)


def match_group_settle(*, match: Match) -> None:
    """Mark the match's rotation group finished once all of its games have been played: every one
    of its ``size`` games exists (a game withdrawn to be re-created later, as a paused tournament's,
    is still to play) and none is queued or running. Inside the transaction that finished the
    game; the group row is locked, so the last of two games finishing at once sees the other. Its
    seed and replays become public then (if no other group shares its chance)."""
    if not match.group_id:
        return
    group = MatchGroup.objects.select_for_update().filter(pk=match.group_id).only("id", "size", "finished_at").first()
    if group is None or group.finished_at is not None:
        return
    games = Match.objects.filter(group_id=group.pk).aggregate(
        present=Count("id"), open=Count("id", filter=Q(status__in=MATCH_OPEN_STATUSES)))
    if games["open"] == 0 and games["present"] >= group.size:
        MatchGroup.objects.filter(pk=group.pk).update(finished_at=timezone.now())


def match_groups_close(*, group_ids: Sequence[int], now=None) -> None:
    """The games of these groups that were withdrawn will never be played (a cancelled tournament):
    each group shrinks to the games it has, and is finished now when none of them is open (else
    when its last one ends). Call it inside the transaction that withdrew them."""
    now = now or timezone.now()
    for group in MatchGroup.objects.select_for_update().filter(pk__in=list(group_ids), finished_at__isnull=True):
        games = Match.objects.filter(group_id=group.pk).aggregate(
            present=Count("id"), open=Count("id", filter=Q(status__in=MATCH_OPEN_STATUSES)))
        if games["present"]:
            group.size = games["present"]
        if games["open"] == 0:
            group.finished_at = now
        group.save(update_fields=["size", "finished_at"])


def _lease_expired(now) -> Q:
    # Matches claimed before leases existed have none: they count as lost after the old time limit.
    before_leases = now - timedelta(seconds=settings.MATCH_HARD_TIME_LIMIT + settings.MATCH_STUCK_GRACE)
    return Q(lease_expires_at__lt=now) | Q(lease_expires_at__isnull=True, started_at__lt=before_leases)


def match_open_q(*, now=None) -> Q:
    """Matches that still hold a place in their ladder's queue: queued, or running on a worker
    whose lease is alive. A lost match (expired lease) does not stop matchmaking meanwhile."""
    return Q(status=Match.Status.QUEUED) | (Q(status=Match.Status.RUNNING) & ~_lease_expired(now or timezone.now()))


def match_requeue_stuck(*, now=None) -> list[int]:
    """Re-queue running matches whose lease expired (their worker is gone: killed, lost, frozen),
    on the same seed; a match out of attempts fails instead. Returns the ids re-queued (sent after
    commit, or by the outbox relay when the broker is down)."""
    now = now or timezone.now()
    requeued, what_happened = [], []
    with transaction.atomic():
        lost = (Match.objects.select_for_update(skip_locked=True).filter(status=Match.Status.RUNNING)
                .filter(_lease_expired(now)).only("id", "status", "attempts", "worker", "started_at",
                                                  "lease_expires_at", "rated", "ladder_id", "group_id"))
        for match in lost:
            holder = match.worker or "?"
            if match.attempts >= settings.MATCH_MAX_ATTEMPTS:
                match.status = Match.Status.FAILED
                match.finished_at = now
                match.error = f"its worker was lost {match.attempts} times (last {holder})"
                what_happened.append(f"match {match.pk} failed: {match.error}")
            else:
                match.status = Match.Status.QUEUED
                match.queued_at = now
                match.sent_at, match.sends = None, 0
                match.error = (f"re-queued: {holder} stopped renewing its lease "
                               f"(running since {match.started_at:%Y-%m-%d %H:%M:%S})")
                requeued.append(match.pk)
                what_happened.append(f"match {match.pk} {match.error}, attempt {match.attempts} of "
                                     f"{settings.MATCH_MAX_ATTEMPTS}")
                _send_run_match_on_commit(match.pk)
            match.lease_expires_at = None
            match.save(update_fields=["status", "finished_at", "error", "queued_at", "sent_at", "sends",
                                      "lease_expires_at"])
    for line in what_happened:  # after the commit: what the logs say happened did
        log.warning("recovery: %s", line)
    # The groups of the games failed here are rated (and settled) each in a transaction of its
    # own by match_groups_settle, which the sweep runs next: taking group and rating locks while
    # holding many lost matches could deadlock against a worker recording a game of one of them.
    return requeued


def match_requeue(*, match_id: int) -> bool:
    """Send a failed (or running) match to the queue again, e.g. from the admin; False for
    a queued or done match. A worker that is still running it cannot record twice."""
    with transaction.atomic():
        match = Match.objects.select_for_update().defer("replay").filter(pk=match_id).first()
        if match is None or match.status not in (Match.Status.FAILED, Match.Status.RUNNING):
            return False
        match.status = Match.Status.QUEUED
        match.queued_at = timezone.now()
        match.finished_at = None
        match.attempts = 0
        match.lease_expires_at = None
        match.sent_at, match.sends = None, 0
        match.save(update_fields=["status", "queued_at", "finished_at", "attempts", "lease_expires_at",
                                  "sent_at", "sends"])
        if match.group_id:  # a game of its group is to play again: the others' seed is private again
            MatchGroup.objects.filter(pk=match.group_id).update(finished_at=None)
        _send_run_match_on_commit(match.pk)
        return True


def match_requeue_abandoned(*, worker_prefix: str) -> list[int]:
    """Re-queue the matches left running by workers whose name starts with ``worker_prefix``
    (``node@host``): on one machine, what a stopped ``make run`` left behind. Returns their ids."""
    ids = list(Match.objects.filter(status=Match.Status.RUNNING, worker__startswith=worker_prefix)
               .values_list("pk", flat=True))
    return [pk for pk in ids if match_requeue(match_id=pk)]


def match_record_luck(*, match_id: int, luck: Sequence[float] | None, model: str = LUCK_MODEL) -> bool:
    """Record the luck of a done match's seats (``luck[seat]``, docs/luck.md) as measured by
    ``model``, or with ``None`` that it cannot be measured (a luck measured before by another model
    then stays); either way the match is not tried again by that model. Idempotent: False and
    nothing changed when this model recorded it before (two sweeps measured it at once) or the
    match is not done."""
    with transaction.atomic():
        match = (Match.objects.select_for_update().filter(pk=match_id, status=Match.Status.DONE)
                 .exclude(luck_measured_at__isnull=False, luck_model=model)
                 .only("id").first())
        if match is None:
            return False
        if luck is not None:
            seats = list(MatchSeat.objects.filter(match_id=match_id).order_by("seat"))
            if len(seats) != len(luck):
                raise ValueError(f"match {match_id} has {len(seats)} seats, luck was measured for {len(luck)}")
            for seat in seats:
                seat.luck = float(luck[seat.seat])
            MatchSeat.objects.bulk_update(seats, ["luck"])
        Match.objects.filter(pk=match_id).update(luck_measured_at=timezone.now(), luck_model=model)
    return True
