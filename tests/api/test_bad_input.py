"""Bad input the schema fuzzing does not generate: NUL bytes (PostgreSQL refuses them in text),
request bodies that are JSON but not an object. Each is a 400 that changes nothing, never a 500."""

from __future__ import annotations

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from arena.bots.models import Bot

NUL = "a\x00b"


def _client(user=None) -> APIClient:
    # A server error answers 500 here, as it would to a real client, instead of raising in the test.
    client = APIClient(raise_request_exception=False)
    if user is not None:
        token, _ = Token.objects.get_or_create(user=user)
        client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


@pytest.mark.parametrize("url", [
    "/api/bots/?game={nul}", "/api/bots/?owner={nul}", "/api/ladders/?game={nul}", "/api/matches/?ladder={nul}",
    "/api/tournaments/?game={nul}", "/api/bots/{alpha}/history/?ladder={nul}", "/api/ladders/{nul}/",
    "/api/tournaments/{nul}/", "/api/games/{nul}/",
])
def test_a_nul_byte_in_an_address_is_a_400(arena, owner, url):
    response = _client(owner).get(url.format(nul=NUL, alpha=arena["alpha"].pk))
    assert response.status_code == 400, response.content[:300]
    assert "NUL" in response.json()["detail"]


@pytest.mark.parametrize("body", ["[]", "null", '"alice"', "7"])
def test_a_token_request_whose_body_is_not_a_json_object_is_a_400(owner, body):
    response = _client().post("/api/auth/token/", body, content_type="application/json")
    assert response.status_code == 400, response.content[:300]
    assert not Token.objects.exists()


def test_a_nul_byte_in_an_address_of_a_write_is_a_400_that_changes_nothing(arena, owner):
    before = list(Bot.objects.values_list("id", "description").order_by("id"))
    response = _client(owner).patch(f"/api/bots/{arena['alpha'].pk}/?x={NUL}", {"description": "new"}, format="json")
    assert response.status_code == 400
    assert list(Bot.objects.values_list("id", "description").order_by("id")) == before


def test_a_change_naming_a_field_that_cannot_be_changed_is_a_400_that_changes_nothing(arena, owner):
    # A rename that answered 200 and did not rename would tell the owner it worked.
    bot = arena["alpha"]
    response = _client(owner).patch(f"/api/bots/{bot.pk}/", {"name": "renamed", "description": "new"}, format="json")
    assert response.status_code == 400
    assert response.json() == {"name": ["Unknown field: this request takes description, is_active."]}
    bot.refresh_from_db()
    assert (bot.name, bot.description) == ("alpha", "")


def test_a_challenge_with_an_unknown_field_is_a_400_that_queues_nothing(arena, owner):
    from arena.matches.models import Match

    before = Match.objects.count()
    response = _client(owner).post("/api/challenges/", {"bot": arena["alpha"].pk, "opponents": [arena["bravo"].pk],
                                                        "rated": True}, format="json")
    assert response.status_code == 400
    assert "rated" in response.json()
    assert Match.objects.count() == before


def test_a_new_bot_with_an_unknown_field_is_a_400_that_stores_nothing(owner, two_player_game, bot_upload):
    response = _client(owner).post("/api/bots/", {"name": "newbot", "game": two_player_game, "file": bot_upload(),
                                                  "owner": "bob"})
    assert response.status_code == 400
    assert "owner" in response.json()
    assert not Bot.objects.exists()


@pytest.mark.parametrize("url,method", [("/api/challenges/", "post"), ("/api/bots/{alpha}/", "patch"),
                                        ("/api/auth/token/", "post")])
@pytest.mark.parametrize("body", ["[" * 100_000, '{"options": ' * 5_000])
def test_json_nested_too_deeply_for_the_parser_is_a_400_that_changes_nothing(arena, owner, url, method, body):
    from arena.matches.models import Match

    before = list(Bot.objects.values_list("id", "description", "is_active").order_by("id")), Match.objects.count()
    response = getattr(_client(owner), method)(url.format(alpha=arena["alpha"].pk), body,
                                               content_type="application/json")
    assert response.status_code == 400, response.content[:300]
    assert "JSON" in response.json()["detail"]
    assert (list(Bot.objects.values_list("id", "description", "is_active").order_by("id")),
            Match.objects.count()) == before


def test_a_body_over_the_size_limit_is_a_400_in_json_that_changes_nothing(arena, owner, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    bot = arena["alpha"]
    response = _client(owner).patch(f"/api/bots/{bot.pk}/", {"description": "x" * 2000}, format="json")
    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    assert "too large" in response.json()["detail"]
    bot.refresh_from_db()
    assert bot.description == ""
