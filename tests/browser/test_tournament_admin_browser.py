"""The tournament admin in Chromium: the bot picker follows the chosen game; the change page links the
public page, shows progress and offers the actions as buttons."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from arena.tournaments.services import tournament_create
from tests.browser.conftest import save_screenshot

DSA = "deep_sea_adventure"


@pytest.mark.django_db(transaction=True)
def test_the_bot_picker_lists_the_chosen_games_bots_and_the_change_page_acts(page, site, make_bot):  # noqa: F811
    root = get_user_model().objects.create_superuser("root", "root@example.com", "pw-for-root-123")
    client = Client()
    client.force_login(root)
    page.context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": site}])
    dsa = [make_bot(f"t{i}", DSA) for i in range(3)]
    make_bot("diver", "divee")
    page.goto(f"{site}/admin/tournaments/tournament/add/")
    visible = "els => els.filter(o => !o.hidden).map(o => o.textContent.split(' ')[0])"
    page.select_option("#id_game", DSA)
    assert sorted(page.eval_on_selector_all("#id_bots option", visible)) == ["t0", "t1", "t2"]
    page.select_option("#id_bots", [str(dsa[0].pk)])
    page.select_option("#id_game", "divee")
    assert page.eval_on_selector_all("#id_bots option", visible) == ["diver"]
    assert page.eval_on_selector_all("#id_bots option:checked", "els => els.length") == 0   # t0 unselected
    save_screenshot(page, "admin-tournament-add")
    t = tournament_create(name="Cup", game=DSA, seat_count=2, format="swiss", rounds=2, bots=dsa)
    page.goto(f"{site}/admin/tournaments/tournament/{t.pk}/change/")
    assert page.get_attribute("[data-role=public-page]", "href") == f"/tournaments/{t.slug}/"
    page.click("button[data-action=start_now]")
    page.wait_for_selector("text=1 tournament(s) started.")
    page.goto(f"{site}/admin/tournaments/tournament/{t.pk}/change/")
    assert page.inner_text("[data-role=progress]").startswith("running: 0 of ")
    save_screenshot(page, "admin-tournament-change")
    assert page.js_errors == []
