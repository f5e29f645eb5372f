"""Bad input in the admin's forms is an error beside the field that stores nothing, never a 500."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from arena.ladders.models import Ladder
from arena.matches.models import Match
from arena.tournaments.models import Tournament

DEEP = "[" * 100_000  # deeper than Python's JSON parser recurses


@pytest.fixture
def admin_client(db):
    client = Client(raise_request_exception=False)
    client.force_login(get_user_model().objects.create_superuser("root", "root@example.com", "x-Long-pass-9"))
    return client


@pytest.mark.parametrize("path,data", [
    ("/admin/ladders/ladder/add/", {"slug": "deep", "name": "Deep", "seat_count": 2, "options": DEEP, "active": "on"}),
    ("/admin/matches/match/add/", {"seed": "5", "options": DEEP}),
    ("/admin/tournaments/tournament/add/", {"name": "Deep", "seat_count": 2, "format": "round_robin", "rounds": 1,
                                            "points": DEEP, "orders": "cyclic", "entry": "picked"}),
])
def test_json_nested_too_deeply_is_an_error_beside_its_field_that_stores_nothing(admin_client, ladder, path, data):
    before = Ladder.objects.count(), Match.objects.count(), Tournament.objects.count()
    response = admin_client.post(path, {**data, "game": ladder.game})
    assert response.status_code == 200  # the form again, with its errors
    assert "This JSON is nested too deeply." in response.content.decode()
    assert (Ladder.objects.count(), Match.objects.count(), Tournament.objects.count()) == before
