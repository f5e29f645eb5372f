"""The browser test setup itself: Debian's Chromium renders the site served by the live server."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db(transaction=True)


def test_chromium_renders_the_home_page_with_its_stylesheet_and_no_script_error(page, site):
    response = page.goto(site + "/")
    assert response.status == 200
    assert "Dive Arena" in page.title()
    # The stylesheet was served and applied: the body no longer has the browser's default margin.
    assert page.evaluate("getComputedStyle(document.body).margin") != "8px"
    assert page.js_errors == []

