"""The tournament admin through its pages (Django test client): create with validation, actions with
their errors as messages; non-staff are kept out. And the Match admin's "Add match" that runs."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone

from arena.matches.models import Match
from arena.runs.smoke import smoke_opponents
from arena.tournaments.models import Tournament
from arena.tournaments.services import tournament_create
from tests.tournaments.conftest import DSA, play_open_games

pytestmark = pytest.mark.django_db


@pytest.fixture
def root_client(client):
    root = get_user_model().objects.create_superuser("root", "root@example.com", "pw-for-root-123")
    client.force_login(root)
    return client


def _form(bots, **overrides) -> dict:
    now = timezone.now()
    data = {"name": "Admin cup", "slug": "", "game": DSA, "seat_count": 3, "format": "swiss",
            "rounds": 3, "advance": "", "orders": "cyclic", "points": "[]", "entry": "picked", "ladder": "",
            "bots": [b.pk for b in bots], "freeze_versions": "on",
            "start_at_0": now.strftime("%Y-%m-%d"), "start_at_1": now.strftime("%H:%M:%S")}
    data.update(overrides)
    return {k: v for k, v in data.items() if v is not None}


def test_a_tournament_made_in_the_admin_is_stored_with_its_entrants(root_client, six_bots):
    response = root_client.post(reverse("admin:tournaments_tournament_add"), _form(six_bots))
    assert response.status_code == 302, response.content.decode()[-3000:]
    t = Tournament.objects.get(slug="admin-cup")
    assert t.status == "scheduled" and t.entrants.count() == 6 and t.created_by.username == "root"


@pytest.mark.parametrize("overrides,field,message", [
    ({"rounds": "0"}, "rounds", "at least one round"),
    ({"seat_count": "9"}, "seat_count", "takes 2-6 players"),
    ({"format": "elimination", "advance": "3"}, "advance", "m &lt; k"),
    ({"format": "elimination", "advance": "1", "rounds": "2"}, "rounds", "does not use rounds"),
    ({"format": "swiss", "advance": "1"}, "advance", "does not use advance"),
    ({"orders": "all", "seat_count": "5", "rounds": "1"}, "orders", "up to 4 seats"),
])
def test_the_admin_shows_each_invalid_setup_beside_its_field_and_stores_nothing(
        root_client, six_bots, overrides, field, message):
    response = root_client.post(reverse("admin:tournaments_tournament_add"), _form(six_bots, **overrides))
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert field in errors, errors
    assert message in response.content.decode()
    assert not Tournament.objects.exists()


def test_too_few_or_foreign_bots_are_refused_in_the_admin(root_client, six_bots, make_bot):
    response = root_client.post(reverse("admin:tournaments_tournament_add"), _form(six_bots[:2]))
    assert "cannot fill one table of 3 seats" in response.content.decode()
    other = make_bot("elsewhere", "divee")
    response = root_client.post(reverse("admin:tournaments_tournament_add"), _form([*six_bots, other]))
    assert "another game than deep_sea_adventure" in response.content.decode()
    assert not Tournament.objects.exists()


def _act(client, action: str, tournament):
    return client.post(reverse("admin:tournaments_tournament_changelist"),
                       {"action": action, "_selected_action": [tournament.pk]}, follow=True)


def test_the_admin_actions_start_pause_resume_extend_and_cancel_with_errors_as_messages(root_client, six_bots):
    t = tournament_create(name="Acts", game=DSA, seat_count=3, format="swiss", rounds=1, bots=six_bots)
    page = _act(root_client, "resume", t)
    assert "Acts is scheduled: it cannot be resumed" in page.content.decode()
    page = _act(root_client, "start_now", t)
    assert "1 tournament(s) started." in page.content.decode()
    t.refresh_from_db()
    assert t.status == "running" and t.round_set.count() == 1
    _act(root_client, "pause", t)
    t.refresh_from_db()
    assert t.status == "paused" and not Match.objects.filter(status="queued").exists()
    _act(root_client, "resume", t)
    t.refresh_from_db()
    assert t.status == "running" and Match.objects.filter(status="queued").count() == 6
    page = _act(root_client, "rerun_failed", t)
    assert "Acts has no failed game." in page.content.decode()
    _act(root_client, "extend_swiss", t)
    t.refresh_from_db()
    assert t.rounds == 2
    _act(root_client, "cancel", t)
    t.refresh_from_db()
    assert t.status == "cancelled"
    page = _act(root_client, "start_now", t)
    assert "Acts is cancelled: it cannot start" in page.content.decode()


def test_the_admin_reruns_the_failed_games(root_client, six_bots, settings):
    from arena.runs.recording import match_record_failure

    t = tournament_create(name="Fails", game=DSA, seat_count=3, format="swiss", rounds=1, bots=six_bots)
    _act(root_client, "start_now", t)
    failing = Match.objects.order_by("id").first()
    Match.objects.filter(pk=failing.pk).update(status="running", attempts=settings.MATCH_MAX_ATTEMPTS)
    match_record_failure(match_id=failing.pk, error="boom")
    play_open_games()
    _act(root_client, "rerun_failed", t)
    failing.refresh_from_db()
    assert failing.status == "queued" and not failing.rated


def test_the_tournament_change_page_shows_entrants_and_rounds(root_client, six_bots):
    t = tournament_create(name="Looks", game=DSA, seat_count=3, format="swiss", rounds=1, bots=six_bots)
    _act(root_client, "start_now", t)
    page = root_client.get(reverse("admin:tournaments_tournament_change", args=[t.pk]))
    assert page.status_code == 200 and "t0" in page.content.decode()
    assert root_client.get(reverse("admin:tournaments_tournament_changelist")).status_code == 200


def test_non_staff_cannot_reach_the_tournament_admin(client, owner, six_bots):
    client.force_login(owner)
    response = client.post(reverse("admin:tournaments_tournament_add"), _form(six_bots))
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
    assert not Tournament.objects.exists()


def test_staff_without_the_permission_cannot_add_a_tournament(client, staff, six_bots):
    client.force_login(staff)
    response = client.post(reverse("admin:tournaments_tournament_add"), _form(six_bots))
    assert response.status_code == 403
    assert not Tournament.objects.exists()


# --- the Match admin's "Add match" -----------------------------------------------------------------------

def test_add_match_in_the_admin_creates_a_queued_match_through_match_create(root_client, six_bots):
    versions = [b.active_version for b in six_bots[:3]]
    response = root_client.post(reverse("admin:matches_match_add"), {
        "game": DSA, "seat_0": versions[0].pk, "seat_1": versions[1].pk, "seat_2": versions[2].pk,
        "seed": "42", "options": "{}"})
    assert response.status_code == 302, response.content.decode()[-2000:]
    match = Match.objects.get()
    assert match.status == "queued" and match.seed == 42 and not match.rated and match.queued_at
    assert list(match.seats.order_by("seat").values_list("bot_version_id", flat=True)) == [v.pk for v in versions]


def test_add_match_in_the_admin_refuses_what_cannot_run(root_client, six_bots, make_bot):
    version = six_bots[0].active_version
    url = reverse("admin:matches_match_add")
    page = root_client.post(url, {"game": DSA, "seat_0": version.pk, "options": "{}"})
    assert "takes 2-6 players, not 1" in page.content.decode()
    page = root_client.post(url, {"game": DSA, "seat_0": version.pk, "seat_1": six_bots[1].active_version.pk,
                                  "options": "{}", "rated": "on"})
    assert "A rated match needs the ladder" in page.content.decode()
    other = make_bot("divee-bot", "divee")
    page = root_client.post(url, {"game": DSA, "seat_0": version.pk, "seat_1": other.active_version.pk,
                                  "options": "{}"})
    assert "divee-bot plays divee, not deep_sea_adventure" in page.content.decode()
    assert not Match.objects.exists()


def test_a_rated_match_added_in_the_admin_is_a_ladder_match(root_client, six_bots):
    from arena.ladders.services import ladder_create

    ladder = ladder_create(slug="dsa2", name="DSA 2", game=DSA, seat_count=2)
    response = root_client.post(reverse("admin:matches_match_add"), {
        "game": DSA, "seat_0": six_bots[0].active_version.pk, "seat_1": six_bots[1].active_version.pk,
        "options": "{}", "rated": "on", "ladder": ladder.pk})
    assert response.status_code == 302
    match = Match.objects.get()
    assert match.rated and match.kind == "ladder" and match.ladder == ladder


def test_entrants_and_rounds_are_shown_read_only_on_a_tournaments_admin_page(root_client, six_bots):
    from arena.tournaments.services import tournament_start

    t = tournament_create(name="Inline cup", game=DSA, seat_count=3, format="swiss", rounds=1, bots=six_bots)
    tournament_start(tournament_id=t.pk)
    html = root_client.get(reverse("admin:tournaments_tournament_change", args=[t.pk])).content.decode()
    assert "Inline cup" in html and six_bots[0].name in html
    for inline, fields in (("entrants", ("name", "bot", "version", "seed", "rating")),
                           ("round_set", ("number", "seed", "byes", "forfeits"))):
        assert f'name="{inline}-TOTAL_FORMS"' in html  # the inline is there, as a formset of read-only rows
        for field in fields:
            assert f'name="{inline}-0-{field}"' not in html, (inline, field)  # shown as text, not a field


def test_the_admin_form_shows_every_error_at_once(root_client, six_bots, make_bot):
    other_game = make_bot("diver", "divee")
    response = root_client.post(reverse("admin:tournaments_tournament_add"), _form(
        [*six_bots, other_game], name=" ", rounds="0", points="1, 3, 0", orders="all", seat_count="5"))
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert {"name", "rounds", "points", "orders", "bots"} <= set(errors), errors
    assert "another game" in str(errors["bots"]) and "need 5 numbers" in str(errors["points"])
    assert not Tournament.objects.exists()


def test_points_are_numbers_separated_by_commas(root_client, six_bots):
    response = root_client.post(reverse("admin:tournaments_tournament_add"), _form(six_bots, points="5, 2, 0"))
    assert response.status_code == 302
    assert Tournament.objects.get(slug="admin-cup").points == [5, 2, 0]
    response = root_client.post(reverse("admin:tournaments_tournament_add"), _form(six_bots, name="Two", points="5, x"))
    assert response.status_code == 200 and "numbers separated by commas" in str(response.context["adminform"].form.errors)


def test_each_game_option_is_a_checkbox_and_the_chosen_games_own_are_stored(root_client, six_bots, make_bot):
    page = root_client.get(reverse("admin:tournaments_tournament_add")).content.decode()
    assert 'name="options"' not in page   # no JSON to type
    for game, option in (("dive", "companions"), ("divee", "special_tiles"), ("dive_diver_die", "jewel")):
        assert f'name="option__{game}__{option}"' in page and f'data-game="{game}"' in page
    divee = [make_bot(f"d{i}", "divee") for i in range(3)]
    # Another game's ticked box is not this game's option; a box left at its default stores nothing.
    response = root_client.post(reverse("admin:tournaments_tournament_add"), _form(
        divee, name="Tiles", game="divee", seat_count=2, points="", option__divee__special_tiles="on", option__dive__companions="on"))
    assert response.status_code == 302, response.context["adminform"].form.errors
    assert Tournament.objects.get(slug="tiles").options == {"special_tiles": True}
    response = root_client.post(reverse("admin:tournaments_tournament_add"), _form(
        six_bots, name="Plain", option__dive__companions="on"))
    assert response.status_code == 302
    assert Tournament.objects.get(slug="plain").options == {}
    # Dive! Diver! Die!'s jewel is on by default: an unticked box turns it off.
    ddd = [make_bot(f"x{i}", "dive_diver_die") for i in range(3)]
    response = root_client.post(reverse("admin:tournaments_tournament_add"), _form(ddd, name="No jewel", game="dive_diver_die", points=""))
    assert response.status_code == 302
    assert Tournament.objects.get(slug="no-jewel").options == {"jewel": False}


def test_the_bot_picker_says_each_bots_game_for_the_filter(root_client, six_bots, make_bot):
    make_bot("diver", "divee")
    page = root_client.get(reverse("admin:tournaments_tournament_add")).content.decode()
    assert 'data-game="divee"' in page and f'data-game="{DSA}"' in page and "arena/tournament_admin.js" in page


def test_the_bot_picker_lists_only_bots_that_can_enter(root_client, six_bots):
    # The smoke tests' opponent bot is inactive with no active version: offering it only led to
    # "These bots have no ready version" after the form was sent.
    opponent = smoke_opponents(game=DSA, count=1)[0].bot
    page = root_client.get(reverse("admin:tournaments_tournament_add")).content.decode()
    assert f'value="{six_bots[0].pk}"' in page and opponent.name not in page
    response = root_client.post(reverse("admin:tournaments_tournament_add"), _form([*six_bots, opponent]))
    assert response.status_code == 200 and "bots" in response.context["adminform"].form.errors
    assert not Tournament.objects.exists()


def test_the_change_page_links_the_public_page_shows_progress_and_offers_actions(root_client, six_bots):
    t = tournament_create(name="Cup", game=DSA, seat_count=3, format="swiss", rounds=2, bots=six_bots)
    page = root_client.get(reverse("admin:tournaments_tournament_change", args=[t.pk])).content.decode()
    assert f'href="/tournaments/{t.slug}/" data-role="public-page"' in page
    assert 'data-role="progress"' in page and "0 of 0 games done" in page
    for action in ("start_now", "pause", "resume", "cancel", "rerun_failed", "extend_swiss"):
        assert f'data-action="{action}"' in page
    # The button posts the changelist's action for this tournament.
    response = root_client.post(reverse("admin:tournaments_tournament_changelist"),
                                {"action": "start_now", "_selected_action": t.pk, "index": 0, "select_across": 0})
    assert response.status_code == 302
    t.refresh_from_db()
    assert t.status == "running"
    page = root_client.get(reverse("admin:tournaments_tournament_change", args=[t.pk])).content.decode()
    assert "running: 0 of " in page and "games done" in page
