"""Smoke tests and activation: how a bot version becomes active and enters the ladders.

A pending version's smoke test is one group of matches of kind ``smoke`` (``arena/matches/smoke.py``):
one per seat count (and options) of the active ladders of its game, each on a seed of its own, the
version in a seat drawn at random and built-in ``random`` versions in the others. They run in the one
match pipeline (``arena.run_match``: claim, lease, heartbeat, outbox, recovery, hand-back), unrated,
their seeds and replays private until the group has finished, on no public list. When the group
settles (``arena/runs/recording.py``, in the transaction that finished its last game) the version is
judged: ready (and active, entered in every active ladder of its game) when it played every game
without a fault, failed otherwise, with what happened in its validation log. A built-in bot's
version needs no smoke test (``bot_builtin_ensure``).

The upload sends ``arena.smoke_test_version`` after its commit
(``arena.bots.services.bot_version_send_smoke_test_on_commit``); that task plans the group
(``smoke_test_start``, once) and plays its games. Should the message be lost, the recovery sweep plans
the group of every pending version that has none (``smoke_tests_start_missing``).
"""

from __future__ import annotations

import json
import logging

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from arena.bots.models import Bot, BotVersion
from arena.bots.services import bot_check_game
from arena.ladders.models import Ladder
from arena.ladders.services import ladder_enter_all
from arena.matches.models import Match, MatchGroup, MatchSeat
from arena.matches.smoke import (
    EARLIER_FAILED,
    NOT_PLAYED,
    SmokeTestRow,
    match_smoke_group_create,
    smoke_matches_withdraw,
    smoke_group_of,
    smoke_tests_of,
    smoke_version_id,
)
from engines import get_game
from workers.storable import storable, storable_text

log = logging.getLogger(__name__)

# The user that owns the built-in bots (the demo's, and the smoke tests' opponents).
SYSTEM_USER = "arena"
# The built-in bot that plays the other seats of a smoke test.
SMOKE_OPPONENT = "random"


def bot_builtin_ensure(*, owner: AbstractBaseUser, game: str, builtin: str, name: str | None = None) -> Bot:
    """The bot that plays ``builtin:NAME`` of ``game`` (created with a ready version if missing),
    entered in every active ladder of the game."""
    bot_check_game(game=game)
    if builtin not in get_game(game).bots:
        raise ValidationError(f"{game} has no built-in bot {builtin!r}.", code="unknown_builtin")
    name = name or f"{game}-{builtin}".replace("_", "-")
    with transaction.atomic():
        bot, _ = Bot.objects.get_or_create(
            name=name, defaults={"owner": owner, "game": game, "builtin": builtin,
                                 "description": f"The built-in {builtin!r} bot of {game}."})
        if bot.active_version_id is None:
            version = BotVersion.objects.create(
                bot=bot, number=1, kind=BotVersion.Kind.BUILTIN, filename=f"builtin:{builtin}",
                status=BotVersion.Status.READY, validated_at=timezone.now(),
                validation_log="Built-in bot: no smoke test needed.")
            bot.active_version = version
            bot.save(update_fields=["active_version"])
            ladder_enter_all(bot=bot)
    return bot


# --- smoke tests: the planned matches -----------------------------------------------------

def _clean_text(text: str, limit: int = 65536) -> str:
    """Text a bot controls, safe to store anywhere (``workers.storable``: NUL shown as U+2400), capped."""
    return storable_text(text or "")[:limit]


def smoke_test_plan(*, game: str) -> list[tuple[int, dict]]:
    """What a new version of a ``game`` bot is smoke-tested at: ``(seat_count, options)`` of every
    active ladder of the game, each pair once, fewest seats first. A game without an active
    ladder gets one two-seat test (or its minimum), so a version is always tested before it plays."""
    seen, plan = set(), []
    for ladder in Ladder.objects.filter(game=game, active=True).order_by("seat_count", "id"):
        options = ladder.options or {}
        key = (ladder.seat_count, json.dumps(options, sort_keys=True))
        if key not in seen:
            seen.add(key)
            plan.append((ladder.seat_count, options))
    if not plan:
        info = get_game(game)
        plan.append((max(info.min_players, min(2, info.max_players)), {}))
    return plan


def system_user() -> AbstractBaseUser:
    """The user that owns built-in bots (created, without a usable password, when missing)."""
    user, created = get_user_model().objects.get_or_create(
        username=SYSTEM_USER, defaults={"email": "", "first_name": "Dive Arena"})
    if created or user.has_usable_password():
        user.set_unusable_password()
        user.save()
    return user


def smoke_opponents(*, game: str, count: int) -> list[BotVersion]:
    """``count`` distinct ready versions of the built-in ``random`` bot of ``game`` that plays the
    other seats of smoke tests (a version takes one seat of a match). That bot plays no ladder
    match (inactive, never entered) and is created with its versions when missing."""
    name = f"{game}-smoke-{SMOKE_OPPONENT}".replace("_", "-")
    with transaction.atomic():
        bot, _ = Bot.objects.get_or_create(name=name, defaults={
            "owner": system_user(), "game": game, "builtin": SMOKE_OPPONENT, "is_active": False,
            "description": f"The built-in {SMOKE_OPPONENT!r} bot in the other seats of {game} smoke tests."})
        if bot.builtin != SMOKE_OPPONENT or bot.game != game:
            raise ValidationError(f"The bot {name!r} is not the built-in smoke-test opponent.", code="opponents")
        Bot.objects.select_for_update().filter(pk=bot.pk).first()  # serialise version numbers
        versions = list(bot.versions.order_by("number")[:count])
        for number in range(len(versions) + 1, count + 1):
            versions.append(BotVersion.objects.create(
                bot=bot, number=number, kind=BotVersion.Kind.BUILTIN, filename=f"builtin:{SMOKE_OPPONENT}",
                status=BotVersion.Status.READY, validated_at=timezone.now(),
                validation_log="Built-in bot: no smoke test needed."))
    return versions


def smoke_test_start(*, version_id: int) -> MatchGroup | None:
    """Plan a pending version's smoke test once: its group of smoke matches, queued and sent on
    commit (``smoke_test_plan``). Returns the group (the one planned before, if any); None when the
    version is not pending (judged already) or a built-in one. The version's row is locked, so two
    callers at once (the upload's message and the recovery sweep) plan one group."""
    with transaction.atomic():
        version = (BotVersion.objects.select_for_update(of=("self",)).select_related("bot")
                   .defer("archive", "artifact").filter(pk=version_id).first())
        if version is None or version.status != BotVersion.Status.PENDING or version.kind == BotVersion.Kind.BUILTIN:
            return None
        group = smoke_group_of(version_id=version.pk)
        if group is not None:
            return group
        plan = smoke_test_plan(game=version.bot.game)
        opponents = smoke_opponents(game=version.bot.game, count=max(seats for seats, _ in plan) - 1)
        return match_smoke_group_create(version=version, opponents=opponents, plan=plan)


def smoke_tests_start_missing(*, limit: int = 100) -> list[int]:
    """Plan the smoke test of every pending uploaded version that has none (the upload's message
    was lost: a broker that was down, a process that died after the commit). Returns their ids."""
    planned = MatchSeat.objects.filter(bot_version_id=OuterRef("pk"), match__kind=Match.Kind.SMOKE)
    ids = list(BotVersion.objects.filter(status=BotVersion.Status.PENDING).exclude(kind=BotVersion.Kind.BUILTIN)
               .exclude(Exists(planned)).order_by("pk").values_list("pk", flat=True)[:limit])
    return [pk for pk in ids if smoke_test_start(version_id=pk) is not None]


def smoke_version_of_group(*, group_id: int | None) -> int | None:
    """The version a smoke group tests (None for any other group)."""
    chance_set = MatchGroup.objects.filter(pk=group_id).values_list("chance_set", flat=True).first()
    return smoke_version_id(chance_set or "")


def smoke_end_lease_of_lost_process(version_id: int, *, worker: str) -> bool:
    """End the leases the process ``worker`` held on the version's smoke matches (it died under
    ``arena.smoke_test_version``, which plays them): whoever gets a message back takes them over at once."""
    group = smoke_group_of(version_id=version_id)
    if group is None:
        return False
    return bool(Match.objects.filter(group_id=group.pk, status=Match.Status.RUNNING, worker=worker[:200],
                                     lease_expires_at__isnull=False).update(lease_expires_at=timezone.now()))


def _smoke_test_line(test: SmokeTestRow, game: str) -> str:
    where = f"{test.seat_count} seat{'s' if test.seat_count != 1 else ''}" + (
        f", options {json.dumps(test.options, sort_keys=True)}" if test.options else "")
    if test.status == "passed":
        return (f"Passed at {where}: played a full {game} match from seat {test.seat} "
                f"(seed {test.seed}) without a fault.")
    if test.status == "skipped":
        return f"Not played at {where}: {test.error.removeprefix(NOT_PLAYED)}"
    if test.fault_kind:
        return (f"Failed at {where} (seat {test.seat}, seed {test.seed}): fault ({test.fault_kind}) "
                f"at step {test.fault_step}: {test.fault_message}")
    reason = (test.error.strip().splitlines() or ["no reason recorded"])[-1]
    return f"Failed at {where}: the smoke test could not be played: {reason}"


def bot_version_judge_smoke_tests(*, version_id: int) -> BotVersion:
    """Judge a pending version once every game of its smoke test has ended: ``ready`` (and active,
    entered in the ladders) when it played all of them without a fault, ``failed`` otherwise;
    unchanged while games remain. Idempotent: a version already judged is returned unchanged.
    Called in the transaction that finished the group's last game."""
    with transaction.atomic():
        version = BotVersion.objects.select_for_update(of=("self",)).select_related("bot").defer(
            "archive", "artifact").get(pk=version_id)
        if version.status != BotVersion.Status.PENDING:
            return version
        tests = smoke_tests_of(version_ids=[version.pk]).get(version.pk, [])
        if not tests or any(not t.is_finished for t in tests):
            return version
        lines = [_smoke_test_line(t, version.bot.game) for t in tests]
        for test in tests:
            if test.log:
                lines.append(f"--- stderr of your bot in the {test.seat_count}-seat test ---\n{test.log}")
        failed = not all(t.passed for t in tests)
        return _judge(version, BotVersion.Status.FAILED if failed else BotVersion.Status.READY, "\n".join(lines))


def smoke_after_game(*, match: Match) -> BotVersion | None:
    """After a smoke match ended (inside the transaction that recorded it): a game the version did
    not pass decides, so the group's other games are withdrawn (skipped); the version is judged once
    the group has ended. A no-op for any other match."""
    version_id = smoke_version_of_group(group_id=match.group_id)
    if version_id is None:
        return None
    passed = match.status == Match.Status.DONE and MatchSeat.objects.filter(
        match_id=match.pk, bot_version_id=version_id, fault_kind="").exists()
    if not passed:
        smoke_matches_withdraw(version_id=version_id, error=EARLIER_FAILED)
    return bot_version_judge_smoke_tests(version_id=version_id)


def bot_version_fail(*, version: BotVersion, log: str) -> BotVersion:
    """Fail a pending version now with ``log`` as the reason (its build failed: arena/runs/builds.py);
    the caller holds the version's row lock inside its transaction."""
    return _judge(version, BotVersion.Status.FAILED, log)


def _judge(version: BotVersion, status: str, log: str) -> BotVersion:
    """Set the verdict (inside a transaction, version locked); a ready version becomes active when
    it is the newest ready one, and enters every active ladder of its game."""
    version.status = status
    version.validation_log = _clean_text(log)
    version.validated_at = timezone.now()
    version.save(update_fields=["status", "validation_log", "validated_at"])
    if status == BotVersion.Status.READY:
        bot = Bot.objects.select_for_update(of=("self",)).select_related("active_version").defer(
            "active_version__archive").get(pk=version.bot_id)
        current = bot.active_version
        if current is None or current.number < version.number:
            bot.active_version = version
            bot.save(update_fields=["active_version"])
        ladder_enter_all(bot=bot)
    return version


def bot_version_record_smoke_test(*, version_id: int, outcome: dict | None, log: str = "") -> BotVersion:
    """Judge a pending version from its smoke-test outcome: ``ready`` (and active) or ``failed``.

    ``outcome`` is the runner's outcome dict (None when the match could not run at all);
    the version passes only if its seat 0 played without a fault. Idempotent: a version
    already judged is returned unchanged.
    """
    outcome, log = storable(outcome), storable_text(log)   # the bot's bytes never block the verdict
    with transaction.atomic():
        version = BotVersion.objects.select_for_update().defer("archive").get(pk=version_id)
        if version.status != BotVersion.Status.PENDING:
            return version
        faults = [f for f in (outcome or {}).get("faults", []) if f.get("seat") == 0]
        lines = [log] if log else []
        if outcome is None or faults:
            status = BotVersion.Status.FAILED
            for f in faults:
                lines.insert(0, f"Fault ({f.get('kind')}) at step {f.get('step')}: {f.get('message', '')}")
        else:
            status = BotVersion.Status.READY
            lines.insert(0, f"Smoke test passed: played a full {outcome.get('game', '')} match "
                            f"(seed {outcome.get('seed')}) without a fault.")
        if outcome is not None:
            logs = outcome.get("logs") or []
            if logs and logs[0]:
                lines.append("--- stderr of your bot ---\n" + logs[0])
        return _judge(version, status, "\n".join(lines))
