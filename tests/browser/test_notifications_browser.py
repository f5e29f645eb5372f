"""The bell and the notifications page in Chromium: the count follows new notifications without a
reload, opening one marks it read, "Mark all read" empties the bell."""

from __future__ import annotations

import pytest

from arena.notifications.models import Kind
from arena.notifications.services import notification_send
from tests.browser.conftest import save_screenshot, sign_in


@pytest.mark.django_db(transaction=True)
def test_the_bell_counts_unread_notifications_and_the_page_marks_them_read(page, phone_page, site, owner):
    notification_send(user=owner, kind=Kind.VERSION_FAILED, key="version:1", title="alpha v2 failed its smoke test",
                      body="SyntaxError: invalid syntax (main.py, line 3)", url="/bots/mine/")
    sign_in(page, site, owner)
    page.goto(f"{site}/")
    bell = "[data-role=bell]"
    assert page.inner_text(f"{bell} [data-role=unread]") == "1"
    # A new notification reaches the bell without a reload (the tab coming back asks at once).
    notification_send(user=owner, kind=Kind.CHALLENGE_ENDED, key="match:9", title="Your challenge (match #9) ended",
                      url="/matches/")
    page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    page.wait_for_function("() => document.querySelector('[data-role=bell] [data-role=unread]').textContent === '2'")
    assert "has-unread" in page.get_attribute(bell, "class")
    page.click(bell)
    page.wait_for_selector("[data-role=notifications]")
    assert page.eval_on_selector_all("li.notification.unread", "els => els.length") == 2
    save_screenshot(page, "notifications")
    # Open: marked read, and on to the page it is about.
    page.click("li[data-kind=challenge_ended] [data-role=open]")
    page.wait_for_url(f"{site}/matches/")
    assert page.inner_text(f"{bell} [data-role=unread]") == "1"
    page.goto(f"{site}/notifications/")
    page.click("[data-role=mark-all-read]")
    page.wait_for_selector("[data-role=notifications]")
    assert page.inner_text(f"{bell} [data-role=unread]") == "0"
    assert page.eval_on_selector_all("li.notification.unread", "els => els.length") == 0
    page.click("text=Choose what you are told, and how")
    page.uncheck("input[name=challenge_ended-site]")
    page.click("text=Save")
    page.wait_for_selector("text=Your notification settings are saved.")
    assert not page.is_checked("input[name=challenge_ended-site]")
    assert page.js_errors == [] and page.console_errors == []
    sign_in(phone_page, site, owner)
    phone_page.goto(f"{site}/notifications/")
    assert phone_page.evaluate("document.documentElement.scrollWidth") <= 390
    save_screenshot(phone_page, "notifications-390px")
