"""Shared set-up of the A/B test tests: alice's bot alpha with two ready versions, bob's bravo."""

from __future__ import annotations

import pytest

from tests.factories import summary_outcome as _outcome


@pytest.fixture
def versions(owner, other_user, ready_bot, bot_upload, two_player_game):
    """alpha v1 and v2 (alice's), bravo v1 (bob's), all ready."""
    from arena.bots.services import bot_version_create
    from arena.runs.smoke import bot_version_record_smoke_test

    alpha = ready_bot("alpha")
    old = alpha.active_version
    new = bot_version_create(bot=alpha, upload=bot_upload(name="bot.py"), by=owner)
    bot_version_record_smoke_test(version_id=new.pk, outcome=_outcome(two_player_game, 2))
    new.refresh_from_db()
    bravo = ready_bot("bravo", user=other_user)
    return {"old": old, "new": new, "bravo": bravo.active_version, "game": two_player_game}


def play_queued(test, b_wins: bool = True) -> int:
    """Record every queued game of ``test`` as if a worker played it; B wins (or loses) each."""
    from arena.matches.models import Match
    from arena.runs.recording import match_record_outcome

    played = 0
    for match in Match.objects.filter(group__abtest_pair__test=test, status="queued").prefetch_related("seats"):
        seats = sorted(match.seats.all(), key=lambda s: s.seat)
        a_seat = next(s.seat for s in seats if s.bot_version_id == test.a_id)
        b_seat = next(s.seat for s in seats if s.bot_version_id == test.b_id)
        ranks = [2] * len(seats)
        ranks[b_seat if b_wins else a_seat] = 1
        outcome = {**_outcome(match.game, len(seats)), "ranks": ranks, "scores": [float(3 - r) for r in ranks]}
        assert match_record_outcome(match_id=match.pk, outcome=outcome)
        played += 1
    return played


def play_to_end(test, rounds: int, b_wins: bool = True) -> None:
    """Advance ``test`` as the scheduler does, recording its queued games (``play_queued``) after
    each step, until it is no longer running or ``rounds`` steps have passed."""
    from arena.abtests.services import abtest_advance

    for _ in range(rounds):
        abtest_advance(test_id=test.pk)
        test.refresh_from_db()
        if test.status != "running":
            return
        play_queued(test, b_wins=b_wins)
