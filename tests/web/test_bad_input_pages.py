"""A NUL byte in a page's address (PostgreSQL refuses them in text) is a 400 page, never a 500."""

from __future__ import annotations

import pytest
from django.test import Client

NUL = "a\x00b"


@pytest.mark.parametrize("url", ["/users/{nul}/", "/ladders/{nul}/", "/tournaments/{nul}/", "/matches/?bot={nul}",
                                 "/bots/new/?game={nul}"])
def test_a_nul_byte_in_a_page_address_is_a_400_page(arena, owner, url):
    client = Client(raise_request_exception=False)
    client.force_login(owner)
    response = client.get(url.format(nul=NUL))
    assert response.status_code == 400
    assert b"NUL" in response.content
    assert response["Content-Type"].startswith("text/html")
