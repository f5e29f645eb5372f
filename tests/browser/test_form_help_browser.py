"""Forms in real Chromium: each field's help text sits under its field, not beside it."""

from __future__ import annotations

import pytest

from tests.browser.conftest import sign_in

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_upload_help_sits_under_the_file_field_on_the_bot_page(page, site, owner, ready_bot):
    bot = ready_bot("helped")
    sign_in(page, site, owner)
    page.goto(f"{site}/bots/{bot.pk}/")
    field = page.locator("form.stacked input[type=file]").bounding_box()
    help_text = page.locator("form.stacked #id_file_helptext").bounding_box()
    assert field is not None and help_text is not None
    # Beside the field (inline) its first line started level with the button, far to its right.
    assert help_text["y"] >= field["y"] + field["height"] - 1
    assert abs(help_text["x"] - field["x"]) < 2
