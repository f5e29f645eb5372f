"""/live/<kind>/<key>/: the cheap token a live page polls before fetching itself again."""

from __future__ import annotations

from django.test import Client

from arena.matches.services import match_claim
from arena.runs.recording import match_record_outcome
from tests.factories import summary_outcome as _outcome


def test_a_matchs_token_changes_as_it_is_claimed_and_recorded_and_says_when_it_is_final(arena):
    match = arena["queued"]
    first = Client().get(f"/live/match/{match.pk}/")
    assert first.status_code == 200 and first["Cache-Control"] == "no-store"
    assert first.json()["final"] is False
    match_claim(match_id=match.pk, worker="w")
    running = Client().get(f"/live/match/{match.pk}/").json()
    assert running["token"] != first.json()["token"] and running["final"] is False
    assert match_record_outcome(match_id=match.pk, outcome=_outcome(match.game, 2))
    done = Client().get(f"/live/match/{match.pk}/").json()
    assert done["token"] != running["token"] and done["final"] is True


def test_the_match_page_carries_its_token_for_live_js(arena):
    match = arena["queued"]
    page = Client().get(f"/matches/{match.pk}/").content.decode()
    token = Client().get(f"/live/match/{match.pk}/").json()["token"]
    assert f'data-live-token="/live/match/{match.pk}/" data-live-token-value="{token}"' in page


def test_unknown_kinds_and_objects_are_404(arena):
    for path in ("/live/chess/1/", "/live/match/999999/", "/live/match/x/", "/live/tournament/nowhere/",
                 "/live/match/99999999999999999999999/"):
        assert Client().get(path).status_code == 404, path


def test_a_bots_token_changes_when_a_pending_version_turns_active_or_is_refused(owner, ready_bot):
    from arena.bots.services import bot_version_create
    from arena.runs.smoke import bot_version_fail, bot_version_record_smoke_test
    from tests.factories import clean_outcome, py_upload

    bot = ready_bot("alpha")
    page = Client().get(f"/bots/{bot.pk}/").content.decode()
    first = Client().get(f"/live/bot/{bot.pk}/").json()
    assert first["final"] is False and f'data-live-token-value="{first["token"]}"' in page
    assert Client().get(f"/live/bot/{bot.pk}/").json()["token"] == first["token"]   # nothing changed
    pending = bot_version_create(bot=bot, upload=py_upload(), by=owner)
    uploaded = Client().get(f"/live/bot/{bot.pk}/").json()["token"]
    assert uploaded != first["token"]
    bot_version_record_smoke_test(version_id=pending.pk, outcome=clean_outcome(bot.game, 2))
    active = Client().get(f"/live/bot/{bot.pk}/").json()["token"]
    assert active != uploaded
    refused = bot_version_create(bot=bot, upload=py_upload(), by=owner)
    bot_version_fail(version=refused, log="crashed at step 3")
    assert Client().get(f"/live/bot/{bot.pk}/").json()["token"] not in (first["token"], uploaded, active)
    assert Client().get("/live/bot/999999/").status_code == 404
