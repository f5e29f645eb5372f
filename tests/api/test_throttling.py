"""Uploads and challenges are throttled per user; anonymous reads per address (in default pages);
and no client has more than its share of requests answered at once."""

from __future__ import annotations

import json

import pytest

from arena.bots.models import BotVersion
from rest_framework.test import APIClient

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


# --- anonymous reads and one client's share of the web workers (issue 25.7) ------------------------

@pytest.fixture
def read_rate(settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {
        **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "anon_reads": "20/minute", "anon_reads_burst": "1000/second"}}


def test_anonymous_reads_are_throttled_per_address_counted_in_default_pages(read_rate, arena, one_throttle_window):
    client = client_as(None)
    assert client.get("/api/matches/?page_size=200").status_code == 200      # 8 of 20
    assert client.get("/api/matches/?page_size=200").status_code == 200      # 16
    assert client.get("/api/matches/?page_size=100").status_code == 200      # 20: the last allowed
    refused = client.get("/api/games/")                                       # 21
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    other = APIClient(REMOTE_ADDR="10.0.0.9")
    assert other.get("/api/games/").status_code == 200                        # another address: its own count


def test_a_burst_of_anonymous_reads_is_refused_by_its_own_budget(settings, arena, one_throttle_window):
    # The burst's window is a second by default; a minute here, so that a slow machine's three
    # requests fall in one window.
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {
        **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "anon_reads_burst": "16/minute"}}
    client = client_as(None)
    codes = [client.get("/api/matches/?page_size=200").status_code for _ in range(3)]
    assert codes == [200, 200, 429]   # 8 + 8 = 16 units; the third would be 24


def test_signed_in_reads_are_not_counted_as_anonymous_ones(read_rate, arena, owner, one_throttle_window):
    client = client_as(owner)
    assert all(client.get("/api/matches/?page_size=200").status_code == 200 for _ in range(4))


def test_a_client_past_its_requests_at_once_gets_429_and_the_others_are_served(settings, rf):
    from django.http import HttpResponse

    from arena.web.middleware import OneClientOneShare

    settings.CLIENT_MAX_IN_FLIGHT = 2
    held, answers = [], []

    def view(request):
        # Requests of 10.0.0.1 nest while the first is being answered, as 200 sent in parallel would
        # overlap: its second is allowed, its third refused; another client is served meanwhile.
        if request.path == "/hold/" and len(held) < 2:
            held.append(request)
            answers.append(share(rf.get("/hold/", REMOTE_ADDR="10.0.0.1")).status_code)
        return HttpResponse("ok")

    share = OneClientOneShare(view)
    assert share(rf.get("/hold/", REMOTE_ADDR="10.0.0.1")).status_code == 200
    assert len(held) == 2 and answers == [429, 200]   # the innermost (third at once) first
    assert share(rf.get("/api/games/", REMOTE_ADDR="10.0.0.2")).status_code == 200
    # Every place was given back: the client is served again, as many times as it likes one at a time.
    assert [share(rf.get("/api/games/", REMOTE_ADDR="10.0.0.1")).status_code for _ in range(5)] == [200] * 5


def test_another_client_is_served_while_one_holds_all_its_places(settings, rf):
    from django.http import HttpResponse

    from arena.web.middleware import OneClientOneShare

    settings.CLIENT_MAX_IN_FLIGHT = 1
    seen = {}

    def view(request):
        if request.path == "/hold/":
            seen["same"] = share(rf.get("/api/games/", REMOTE_ADDR="10.0.0.1")).status_code
            seen["other"] = share(rf.get("/api/games/", REMOTE_ADDR="10.0.0.2")).status_code
        return HttpResponse("ok")

    share = OneClientOneShare(view)
    share(rf.get("/hold/", REMOTE_ADDR="10.0.0.1"))
    assert seen == {"same": 429, "other": 200}


def test_the_refusal_says_why_in_json_for_the_api_and_a_page_elsewhere(settings, rf):
    from django.http import HttpResponse

    from arena.web.middleware import OneClientOneShare

    settings.CLIENT_MAX_IN_FLIGHT = 1
    seen = {}

    def view(request):
        if not seen:
            seen["api"] = share(rf.get("/api/games/"))
            seen["page"] = share(rf.get("/games/"))
        return HttpResponse("ok")

    share = OneClientOneShare(view)
    share(rf.get("/games/"))
    assert seen["api"].status_code == 429 and "at once" in json.loads(seen["api"].content)["detail"]
    assert seen["api"]["Retry-After"] == "1"
    assert seen["page"].status_code == 429 and b"at once" in seen["page"].content
