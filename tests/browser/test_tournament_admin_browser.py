"""The tournament admin in Chromium: the bot picker and the option checkboxes follow the chosen game,
the rounds and advance fields the chosen format; the change page links the public page, shows
progress and offers the actions as buttons."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from arena.tournaments.services import tournament_create
from tests.browser.conftest import save_screenshot, sign_in

DSA = "deep_sea_adventure"


@pytest.mark.django_db(transaction=True)
def test_the_bot_picker_lists_the_chosen_games_bots_and_the_change_page_acts(page, site, make_bot):
    root = get_user_model().objects.create_superuser("root", "root@example.com", "pw-for-root-123")
    sign_in(page, site, root)
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
    # Only the chosen game's options are offered, as checkboxes.
    assert page.is_visible("#id_option__divee__special_tiles")
    assert not page.is_visible("#id_option__dive__companions") and not page.is_visible("#id_option__dive_diver_die__jewel")
    # Rounds for round robin and Swiss; advance for elimination.
    page.select_option("#id_format", "swiss")
    assert page.is_visible("#id_rounds") and not page.is_visible("#id_advance")
    page.select_option("#id_format", "elimination")
    assert page.is_visible("#id_advance") and not page.is_visible("#id_rounds")
    save_screenshot(page, "admin-tournament-add")
    page.set_viewport_size({"width": 390, "height": 900})
    save_screenshot(page, "admin-tournament-add-390")
    page.set_viewport_size({"width": 1280, "height": 900})
    # Every error at once, each beside its field: no name, too many seats, no bots.
    page.fill("#id_name", " ")
    page.fill("#id_seat_count", "9")
    page.fill("#id_advance", "1")
    page.click("input[name=_save]")
    page.wait_for_selector(".errornote")
    errors = page.eval_on_selector_all(".errorlist", "els => els.map(e => e.closest('.form-row').className)")
    assert any("field-name" in c for c in errors) and any("field-seat_count" in c for c in errors), errors
    save_screenshot(page, "admin-tournament-add-errors")
    t = tournament_create(name="Cup", game=DSA, seat_count=2, format="swiss", rounds=2, bots=dsa)
    page.goto(f"{site}/admin/tournaments/tournament/{t.pk}/change/")
    assert page.get_attribute("[data-role=public-page]", "href") == f"/tournaments/{t.slug}/"
    page.click("button[data-action=start_now]")
    page.wait_for_selector("text=1 tournament(s) started.")
    page.goto(f"{site}/admin/tournaments/tournament/{t.pk}/change/")
    assert page.inner_text("[data-role=progress]").startswith("running: 0 of ")
    save_screenshot(page, "admin-tournament-change")
    assert page.js_errors == []
