"""Celery tasks: the only place where the match runner meets Django models.

Tasks take ids, re-fetch rows, claim before working (a redelivered message is harmless) and
call one service to record. Archives come from the database and are written to a private
temporary folder, so a worker needs only the database and broker URLs.
"""

from __future__ import annotations

import logging
import os
import socket
import tempfile
import traceback
from pathlib import Path

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings

log = logging.getLogger(__name__)

SMOKE_TEST_SEED = 20261129


def _worker_name(task=None) -> str:
    """``node@host:pid`` of the Celery worker process running ``task`` (``host:pid`` outside Celery)."""
    node = getattr(getattr(task, "request", None), "hostname", None) or socket.gethostname()
    return f"{node}:{os.getpid()}"


def _seat_spec(version, folder: Path):
    """The runner's SeatSpec for a BotVersion: ``builtin:NAME`` or its archive written to ``folder``."""
    from workers.runner import SeatSpec

    bot = version.bot
    if version.kind == "builtin":
        return SeatSpec(bot=f"builtin:{bot.builtin}", name=bot.name, version=f"v{version.number}")
    path = folder / f"{bot.pk}-{version.number}-{version.sha256[:12]}.{version.kind}"
    path.write_bytes(bytes(version.archive))
    return SeatSpec(bot=str(path), name=bot.name, version=f"v{version.number}")


def _public_replay(replay: dict) -> dict:
    """The replay as anyone may download it: each fault keeps its kind, step and the arena's
    first line of why, without the lines of the bot's stderr the runner appends (those are
    private to the owner and staff, who read them on the seat)."""
    def redact(fault: dict) -> dict:
        return {**fault, "message": str(fault.get("message") or "").split("\n", 1)[0]}

    public = dict(replay)
    public["faults"] = [redact(f) for f in replay.get("faults", [])]
    public["steps"] = [{**step, "faults": [redact(f) for f in step["faults"]]} if step.get("faults") else step
                       for step in replay.get("steps", [])]
    return public


def _compress(replay: dict | None) -> bytes | None:
    if replay is None:
        return None
    from workers.replay import compress

    return compress(_public_replay(replay))


@shared_task(name="arena.run_match", soft_time_limit=settings.MATCH_SOFT_TIME_LIMIT,
             time_limit=settings.MATCH_HARD_TIME_LIMIT, acks_late=True, reject_on_worker_lost=True,
             bind=True)
def run_match(self, match_id: int) -> str:
    """Claim, play and record one match; a no-op when the match is not queued any more."""
    from arena.matches.models import Match
    from arena.matches.services import match_claim, match_reclaim, match_record_failure, match_record_outcome
    from workers.runner import run_match as play

    worker = _worker_name(self)
    match = match_claim(match_id=match_id, worker=worker)
    if match is None and (self.request.delivery_info or {}).get("redelivered"):
        match = match_reclaim(match_id=match_id, worker=worker)  # its worker died mid-match
    if match is None:
        return "skipped"
    try:
        seats = list(match.seats.select_related("bot_version__bot").order_by("seat"))
        with tempfile.TemporaryDirectory(prefix=f"arena-match-{match.pk}-") as tmp:
            specs = [_seat_spec(s.bot_version, Path(tmp)) for s in seats]
            outcome = play(match.game, specs, match.seed, options=match.options or None).to_dict()
        replay = _compress(outcome.get("replay"))
        match_record_outcome(match_id=match.pk, outcome=outcome, replay=replay, worker=worker)
        return Match.Status.DONE
    except SoftTimeLimitExceeded:
        return match_record_failure(match_id=match.pk, error="the match task hit its soft time limit",
                                    worker=worker)
    except Exception:
        log.exception("match %s could not be played", match_id)
        return match_record_failure(match_id=match.pk, error=traceback.format_exc(), worker=worker)


def smoke_test_seats(game_id: str) -> int:
    """Seats of a smoke test: two when the game allows it (the bot against a built-in), else its minimum."""
    from engines import get_game

    game = get_game(game_id)
    return max(game.min_players, min(2, game.max_players))


@shared_task(name="arena.smoke_test_version", soft_time_limit=settings.MATCH_SOFT_TIME_LIMIT,
             time_limit=settings.MATCH_HARD_TIME_LIMIT, acks_late=True, reject_on_worker_lost=True)
def smoke_test_version(version_id: int) -> str:
    """Play one sandboxed match of a pending version (seat 0) against built-in bots and judge it."""
    from arena.bots.services import bot_version_claim_smoke_test, bot_version_record_smoke_test
    from workers.runner import SeatSpec
    from workers.runner import run_match as play

    version = bot_version_claim_smoke_test(version_id=version_id)
    if version is None:
        return "skipped"
    game = version.bot.game
    try:
        with tempfile.TemporaryDirectory(prefix=f"arena-smoke-{version.pk}-") as tmp:
            seats = [_seat_spec(version, Path(tmp))]
            seats += [SeatSpec(bot="builtin:random", name="random", version="builtin")
                      for _ in range(smoke_test_seats(game) - 1)]
            outcome = play(game, seats, SMOKE_TEST_SEED).to_dict()
    except SoftTimeLimitExceeded:
        return bot_version_record_smoke_test(
            version_id=version_id, outcome=None, log="The smoke test hit its time limit.").status
    except Exception as exc:
        log.exception("smoke test of version %s could not run", version_id)
        if version.smoke_attempts < settings.MATCH_MAX_ATTEMPTS:
            raise  # infrastructure trouble: the periodic task sends it again
        return bot_version_record_smoke_test(
            version_id=version_id, outcome=None, log=f"The smoke test could not run: {exc}").status
    return bot_version_record_smoke_test(version_id=version_id, outcome=outcome).status


@shared_task(name="arena.matchmaking_tick", soft_time_limit=60, time_limit=90)
def matchmaking_tick() -> int:
    """Top up the match queue of every active ladder."""
    from arena.ladders.services import matchmaking_tick as tick

    return tick()


@shared_task(name="arena.requeue_stuck", soft_time_limit=60, time_limit=90)
def requeue_stuck() -> int:
    """Re-queue matches stuck in running, re-send lost ones, retry pending smoke tests."""
    from arena.bots.services import bot_version_pending_stale
    from arena.matches.services import match_requeue_stuck

    sent = match_requeue_stuck()
    for version_id in bot_version_pending_stale():
        smoke_test_version.delay(version_id)
    return len(sent)
