"""The tournament tasks: the beat entry, and advancing as soon as a tournament game ends."""

from __future__ import annotations

import pytest
from django.conf import settings

from arena.matches.models import Match
from arena.matches.signals import match_finished
from arena.tournaments.services import tournament_create, tournament_start
from tests.tournaments.conftest import DSA, play_open_games

pytestmark = pytest.mark.django_db


def test_one_beat_entry_ticks_the_tournaments():
    entries = [e for e in settings.CELERY_BEAT_SCHEDULE.values() if e["task"] == "arena.tournaments_tick"]
    assert len(entries) == 1 and entries[0]["schedule"] == float(settings.TOURNAMENT_INTERVAL)


def test_a_finished_tournament_game_asks_its_tournament_to_advance(six_bots, monkeypatch):
    from arena.tournaments import tasks

    sent = []
    monkeypatch.setattr(tasks.tournament_advance, "delay", lambda tournament_id: sent.append(tournament_id))
    t = tournament_create(name="Hook", game=DSA, seat_count=3, format="swiss", rounds=2, bots=six_bots)
    tournament_start(tournament_id=t.pk)
    game = Match.objects.filter(kind="tournament").first()
    match_finished.send(sender=None, match_id=game.pk)
    assert sent == [t.pk]
    from arena.matches.services import match_create

    a, b = six_bots[:2]
    other = match_create(game=DSA, versions=[a.active_version, b.active_version], kind=Match.Kind.CHALLENGE)
    match_finished.send(sender=None, match_id=other.pk)
    assert sent == [t.pk]  # not a tournament's


def test_the_advance_task_pairs_the_next_round_once_the_round_is_over(six_bots):
    from arena.tournaments.tasks import tournament_advance

    t = tournament_create(name="Task", game=DSA, seat_count=3, format="swiss", rounds=2, bots=six_bots)
    tournament_start(tournament_id=t.pk)
    assert tournament_advance(t.pk) == "waiting"
    play_open_games()
    assert tournament_advance(t.pk) == "paired round 2"
    assert tournament_advance(t.pk) == "waiting"
    assert t.round_set.count() == 2
