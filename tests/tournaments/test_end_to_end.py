"""A whole small tournament through a real Celery worker (with its beat), on PostgreSQL and Redis.

Six bots (built-in and starter-kit), 3-seat Deep Sea Adventure, Swiss, 3 rounds, rotation groups:
the worker plays every game in the sandbox, rounds advance when their last game is recorded (or at
the beat's tick), a pause withdraws what was not claimed and a resume queues it again, a game whose
worker was lost at the attempt limit fails, the round still ends, and the admin's re-run plays it.
The stored standings equal a recomputation from the stored match results.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from django.utils import timezone

from arena.bots.services import bot_create
from arena.matches.models import Match, MatchSeat
from arena.runs.smoke import bot_builtin_ensure, bot_version_record_smoke_test
from arena.tournaments.models import Tournament
from arena.tournaments.services import (
    tournament_create,
    tournament_pause,
    tournament_rerun_failed,
    tournament_resume,
    tournament_start,
    tournaments_tick,
)
from competition.formats.standings import game_points
from tests.factories import FIRST_ACTION_BOT, clean_outcome
from tests.platform.test_end_to_end import redis_celery_app, wait_for, worker  # noqa: F401 (fixtures)

ROOT = Path(__file__).resolve().parents[2]
DSA = "deep_sea_adventure"


@pytest.fixture
def worker_env(monkeypatch):
    """Tick and recovery every second in the worker (the fixture passes the environment on)."""
    monkeypatch.setenv("TOURNAMENT_INTERVAL", "1")
    monkeypatch.setenv("RECOVERY_INTERVAL", "1")


def _entrants(staff):
    bots = [bot_builtin_ensure(owner=staff, game=DSA, builtin=builtin, name=name)
            for builtin, name in (("random", "e2e-random-a"), ("random", "e2e-random-b"), ("heuristic", "e2e-heur"))]
    kit = (ROOT / "starter_kits" / DSA / "main.py").read_bytes()
    for name, code in (("e2e-kit-a", kit), ("e2e-kit-b", kit), ("e2e-first", FIRST_ACTION_BOT)):
        bot = bot_create(owner=staff, name=name, game=DSA, upload=SimpleUploadedFile("main.py", code))
        bot_version_record_smoke_test(version_id=bot.versions.get().pk, outcome=clean_outcome(DSA, 2))
        bot.refresh_from_db()
        bots.append(bot)
    return bots


def _games(t):
    return Match.objects.filter(group__tournament_table__round__tournament=t)


def _recomputed_points(t) -> dict[int, float]:
    """Points per entrant from the stored seats alone: mean points per table, summed."""
    from arena.tournaments.models import Table

    per_table: dict[tuple[int, int], list[float]] = {}
    for table in Table.objects.filter(round__tournament=t):
        entrant_of = dict(zip(table.version_ids, table.entrant_ids))
        for match in table.group.matches.filter(status="done"):
            seats = list(MatchSeat.objects.filter(match=match).order_by("seat"))
            points = game_points([s.rank for s in seats], [s.faulted for s in seats], [2, 1, 0])
            for seat, value in zip(seats, points):
                per_table.setdefault((table.pk, entrant_of[seat.bot_version_id]), []).append(value)
    totals: dict[int, float] = {}
    for (_, entrant), values in per_table.items():
        totals[entrant] = totals.get(entrant, 0.0) + sum(values) / len(values)
    return totals


@pytest.mark.slow
def test_a_swiss_of_six_bots_runs_end_to_end_on_a_real_worker(worker_env, worker, staff):  # noqa: F811
    bots = _entrants(staff)
    t = tournament_create(name="E2E cup", game=DSA, seat_count=3, format="swiss", rounds=3, bots=bots,
                          start_at=timezone.now() + timedelta(days=1))
    with transaction.atomic():
        tournament_start(tournament_id=t.pk)
        # One game's worker is lost for the last allowed time before the broker's message arrives:
        # the recovery sweep (the worker's beat) fails it, as it fails any game out of attempts.
        lost = _games(t).order_by("id").last()
        Match.objects.filter(pk=lost.pk).update(
            status="running", attempts=settings.MATCH_MAX_ATTEMPTS, worker="lost@nowhere:1",
            started_at=timezone.now() - timedelta(minutes=1), lease_expires_at=timezone.now() - timedelta(seconds=1))
    tournament_pause(tournament_id=t.pk)
    wait_for(lambda: not _games(t).filter(status="running").exclude(pk=lost.pk).exists(), 60,
             "the games running at the pause to finish", worker)
    assert not _games(t).filter(status="queued").exists()  # nothing new was sent
    tournaments_tick()
    tournaments_tick()
    t.refresh_from_db()
    assert t.status == "paused" and t.round_set.count() == 1
    tournament_resume(tournament_id=t.pk)

    wait_for(lambda: Tournament.objects.get(pk=t.pk).status == "finished", 120, "the tournament to finish",
             worker)
    tournaments_tick()
    tournaments_tick()  # a finished tournament: twice more, nothing is paired
    t.refresh_from_db()
    assert list(t.round_set.values_list("number", flat=True)) == [1, 2, 3]
    lost.refresh_from_db()
    assert lost.status == "failed" and "lost" in lost.error
    games = _games(t)
    assert games.count() == 3 * 2 * 3 and games.filter(status="done").count() == 17
    assert all(not m.rated and m.kind == "tournament" and m.replay for m in games.filter(status="done"))
    node = worker.args[worker.args.index("--hostname") + 1].split("@")[0]
    assert all(m.worker.startswith(f"{node}@") for m in games.filter(status="done"))
    for round_ in t.round_set.all():
        assert set(games.filter(group__tournament_table__round=round_).values_list("seed", flat=True)) == {round_.seed}

    stored = {row["entrant"]: row["points"] for row in t.final_standings}
    assert stored == pytest.approx(_recomputed_points(t), abs=1e-5), (t.final_standings, list(games.values(
        "id", "status", "group_id", "group_index", "finished_at", "error")))
    assert sorted(row["games"] for row in t.final_standings) == [8, 8, 8, 9, 9, 9]

    tournament_rerun_failed(tournament_id=t.pk, round_number=1)
    wait_for(lambda: Tournament.objects.get(pk=t.pk).status == "finished", 60,
             "the re-run game to be played and the tournament to finish again", worker)
    t.refresh_from_db()
    lost.refresh_from_db()
    assert lost.status == "done" and not lost.rated and lost.seed == t.round_set.get(number=1).seed
    assert [row["games"] for row in t.final_standings] == [9] * 6
    assert {row["entrant"]: row["points"] for row in t.final_standings} == pytest.approx(_recomputed_points(t), abs=1e-5)
    assert t.round_set.count() == 3
