"""Celery tasks run in-process against the real runner and sandbox: claim first, record once."""

from __future__ import annotations

import json

import pytest

from arena.bots.services import bot_create
from arena.ladders.models import Rating
from arena.ladders.services import ladder_create, ladder_enter
from arena.matches.models import Match
from arena.matches.services import match_create
from arena.runs.smoke import bot_builtin_ensure
from arena.runs.tasks import run_match, smoke_test_version
from tests.factories import py_upload

CRASHING_BOT = b"""import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "start":
        print(json.dumps({"type": "ready"}), flush=True)
    elif msg["type"] == "act":
        print("about to fail", file=sys.stderr, flush=True)
        raise SystemExit(3)
"""


@pytest.fixture
def ladder(db, game_id):
    return ladder_create(slug="tasks", name="Tasks", game=game_id, seat_count=2)


def test_the_smoke_test_task_readies_a_bot_that_plays_cleanly(owner, ladder, game_id):
    bot = bot_create(owner=owner, name="clean", game=game_id, upload=py_upload())
    version = bot.versions.get()
    assert smoke_test_version(version.pk) == "ready"
    bot.refresh_from_db()
    assert bot.active_version == version
    assert Rating.objects.filter(ladder=ladder, bot=bot).exists()
    assert smoke_test_version(version.pk) == "skipped"  # a redelivered message does nothing


def test_the_smoke_test_task_fails_a_crashing_bot_with_its_log(owner, ladder, game_id):
    bot = bot_create(owner=owner, name="crash", game=game_id, upload=py_upload(CRASHING_BOT))
    version = bot.versions.get()
    assert smoke_test_version(version.pk) == "failed"
    version.refresh_from_db()
    assert "crash" in version.validation_log and "about to fail" in version.validation_log
    bot.refresh_from_db()
    assert bot.active_version is None


def test_the_match_task_plays_records_and_rates_once(owner, staff, ladder, game_id, make_bot):
    uploaded = make_bot("uploaded", game_id)
    builtin = bot_builtin_ensure(owner=staff, game=game_id, builtin="heuristic")
    for bot in (uploaded, builtin):
        ladder_enter(ladder=ladder, bot=bot)
    match = match_create(game=game_id, versions=[uploaded.active_version, builtin.active_version],
                         ladder=ladder, seed=11)
    assert run_match(match.pk) == "done"
    match.refresh_from_db()
    assert match.status == "done" and match.attempts == 1 and match.replay
    from arena.matches.replay_store import unpack
    assert unpack(match.replay)["seed"] == 11
    ratings = {r.bot_id: r for r in Rating.objects.filter(ladder=ladder)}
    assert ratings[uploaded.pk].games == 1 and ratings[builtin.pk].games == 1
    assert ratings[uploaded.pk].elo + ratings[builtin.pk].elo == pytest.approx(2 * ladder.initial_rating)
    assert run_match(match.pk) == "skipped"
    assert Rating.objects.get(ladder=ladder, bot=uploaded).games == 1


def test_the_match_task_skips_a_match_another_worker_is_running(owner, ladder, game_id, make_bot):
    a, b = make_bot("busy-a", game_id), make_bot("busy-b", game_id)
    match = match_create(game=game_id, versions=[a.active_version, b.active_version], ladder=ladder)
    Match.objects.filter(pk=match.pk).update(status="running", worker="elsewhere")
    assert run_match(match.pk) == "skipped"
    match.refresh_from_db()
    assert match.status == "running" and match.worker == "elsewhere"


def test_the_public_replay_says_why_a_bot_faulted_but_keeps_its_stderr_private(
        owner, staff, ladder, game_id):
    crashing = bot_create(owner=owner, name="crashes-in-play", game=game_id, upload=py_upload(CRASHING_BOT))
    version = crashing.versions.get()
    version.status = "ready"
    version.save(update_fields=["status"])
    builtin = bot_builtin_ensure(owner=staff, game=game_id, builtin="random")
    match = match_create(game=game_id, versions=[version, builtin.active_version], ladder=ladder, seed=5)
    assert run_match(match.pk) == "done"
    match.refresh_from_db()
    seat = match.seats.get(seat=0)
    assert seat.fault_kind == "crash" and "about to fail" in seat.fault_message  # the owner's view
    from arena.matches.replay_store import unpack
    from workers.replay import verify
    replay = unpack(match.replay)
    assert [(f["seat"], f["kind"]) for f in replay["faults"]] == [(0, "crash")]
    assert replay["faults"][0]["message"]  # the replay still says why
    assert "about to fail" not in json.dumps(replay)  # stderr is for the owner and staff only
    assert verify(replay) == []


def _renewing_right_after(monkeypatch, module, name):
    """Make ``module.name`` (a recording service) followed by one heartbeat of every lease held:
    the renewal that, on a busy worker, lands between the recording and the end of the task."""
    from arena.jobs import leases

    record = getattr(module, name)

    def record_then_beat(**kwargs):
        result = record(**kwargs)
        renewer = leases._process_renewer()
        for key, held in list(renewer.held.items()):
            renewer._renew(key, held)
        return result

    monkeypatch.setattr(module, name, record_then_beat)


def test_a_heartbeat_after_the_match_is_recorded_is_not_reported_as_a_take_over(
        ladder, game_id, make_bot, monkeypatch, caplog):
    import arena.runs.tasks

    _renewing_right_after(monkeypatch, arena.runs.tasks, "match_record_outcome")
    a, b = make_bot("beat-a", game_id), make_bot("beat-b", game_id)
    match = match_create(game=game_id, versions=[a.active_version, b.active_version], kind="challenge")
    assert run_match(match.pk) == "done"
    assert Match.objects.get(pk=match.pk).attempts == 1
    assert not [r.getMessage() for r in caplog.records if "taken over" in r.getMessage()]


def test_a_heartbeat_after_the_smoke_test_is_judged_is_not_reported_as_a_take_over(
        owner, ladder, game_id, monkeypatch, caplog):
    import arena.runs.tasks

    _renewing_right_after(monkeypatch, arena.runs.tasks, "match_record_outcome")  # it judges the version
    version = bot_create(owner=owner, name="beat-smoke", game=game_id, upload=py_upload()).versions.get()
    assert smoke_test_version(version.pk) == "ready"
    assert not [r.getMessage() for r in caplog.records if "taken over" in r.getMessage()]
