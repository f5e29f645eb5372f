"""Fixtures of the tournament tests: the platform's bots and games, and a way to play a round."""

from __future__ import annotations

import pytest

from tests.factories import clean_outcome

DSA = "deep_sea_adventure"


@pytest.fixture
def six_bots(make_bot):
    """Six Deep Sea Adventure bots with ready versions: t0 .. t5."""
    return [make_bot(f"t{i}", DSA) for i in range(6)]


def play_open_games(ranks_of=None) -> int:
    """Record every queued tournament game as a worker would (seat order ranks unless
    ``ranks_of(match)`` says otherwise). Returns how many were recorded."""
    from arena.matches.models import Match
    from arena.runs.recording import match_record_outcome

    played = 0
    for match in Match.objects.filter(kind=Match.Kind.TOURNAMENT, status=Match.Status.QUEUED).order_by("id"):
        seats = match.seats.count()
        ranks = ranks_of(match) if ranks_of else list(range(1, seats + 1))
        assert match_record_outcome(match_id=match.pk, outcome=clean_outcome(match.game, seats, ranks))
        played += 1
    return played
