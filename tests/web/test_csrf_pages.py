"""The page forms that change something refuse a POST without the CSRF token (403) and change
nothing: another site cannot make a signed-in owner's browser change, upload or challenge."""

from __future__ import annotations

import pytest
from django.test import Client

from arena.bots.models import Bot, BotVersion
from arena.matches.models import Match


def _state():
    return (list(Bot.objects.values_list("id", "description", "is_active").order_by("id")),
            BotVersion.objects.count(), Match.objects.count())


@pytest.mark.parametrize("path,data", [
    ("/bots/{alpha}/settings/", {"description": "changed", "is_active": ""}),
    ("/bots/{alpha}/resume/", {}),
    ("/bots/{alpha}/challenge/", {"opponents": "bravo"}),
    ("/bots/{alpha}/upload/", {"file": "upload"}),
    ("/bots/new/", {"name": "forged", "game": "{game}", "file": "upload"}),
])
def test_a_page_form_posted_without_its_csrf_token_is_refused_and_changes_nothing(arena, owner, bot_upload,
                                                                                     path, data):
    client = Client(enforce_csrf_checks=True)
    client.force_login(owner)
    before = _state()
    data = {k: bot_upload() if v == "upload" else v.format(game=arena["ladder"].game) for k, v in data.items()}
    response = client.post(path.format(alpha=arena["alpha"].pk), data)
    assert response.status_code == 403
    assert _state() == before
