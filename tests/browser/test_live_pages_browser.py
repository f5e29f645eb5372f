"""Live pages in Chromium: a challenge's match page goes queued -> running -> done without a reload,
asking only the cheap token until something changed, and stops asking once the match is final."""

from __future__ import annotations

import pytest

from arena.matches.models import Match
from arena.matches.services import match_claim
from arena.runs.recording import match_record_outcome
from tests.browser.conftest import save_screenshot, sign_in
from tests.factories import summary_outcome as _outcome


@pytest.mark.django_db(transaction=True)
def test_a_challenge_page_follows_its_match_to_the_end_and_then_stops_polling(page, site, owner, other_user, ready_bot):
    from arena.matches.services import challenge_create

    mine, theirs = ready_bot("alpha"), ready_bot("bravo", user=other_user)
    match = challenge_create(by=owner, bot=mine, opponents=[theirs])
    requests = {"page": 0, "token": 0}
    path = f"/matches/{match.pk}/"
    page.on("request", lambda r: requests.__setitem__(
        "page" if r.url.endswith(path) else "token" if "/live/match/" in r.url else "other",
        requests.get("page" if r.url.endswith(path) else "token" if "/live/match/" in r.url else "other", 0) + 1))
    page.goto(f"{site}{path}")
    page.evaluate("window.__notReloaded = true")
    status = "td.status-queued, td.status-running, td.status-done"
    assert page.inner_text(status).startswith("queued")
    page.wait_for_function("() => performance.getEntriesByType('resource').some(e => e.name.includes('/live/match/'))",
                           timeout=10_000)
    assert requests["page"] == 1   # the token did not change: the page was not fetched again
    match_claim(match_id=match.pk, worker="w")
    page.wait_for_selector("td.status-running", timeout=15_000)
    assert match_record_outcome(match_id=match.pk, outcome=_outcome(match.game, 2))
    page.wait_for_selector("td.status-done", timeout=15_000)
    assert page.evaluate("window.__notReloaded") is True
    assert Match.objects.get(pk=match.pk).status == "done"
    save_screenshot(page, "live-challenge-done")
    # Final: no more polling of any kind.
    seen = dict(requests)
    page.wait_for_timeout(7_000)
    assert requests["page"] == seen["page"] and requests["token"] == seen["token"]
    assert page.js_errors == []


def _play_and_publish(match, steps: int) -> None:
    """The public view after ``steps`` steps (first legal actions), published as the worker does."""
    from arena.matches.live import match_live_publish
    from engines import get_game

    state = get_game(match.game).new_state(num_players=2, seed=match.seed)
    for _ in range(steps):
        state.apply({seat: state.legal_actions(seat)[0] for seat in state.to_act()})
    match_live_publish(match_id=match.pk, attempt=match.attempts, step=steps, view=state.spectator_view(),
                       over=state.is_terminal())


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("fixture", ["page", "phone_page"])
def test_a_match_being_played_draws_its_moves_as_they_come(request, fixture, site, owner, other_user, ready_bot):
    from arena.matches.services import challenge_create

    page = request.getfixturevalue(fixture)
    mine, theirs = ready_bot("alpha"), ready_bot("bravo", user=other_user)
    match = match_claim(match_id=challenge_create(by=owner, bot=mine, opponents=[theirs]).pk, worker="w")
    page.goto(f"{site}/matches/{match.pk}/")
    page.evaluate("window.__notReloaded = true")
    assert page.is_visible("[data-role=live-waiting]")
    _play_and_publish(match, 2)
    page.wait_for_selector("#live-board[data-drawn-step='2'] svg", timeout=15_000)
    _play_and_publish(match, 6)
    page.wait_for_selector("#live-board[data-drawn-step='6'] svg", timeout=15_000)
    assert "After step 6" in page.inner_text("[data-role=live-step]")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], width   # nothing scrolls sideways
    save_screenshot(page, f"live-match-moves-{page.viewport_size['width']}")
    assert match_record_outcome(match_id=match.pk, outcome=_outcome(match.game, 2))
    page.wait_for_selector("td.status-done", timeout=15_000)
    assert not page.is_visible("#live-board") and page.evaluate("window.__notReloaded") is True
    assert page.js_errors == [] and page.console_errors == []


@pytest.mark.django_db(transaction=True)
def test_a_pending_version_turns_active_on_the_bot_page_without_a_reload(page, site, owner, ready_bot):

    from arena.bots.services import bot_version_create
    from arena.runs.smoke import bot_version_record_smoke_test
    from tests.factories import clean_outcome, py_upload

    bot = ready_bot("alpha")
    pending = bot_version_create(bot=bot, upload=py_upload(), by=owner)
    sign_in(page, site, owner)
    requests = {"page": 0, "token": 0}
    path = f"/bots/{bot.pk}/"
    page.on("request", lambda r: r.url.endswith(path) and requests.__setitem__("page", requests["page"] + 1))
    page.on("request", lambda r: "/live/bot/" in r.url and requests.__setitem__("token", requests["token"] + 1))
    page.goto(f"{site}{path}")
    page.evaluate("window.__notReloaded = true")
    assert "Active version: v1" in page.inner_text("#bot-status")
    page.wait_for_function("() => performance.getEntriesByType('resource').some(e => e.name.includes('/live/bot/'))",
                           timeout=10_000)
    assert requests["page"] == 1   # the token did not change: the page was not fetched again
    bot_version_record_smoke_test(version_id=pending.pk, outcome=clean_outcome(bot.game, 2))
    page.wait_for_function("() => document.querySelector('#bot-status').innerText.includes('Active version: v2')",
                           timeout=15_000)
    assert page.evaluate("window.__notReloaded") is True and requests["page"] == 2
    save_screenshot(page, "live-bot-version-active")
    assert page.js_errors == []


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("fixture", ["page", "phone_page"])
def test_a_leaderboard_read_from_the_cache_shows_what_a_fresh_one_does(request, fixture, site, trio):
    from arena.ladders.models import Rating

    page = request.getfixturevalue(fixture)
    page.goto(f"{site}/ladders/trio/")
    drawn = page.inner_html("#leaderboard")
    page.goto(f"{site}/ladders/trio/")
    assert page.inner_html("#leaderboard") == drawn   # the second one came from the cache
    Rating.objects.filter(bot=trio["alpha"]).update(elo=1987.0)
    page.goto(f"{site}/ladders/trio/")
    assert "1987" in page.inner_text("#leaderboard")
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]
    save_screenshot(page, f"leaderboard-{page.viewport_size['width']}")
    assert page.js_errors == []
