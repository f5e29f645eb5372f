"""Everything of the platform is in the Django admin: lists and forms open for a superuser."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from arena.ladders.services import ladder_create, ladder_enter
from arena.matches.services import match_claim, match_create
from arena.runs.recording import match_record_outcome
from tests.factories import clean_outcome

MODELS = [("bots", "bot"), ("bots", "botversion"), ("ladders", "ladder"), ("ladders", "rating"),
          ("ladders", "ratingchange"), ("matches", "match"), ("matches", "matchseat")]


@pytest.fixture
def admin_client_with_data(client, make_bot, game_id):
    ladder = ladder_create(slug="adm", name="Adm", game=game_id, seat_count=2)
    a, b = make_bot("adm-a", game_id), make_bot("adm-b", game_id)
    for bot in (a, b):
        ladder_enter(ladder=ladder, bot=bot)
    match = match_create(game=game_id, versions=[a.active_version, b.active_version], ladder=ladder)
    match_claim(match_id=match.pk, worker="w")
    match_record_outcome(match_id=match.pk, outcome=clean_outcome(game_id, 2))
    root = get_user_model().objects.create_superuser("root", "root@example.com", "pw-for-root-123")
    client.force_login(root)
    return client


@pytest.mark.parametrize("app,model", MODELS)
def test_the_admin_lists_and_opens_every_platform_model(admin_client_with_data, app, model):
    from django.apps import apps

    changelist = admin_client_with_data.get(reverse(f"admin:{app}_{model}_changelist"))
    assert changelist.status_code == 200
    obj = apps.get_model(app, model).objects.first()
    change = admin_client_with_data.get(reverse(f"admin:{app}_{model}_change", args=[obj.pk]))
    assert change.status_code == 200


def test_the_admin_requeues_a_failed_match(admin_client_with_data):
    from arena.matches.models import Match

    match = Match.objects.get()
    Match.objects.filter(pk=match.pk).update(status="failed")
    response = admin_client_with_data.post(reverse("admin:matches_match_changelist"),
                                           {"action": "requeue", "_selected_action": [match.pk]}, follow=True)
    assert response.status_code == 200 and b"1 match(es) re-queued" in response.content
    match.refresh_from_db()
    assert match.status == "queued"


def _ladder_form(game: str, seat_count: int, options: str = "{}", slug: str = "made-in-admin") -> dict:
    return {"slug": slug, "name": "Made in the admin", "game": game, "seat_count": seat_count,
            "options": options, "k_factor": 32, "initial_rating": 1200, "queue_size": 2, "rotation": "cyclic",
            "matchmaking": "random", "batch_model": "ranks", "active": "on"}


def test_a_ladder_made_in_the_admin_enters_every_ready_bot_and_gets_matches(admin_client_with_data, game_id):
    from arena.ladders.models import Ladder, Rating
    from arena.ladders.services import matchmaking_fill

    response = admin_client_with_data.post(reverse("admin:ladders_ladder_add"), _ladder_form(game_id, 2))
    assert response.status_code == 302, response.content[:2000]
    ladder = Ladder.objects.get(slug="made-in-admin")
    assert set(Rating.objects.filter(ladder=ladder).values_list("bot__name", flat=True)) == {"adm-a", "adm-b"}
    assert len(matchmaking_fill(ladder=ladder)) == ladder.queue_size * 2  # rotation groups of two games


@pytest.mark.parametrize("seat_count,options,field,fragment", [
    (99, "{}", "seat_count", "players, not 99"),
    (2, '{"no_such_option": 1}', "options", "no_such_option"),
])
def test_the_admin_refuses_a_ladder_the_game_cannot_play(admin_client_with_data, game_id, seat_count, options,
                                                          field, fragment):
    from arena.ladders.models import Ladder

    response = admin_client_with_data.post(reverse("admin:ladders_ladder_add"),
                                           _ladder_form(game_id, seat_count, options))
    assert response.status_code == 200
    assert fragment in str(response.context["adminform"].form.errors[field])
    assert not Ladder.objects.filter(slug="made-in-admin").exists()


def test_the_admin_offers_only_registered_games(admin_client_with_data):
    from arena.ladders.models import Ladder

    response = admin_client_with_data.post(reverse("admin:ladders_ladder_add"), _ladder_form("chess", 2))
    assert response.status_code == 200 and "game" in response.context["adminform"].form.errors
    assert not Ladder.objects.filter(slug="made-in-admin").exists()


@pytest.mark.parametrize("model", ["rating", "ratingchange"])
def test_ratings_and_rating_changes_are_read_only_in_the_admin(admin_client_with_data, model):
    from django.apps import apps

    obj = apps.get_model("ladders", model).objects.first()
    before = {f.name: getattr(obj, f.name) for f in obj._meta.concrete_fields}
    page = admin_client_with_data.get(reverse(f"admin:ladders_{model}_change", args=[obj.pk]))
    assert page.status_code == 200 and b'name="_save"' not in page.content  # a view, not a form
    posted = admin_client_with_data.post(reverse(f"admin:ladders_{model}_change", args=[obj.pk]),
                                         {"elo": 9999, "after": 9999, "games": 0})
    assert posted.status_code == 403
    assert admin_client_with_data.get(reverse(f"admin:ladders_{model}_add")).status_code == 403
    assert admin_client_with_data.post(reverse(f"admin:ladders_{model}_delete", args=[obj.pk]),
                                       {"post": "yes"}).status_code == 403
    obj.refresh_from_db()
    assert {f.name: getattr(obj, f.name) for f in obj._meta.concrete_fields} == before
