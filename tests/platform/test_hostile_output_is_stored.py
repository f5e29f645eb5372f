"""Whatever a bot writes is stored: NUL bytes and lone surrogates in logs, faults and replies.

PostgreSQL refuses NUL in text and ``\\u0000`` in jsonb where SQLite takes both, so these tests
mean most on PostgreSQL (the suite runs on it when one answers; see scripts/test.sh).
"""

from __future__ import annotations

import pytest
from django.db import connection

from arena.bots.services import bot_create
from arena.ladders.models import Rating
from arena.ladders.services import ladder_create, ladder_enter
from arena.matches.models import Match
from arena.matches.services import match_create
from arena.runs import recording as match_services
from arena.runs.recording import match_record_outcome
from arena.runs.smoke import bot_builtin_ensure, bot_version_record_smoke_test
from arena.runs.tasks import run_match, smoke_test_version
from tests.factories import clean_outcome, py_upload

NUL_BOT = b"""import sys, arena_bot
def choose(observation, legal, rng):
    sys.stderr.buffer.write(b"nul \\x00 here, bad utf-8 \\xff, surrogate \\xed\\xa0\\x80\\n")
    sys.stderr.flush()
    sys.stdout.write('{"action": {"\\\\u0000": "\\\\ud800"}}\\n')
    sys.stdout.flush()
    return 0
arena_bot.run(choose)
"""

NUL_BUT_PLAYS_BOT = b"""import sys, arena_bot
def choose(observation, legal, rng):
    sys.stderr.buffer.write(b"thinking \\x00\\x00 in NULs\\n")
    sys.stderr.flush()
    return 0
arena_bot.run(choose)
"""


@pytest.fixture
def ladder(db, game_id):
    return ladder_create(slug="hostile-output", name="Hostile output", game=game_id, seat_count=2)


def test_a_smoke_test_of_a_bot_writing_nul_bytes_is_judged_not_left_pending(owner, ladder, game_id):
    bot = bot_create(owner=owner, name="nul-smoke", game=game_id, upload=py_upload(NUL_BUT_PLAYS_BOT))
    version = bot.versions.get()
    assert smoke_test_version(version.pk) == "ready"
    version.refresh_from_db()
    assert "thinking \u2400\u2400 in NULs" in version.validation_log


def test_a_match_whose_bot_writes_nul_bytes_is_recorded_and_rated_with_the_bot_faulted(
        owner, staff, ladder, game_id):
    bot = bot_create(owner=owner, name="nul-match", game=game_id, upload=py_upload(NUL_BOT))
    version = bot.versions.get()
    bot_version_record_smoke_test(version_id=version.pk, outcome=clean_outcome(game_id, 2))
    version.refresh_from_db()
    builtin = bot_builtin_ensure(owner=staff, game=game_id, builtin="random")
    for entrant in (bot, builtin):
        ladder_enter(ladder=ladder, bot=entrant)
    match = match_create(game=game_id, versions=[version, builtin.active_version], ladder=ladder, seed=5)

    assert run_match(match.pk) == "done"

    match.refresh_from_db()
    assert match.status == "done" and match.attempts == 1 and match.error == ""
    seat = match.seats.get(seat=0)
    assert seat.fault_kind == "illegal"
    assert "nul \u2400 here" in seat.log and "\x00" not in seat.log
    assert Rating.objects.get(ladder=ladder, bot=bot).games == 1     # the loss counts


def test_when_the_database_still_refuses_a_seats_output_that_seat_is_faulted_and_the_match_recorded(
        owner, ladder, game_id, make_bot, monkeypatch):
    a, b = make_bot("refused-a", game_id), make_bot("refused-b", game_id)
    for entrant in (a, b):
        ladder_enter(ladder=ladder, bot=entrant)
    match = match_create(game=game_id, versions=[a.active_version, b.active_version], ladder=ladder)
    Match.objects.filter(pk=match.pk).update(status="running")
    outcome = clean_outcome(game_id, 2, ranks=[1, 2])
    outcome["logs"][0] = "a log with a NUL \x00 that nothing cleaned"
    outcome["replay"] = {"result": {"engine_ranks": [1, 2]}}
    # Stand-in for output the cleaning does not know about: skip the cleaning altogether.
    monkeypatch.setattr(match_services, "storable", lambda value: value)
    if connection.vendor != "postgresql":
        pytest.skip("only PostgreSQL refuses NUL in text")

    assert match_record_outcome(match_id=match.pk, outcome=outcome, replay=b"replay")

    match.refresh_from_db()
    seats = {s.seat: s for s in match.seats.all()}
    assert match.status == "done"
    assert seats[0].fault_kind == "protocol" and "could not be stored" in seats[0].fault_message
    assert seats[0].rank == 2 and seats[1].rank == 1     # the faulted seat ranks below
    assert Rating.objects.get(ladder=ladder, bot=a).games == 1
