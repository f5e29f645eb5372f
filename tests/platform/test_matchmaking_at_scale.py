"""Matchmaking at scale: it never reads a bot's archive, and recording a result never waits for
a fill holding its ladder (PostgreSQL row locks)."""

from __future__ import annotations

import random
import threading

import pytest
from django.db import connection, connections
from django.test.utils import CaptureQueriesContext

from arena.ladders.services import ladder_create, matchmaking_fill
from arena.matches.models import Match
from arena.matches.services import match_create
from arena.runs.recording import match_record_outcome
from tests.factories import clean_outcome


def test_a_fill_reads_no_bot_archive_and_no_query_per_seat(db, make_bot, game_id):
    ladder = ladder_create(slug="duo", name="Duo", game=game_id, seat_count=2, queue_size=3)
    for i in range(6):
        make_bot(f"arch{i}", game_id)
    with CaptureQueriesContext(connection) as few:
        assert len(matchmaking_fill(ladder=ladder, rng=random.Random(1))) == 3 * 2  # three rotation groups
    assert not any('"archive"' in q["sql"] for q in few.captured_queries)
    assert not any('FROM "bots_botversion"' in q["sql"] and "SELECT" in q["sql"][:10] for q in few.captured_queries)
    Match.objects.all().delete()
    for i in range(6, 20):
        make_bot(f"arch{i}", game_id)
    with CaptureQueriesContext(connection) as many:
        matchmaking_fill(ladder=ladder, rng=random.Random(2))
    assert len(many.captured_queries) == len(few.captured_queries)


@pytest.mark.django_db(transaction=True)
def test_recording_a_ladder_result_does_not_wait_for_a_fill_that_holds_the_ladder(make_bot, game_id, monkeypatch):
    if connection.vendor != "postgresql":
        pytest.skip("row locks need PostgreSQL")
    ladder = ladder_create(slug="locks", name="Locks", game=game_id, seat_count=2, queue_size=2)
    bots = [make_bot(f"lock{i}", game_id) for i in range(4)]
    played = match_create(game=game_id, versions=[bots[0].active_version, bots[1].active_version], ladder=ladder)
    ladder.queue_size = 2 + 1  # in memory: the fill will want one more match than is open

    import arena.ladders.services as ladder_services
    import arena.matches.services as services

    inside, release = threading.Event(), threading.Event()
    real_create = services.match_create

    def slow_create(**kwargs):  # holds the fill inside its transaction, the ladder locked
        inside.set()
        assert release.wait(20)
        return real_create(**kwargs)

    # The fill creates a lone match (ladders.services' name) or a rotation group (whose games
    # matches.services' match_group_create creates through its own name): hold either.
    monkeypatch.setattr(services, "match_create", slow_create)
    monkeypatch.setattr(ladder_services, "match_create", slow_create)
    errors = []

    def fill():
        try:
            matchmaking_fill(ladder=ladder, rng=random.Random(3))
        except Exception as exc:  # reported below
            errors.append(exc)
        finally:
            connections.close_all()

    filler = threading.Thread(target=fill)
    filler.start()
    try:
        assert inside.wait(20), errors
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = '3s'")  # waiting for the fill's lock would fail here
        assert match_record_outcome(match_id=played.pk, outcome=clean_outcome(game_id, 2)) is True
        assert filler.is_alive()  # the fill was still holding its lock all along
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = 0")
        release.set()
        filler.join(30)
    assert not errors
    played.refresh_from_db()
    assert played.status == Match.Status.DONE and played.rating_changes.count() == 2
