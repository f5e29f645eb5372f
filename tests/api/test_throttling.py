"""Uploads and challenges are throttled per user; other endpoints are not."""

from __future__ import annotations

import pytest

from arena.bots.models import BotVersion
from tests.api.helpers import client_as


@pytest.fixture
def low_rates(settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK,
                               "DEFAULT_THROTTLE_RATES": {"uploads": "2/hour", "challenges": "1/hour"}}


def test_uploads_over_the_rate_get_429_and_store_nothing(low_rates, owner, ready_bot, bot_upload):
    bot = ready_bot("alpha")
    client = client_as(owner)
    for _ in range(2):
        assert client.post(f"/api/bots/{bot.pk}/versions/", {"file": bot_upload()},
                           format="multipart").status_code == 201
    response = client.post(f"/api/bots/{bot.pk}/versions/", {"file": bot_upload()}, format="multipart")
    assert response.status_code == 429
    assert "throttled" in response.json()["detail"].lower()
    assert int(response["Retry-After"]) > 0
    assert BotVersion.objects.filter(bot=bot).count() == 3  # the first version and two uploads


def test_creating_bots_counts_as_uploads(low_rates, owner, two_player_game, bot_upload):
    client = client_as(owner)
    codes = [client.post("/api/bots/", {"name": f"b{i}", "game": two_player_game, "file": bot_upload()},
                         format="multipart").status_code for i in range(3)]
    assert codes == [201, 201, 429]


def test_the_upload_throttle_counts_each_user_separately(low_rates, owner, other_user, two_player_game, bot_upload):
    for user, prefix in ((owner, "a"), (other_user, "b")):
        client = client_as(user)
        for i in range(2):
            response = client.post("/api/bots/", {"name": f"{prefix}{i}", "game": two_player_game,
                                                  "file": bot_upload()}, format="multipart")
            assert response.status_code == 201


def test_challenges_over_the_rate_get_429(low_rates, arena, owner):
    client = client_as(owner)
    payload = {"bot": arena["alpha"].pk, "opponents": [arena["bravo"].pk]}
    assert client.post("/api/challenges/", payload, format="json").status_code == 201
    assert client.post("/api/challenges/", payload, format="json").status_code == 429


def test_reads_are_not_throttled(low_rates, arena, owner):
    client = client_as(owner)
    assert all(client.get(f"/api/bots/{arena['alpha'].pk}/versions/").status_code == 200 for _ in range(5))


def test_password_guessing_at_the_token_endpoint_is_throttled_per_address(settings, owner):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK,
                               "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
                                                          "auth": "3/minute"}}
    client = client_as(None)
    codes = [client.post("/api/auth/token/", {"username": "alice", "password": f"guess-{i}"}).status_code
             for i in range(4)]
    assert codes == [400, 400, 400, 429]
    assert int(client.post("/api/auth/token/", {"username": "alice", "password": "x"})["Retry-After"]) > 0
