"""The upload forms: a good upload, each bad upload's own message, and nothing stored then."""

from __future__ import annotations

import pytest
from django.test import Client

from arena.bots.models import Bot, BotVersion
from tests.upload_cases import bad_uploads

BAD = bad_uploads()


@pytest.fixture
def owner_client(owner) -> Client:
    client = Client()
    client.force_login(owner)
    return client


def test_the_upload_form_offers_every_game(owner_client):
    from engines import list_games

    page = owner_client.get("/bots/new/").content.decode()
    for game in list_games():
        assert f'value="{game.id}"' in page
    assert "main.py" in page  # the rules are stated next to the file field


def test_the_name_help_of_the_upload_form_states_every_rule_a_refused_name_is_told(owner_client, two_player_game,
                                                                                    bot_upload):
    refused = owner_client.post("/bots/new/", {"name": "_webbot", "game": two_player_game, "file": bot_upload()})
    assert refused.status_code == 400 and not Bot.objects.filter(name="_webbot").exists()
    [message] = refused.context["form"].errors["name"]
    assert owner_client.get("/bots/new/").context["form"].fields["name"].help_text == message


def test_it_creates_a_bot_and_shows_its_page(owner_client, two_player_game, bot_upload):
    response = owner_client.post("/bots/new/", {"name": "webbot", "game": two_player_game, "file": bot_upload()})
    bot = Bot.objects.get(name="webbot")
    assert response.status_code == 302 and response["Location"] == f"/bots/{bot.pk}/"
    page = owner_client.get(response["Location"]).content.decode()
    assert "being smoke-tested" in page and "pending" in page


@pytest.mark.parametrize("case,filename,data,fragment", BAD, ids=[c[0] for c in BAD])
def test_it_shows_each_bad_uploads_own_message_and_stores_nothing(
        owner_client, two_player_game, bot_upload, case, filename, data, fragment):
    response = owner_client.post("/bots/new/", {"name": "webbot", "game": two_player_game,
                                                "file": bot_upload(data, filename)})
    assert response.status_code == 400
    assert fragment in response.content.decode()
    assert not Bot.objects.exists() and not BotVersion.objects.exists()


def test_it_shows_a_taken_name_next_to_the_name(owner_client, other_user, ready_bot, two_player_game, bot_upload):
    ready_bot("alpha", user=other_user)
    response = owner_client.post("/bots/new/", {"name": "alpha", "game": two_player_game, "file": bot_upload()})
    assert response.status_code == 400
    assert "is taken" in response.content.decode()
    assert Bot.objects.count() == 1


def test_the_upload_form_needs_a_logged_in_user(db):
    response = Client().get("/bots/new/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_the_owner_uploads_a_new_version(owner_client, ready_bot, bot_upload):
    bot = ready_bot("alpha")
    response = owner_client.post(f"/bots/{bot.pk}/upload/", {"file": bot_upload()})
    assert response.status_code == 302
    assert list(bot.versions.values_list("number", "status")) == [(2, "pending"), (1, "ready")]


@pytest.mark.parametrize("case,filename,data,fragment", BAD[:6], ids=[c[0] for c in BAD[:6]])
def test_a_bad_new_version_gets_its_message_and_stores_nothing(
        owner_client, ready_bot, bot_upload, case, filename, data, fragment):
    bot = ready_bot("alpha")
    response = owner_client.post(f"/bots/{bot.pk}/upload/", {"file": bot_upload(data, filename)})
    assert response.status_code == 400
    assert fragment in response.content.decode()
    assert bot.versions.count() == 1


def test_another_user_cannot_upload_a_version_of_my_bot(ready_bot, other_user, bot_upload):
    bot = ready_bot("alpha")
    client = Client()
    client.force_login(other_user)
    assert client.get(f"/bots/{bot.pk}/upload/").status_code == 403
    assert client.post(f"/bots/{bot.pk}/upload/", {"file": bot_upload()}).status_code == 403
    assert bot.versions.count() == 1


def test_another_user_cannot_change_my_bot(ready_bot, other_user):
    bot = ready_bot("alpha")
    client = Client()
    client.force_login(other_user)
    response = client.post(f"/bots/{bot.pk}/settings/", {"description": "mine now", "is_active": ""})
    assert response.status_code == 403
    bot.refresh_from_db()
    assert bot.description == "" and bot.is_active


def test_the_owner_retires_a_bot_from_ladder_play(owner_client, ready_bot):
    bot = ready_bot("alpha")
    response = owner_client.post(f"/bots/{bot.pk}/settings/", {"description": "resting"})
    assert response.status_code == 302
    bot.refresh_from_db()
    assert bot.description == "resting" and not bot.is_active


def test_uploads_over_the_rate_are_refused_by_the_form_too(owner_client, settings, two_player_game, bot_upload):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK,
                               "DEFAULT_THROTTLE_RATES": {"uploads": "1/hour", "challenges": "1/hour"}}
    first = owner_client.post("/bots/new/", {"name": "one", "game": two_player_game, "file": bot_upload()})
    second = owner_client.post("/bots/new/", {"name": "two", "game": two_player_game, "file": bot_upload()})
    assert first.status_code == 302
    assert second.status_code == 429 and "Too many uploads" in second.content.decode()
    assert list(Bot.objects.values_list("name", flat=True)) == ["one"]


def test_the_owner_starts_a_challenge_from_the_bot_page(arena, owner_client):
    from arena.matches.models import Match

    page = owner_client.get(f"/bots/{arena['alpha'].pk}/").content.decode()
    assert "Start the challenge" in page
    response = owner_client.post(f"/bots/{arena['alpha'].pk}/challenge/", {"opponents": "Bravo", "seed": "5"})
    match = Match.objects.get(kind="challenge")
    assert response.status_code == 302 and response["Location"] == f"/matches/{match.pk}/"
    assert (match.seed, match.rated) == (5, False)
    assert [s.bot_version.bot.name for s in match.seats.order_by("seat")] == ["alpha", "bravo"]


def test_a_challenge_naming_an_unknown_bot_says_so_and_creates_nothing(arena, owner_client):
    from arena.matches.models import Match

    response = owner_client.post(f"/bots/{arena['alpha'].pk}/challenge/", {"opponents": "bravo, nobody"}, follow=True)
    assert "No bot is called nobody" in response.content.decode()
    assert not Match.objects.filter(kind="challenge").exists()


def test_a_challenge_without_opponents_asks_for_them_and_creates_nothing(arena, owner_client):
    from arena.matches.models import Match

    response = owner_client.post(f"/bots/{arena['alpha'].pk}/challenge/", {"opponents": []}, follow=True)
    assert "This field is required" in response.content.decode()
    assert not Match.objects.filter(kind="challenge").exists()


@pytest.mark.parametrize("seed,error", [("-1", "greater than or equal to 0"), ("1.5", "whole number")])
def test_a_challenge_with_a_bad_seed_names_the_seed_and_creates_nothing(arena, owner_client, seed, error):
    from arena.matches.models import Match

    response = owner_client.post(f"/bots/{arena['alpha'].pk}/challenge/", {"opponents": "bravo", "seed": seed},
                                 follow=True)
    [message] = [str(m) for m in response.context["messages"]]
    assert message.startswith("Seed: ") and error in message   # shown above the page, far from the field
    assert not Match.objects.filter(kind="challenge").exists()


def test_a_bot_of_a_solo_game_can_be_challenged_alone_from_its_page(ready_bot, owner_client):
    from arena.matches.models import Match
    from engines import list_games

    solo_game = next(game.id for game in list_games() if game.min_players == 1)
    bot = ready_bot("lonely", game=solo_game)
    assert "Leave empty for a solo game" in owner_client.get(f"/bots/{bot.pk}/").content.decode()
    response = owner_client.post(f"/bots/{bot.pk}/challenge/", {"opponents": []})
    match = Match.objects.get(kind="challenge")
    assert response.status_code == 302 and response["Location"] == f"/matches/{match.pk}/"
    assert [s.bot_version.bot.name for s in match.seats.order_by("seat")] == ["lonely"]


def test_another_user_cannot_challenge_with_my_bot(arena, other_user):
    from arena.matches.models import Match

    client = Client()
    client.force_login(other_user)
    assert "Start the challenge" not in client.get(f"/bots/{arena['alpha'].pk}/").content.decode()
    response = client.post(f"/bots/{arena['alpha'].pk}/challenge/", {"opponents": [arena["bravo"].pk]})
    assert response.status_code == 403
    assert not Match.objects.filter(kind="challenge").exists()


def test_challenges_over_the_hourly_limit_are_refused_with_a_message(arena, owner_client, settings):
    from arena.matches.models import Match

    settings.CHALLENGES_PER_HOUR = 1
    url = f"/bots/{arena['alpha'].pk}/challenge/"
    owner_client.post(url, {"opponents": [arena["bravo"].pk]})
    response = owner_client.post(url, {"opponents": [arena["bravo"].pk]}, follow=True)
    assert "At most 1 challenge matches per hour" in response.content.decode()
    assert Match.objects.filter(kind="challenge").count() == 1
