"""A version that keeps faulting in ladder matches is paused from the ladders until a new version
passes its smoke test (settings AUTOPAUSE_*)."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied

from arena.bots.autopause import pause_reason
from arena.bots.services import bot_version_create, bot_version_resume
from arena.ladders.services import ladder_create, matchmaking_fill
from arena.matches.models import Match
from arena.matches.services import challenge_create, match_create
from arena.runs.recording import match_record_outcome
from arena.runs.smoke import bot_version_record_smoke_test
from tests.factories import clean_outcome, py_upload

RULES = {"streak": 5, "window": 50, "rate": 0.2, "min_matches": 20}


def test_five_faults_in_a_row_pause():
    assert pause_reason(["crash"] * 4 + ["timeout"], **RULES) == \
        "5 faulted ladder matches in a row (crash ×4, timeout ×1)"


def test_four_faults_in_a_row_do_not():
    assert pause_reason(["crash"] * 4 + [""] * 10, **RULES) is None


def test_more_than_a_fifth_of_the_last_fifty_pause():
    faults = (["", "", "", "", "memory"] * 10)[:50]
    faults[0:2] = ["memory", ""]  # 11 of 50: 22 %
    reason = pause_reason(faults, **RULES)
    assert reason.startswith("11 of its last 50 ladder matches faulted (22%, more than 20%")


def test_exactly_a_fifth_does_not_pause():
    assert pause_reason(["", "", "", "", "crash"] * 10, **RULES) is None


def test_the_rate_waits_for_enough_matches():
    assert pause_reason(["", "crash", "", "crash"], **RULES) is None  # 50 %, but only 4 games


def test_a_rule_set_to_zero_is_off():
    assert pause_reason(["crash"] * 60, streak=0, window=0, rate=0.2, min_matches=20) is None


@pytest.fixture
def table(db, game_id, make_bot, other_user):
    ladder = ladder_create(slug="duel", name="Duel", game=game_id, seat_count=2)
    return {"ladder": ladder, "alpha": make_bot("alpha", game_id), "bravo": make_bot("bravo", game_id, other_user)}


def _play(table, *, alpha_faults: bool, kind: str = "ladder") -> Match:
    alpha, bravo = table["alpha"], table["bravo"]
    alpha.refresh_from_db()
    if kind == "ladder":
        match = match_create(game=table["ladder"].game, versions=[alpha.active_version, bravo.active_version],
                             ladder=table["ladder"])
    else:
        match = challenge_create(by=alpha.owner, bot=alpha, opponents=[bravo])
    faults = [{"seat": 0, "kind": "crash", "step": 3, "message": "boom"}] if alpha_faults else []
    match_record_outcome(match_id=match.pk, outcome=clean_outcome(match.game, 2, ranks=[2, 1], faults=faults))
    return match


def test_a_version_faulting_five_ladder_matches_in_a_row_is_paused_and_left_out_of_matchmaking(table):
    for _ in range(4):
        _play(table, alpha_faults=True)
    version = table["alpha"].active_version
    version.refresh_from_db()
    assert version.paused_at is None
    _play(table, alpha_faults=True)
    version.refresh_from_db()
    assert version.is_paused and "5 faulted ladder matches in a row (crash ×5)" in version.pause_reason
    Match.objects.filter(status="queued").update(status="done")
    created = matchmaking_fill(ladder=table["ladder"])
    assert all(table["alpha"].pk not in [s.bot_version.bot_id for s in m.seats.all()] for m in created)


def test_faults_in_challenges_do_not_count(table):
    for _ in range(6):
        _play(table, alpha_faults=True, kind="challenge")
    table["alpha"].active_version.refresh_from_db()
    assert table["alpha"].active_version.paused_at is None


def test_a_new_version_that_passes_its_smoke_test_plays_again(table, game_id):
    for _ in range(5):
        _play(table, alpha_faults=True)
    alpha = table["alpha"]
    new = bot_version_create(bot=alpha, upload=py_upload(), by=alpha.owner)
    bot_version_record_smoke_test(version_id=new.pk, outcome=clean_outcome(game_id, 2))
    alpha.refresh_from_db()
    assert alpha.active_version == new and not new.is_paused
    created = matchmaking_fill(ladder=table["ladder"])
    assert created and all(alpha.pk in [s.bot_version.bot_id for s in m.seats.all()] for m in created)


def test_the_owner_may_resume_a_paused_version_and_only_new_faults_count_then(table, other_user):
    for _ in range(5):
        _play(table, alpha_faults=True)
    version = table["alpha"].active_version
    version.refresh_from_db()
    with pytest.raises(PermissionDenied):
        bot_version_resume(version=version, by=other_user)
    version = bot_version_resume(version=version, by=table["alpha"].owner)
    assert not version.is_paused and version.resumed_at
    _play(table, alpha_faults=True)
    version.refresh_from_db()
    assert not version.is_paused  # one new fault, not five in a row
