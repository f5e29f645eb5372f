"""The A/B test page in Chromium: while the test runs, the chart and the verdict update in place
(the live token of kind ``abtest``) without a reload, and polling stops once the test is over."""

from __future__ import annotations

import pytest

from arena.abtests.models import ABTest
from arena.abtests.services import abtest_advance, abtest_create
from tests.abtests.conftest import play_queued, versions  # noqa: F401  (versions: a fixture)
from tests.browser.conftest import save_screenshot, sign_in


def points(page) -> int:
    return int(page.get_attribute("[data-abtest-chart=llr]", "data-points") or 0)


@pytest.mark.django_db(transaction=True)
def test_the_abtest_page_draws_each_counted_pair_and_the_verdict_without_a_reload(page, site, owner, versions):  # noqa: F811
    test = abtest_create(by=owner, game=versions["game"], num_players=2, a=versions["old"], b=versions["new"])
    abtest_advance(test_id=test.pk)
    tokens = []
    page.on("request", lambda r: "/live/abtest/" in r.url and tokens.append(r.url))
    sign_in(page, site, owner)
    page.goto(f"{site}/abtests/{test.pk}/")
    page.evaluate("window.__notReloaded = true")
    assert page.get_attribute("#abtest-verdict", "data-status") == "running"
    assert page.query_selector("[data-abtest-chart]") is None          # no pair counted yet
    play_queued(test)
    abtest_advance(test_id=test.pk)
    test.refresh_from_db()
    counted = len(test.history)
    assert counted >= 1
    page.wait_for_function("n => { const el = document.querySelector('[data-abtest-chart=llr]');"
                           " return el !== null && el.getAttribute('data-points') === String(n); }",
                           arg=counted, timeout=15_000)
    assert page.query_selector("[data-abtest-chart=llr] canvas") is not None   # drawn by uPlot
    assert page.inner_text("#abtest-games").startswith(f"{2 * counted} ")
    for _ in range(30):
        if test.status != ABTest.Status.RUNNING:
            break
        play_queued(test)
        abtest_advance(test_id=test.pk)
        test.refresh_from_db()
    assert test.status == "finished" and test.verdict == "H1"
    page.wait_for_selector("#abtest-verdict[data-verdict=H1]", timeout=15_000)
    assert points(page) == len(test.history)
    assert "B is stronger" in page.inner_text("#abtest-verdict")
    assert page.query_selector("text=Stop the test") is None
    assert page.evaluate("window.__notReloaded") is True
    save_screenshot(page, "abtest-live-verdict")
    # Final: the token said so, and nothing more is asked.
    seen = len(tokens)
    page.wait_for_timeout(7_000)
    assert len(tokens) == seen
    assert page.js_errors == [] and page.console_errors == []
