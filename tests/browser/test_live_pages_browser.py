"""Live pages in Chromium: a challenge's match page goes queued -> running -> done without a reload,
asking only the cheap token until something changed, and stops asking once the match is final."""

from __future__ import annotations

import pytest

from arena.matches.models import Match
from arena.matches.services import match_claim
from arena.runs.recording import match_record_outcome
from tests.browser.conftest import save_screenshot
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
