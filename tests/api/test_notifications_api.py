"""/api/notifications/: one's own feed, unread count, marking read, settings; nobody else's."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from arena.notifications.models import Kind, Notification
from arena.notifications.services import notification_send
from tests.api.helpers import client_as


@pytest.fixture
def feed(owner, other_user):
    rows = [notification_send(user=owner, kind=Kind.CHALLENGE_ENDED, key=f"match:{i}", title=f"Challenge {i} ended",
                              url=f"/matches/{i}/") for i in range(3)]
    theirs = notification_send(user=other_user, kind=Kind.BOT_PAUSED, key="pause:1", title="bob's bot was paused")
    return rows, theirs


@pytest.mark.parametrize("path", ["/api/notifications/", "/api/notifications/unread/", "/api/notifications/settings/"])
def test_an_anonymous_visitor_is_refused(db, path):
    assert APIClient().get(path).status_code in (401, 403)
    assert APIClient().post("/api/notifications/read/", {}, format="json").status_code in (401, 403)
    assert APIClient().patch("/api/notifications/settings/", {"bot_paused": {"site": False}},
                             format="json").status_code in (401, 403)


def test_a_user_reads_only_their_own_feed_newest_first_with_its_unread_count(owner, feed):
    rows, theirs = feed
    body = client_as(owner).get("/api/notifications/").json()
    assert [r["id"] for r in body["results"]] == [r.pk for r in reversed(rows)]
    assert body["results"][0] == {**body["results"][0], "kind": "challenge_ended", "read": False, "url": "/matches/2/"}
    assert theirs.pk not in [r["id"] for r in body["results"]]
    assert client_as(owner).get("/api/notifications/unread/").json() == {"unread": 3}


def test_marking_read_some_then_all_and_never_anothers(owner, other_user, feed):
    rows, theirs = feed
    answer = client_as(owner).post("/api/notifications/read/", {"ids": [rows[0].pk, theirs.pk]}, format="json")
    assert answer.status_code == 200 and answer.json() == {"marked": 1, "unread": 2}
    assert not Notification.objects.get(pk=theirs.pk).is_read
    unread = client_as(owner).get("/api/notifications/?unread=true").json()["results"]
    assert [r["id"] for r in unread] == [rows[2].pk, rows[1].pk]
    assert client_as(owner).post("/api/notifications/read/", {}, format="json").json() == {"marked": 2, "unread": 0}
    assert client_as(other_user).get("/api/notifications/unread/").json() == {"unread": 1}


@pytest.mark.parametrize("body,field", [({"ids": ["x"]}, "ids"), ({"ids": [0]}, "ids"), ({"every": True}, "every")])
def test_bad_mark_read_input_is_a_400_naming_the_field_and_changes_nothing(owner, feed, body, field):
    answer = client_as(owner).post("/api/notifications/read/", body, format="json")
    assert answer.status_code == 400 and field in answer.json()
    assert Notification.objects.filter(user=owner, read_at__isnull=True).count() == 3


def test_settings_default_then_change_by_kind(owner):
    client = client_as(owner)
    settings = client.get("/api/notifications/settings/").json()
    assert set(settings) == set(Kind.values)
    assert settings["version_failed"] == {"site": True, "email": True}
    assert settings["challenge_ended"] == {"site": True, "email": False}
    changed = client.patch("/api/notifications/settings/", {"challenge_ended": {"email": True}}, format="json")
    assert changed.status_code == 200 and changed.json()["challenge_ended"] == {"site": True, "email": True}
    assert client.get("/api/notifications/settings/").json()["challenge_ended"] == {"site": True, "email": True}


@pytest.mark.parametrize("body", [{"chess_ended": {"site": True}}, {"bot_paused": {"site": "yes"}},
                                  {"bot_paused": {"sms": True}}, {"bot_paused": None}, [], "bot_paused"])
def test_bad_settings_are_a_400_and_change_nothing(owner, body):
    client = client_as(owner)
    before = client.get("/api/notifications/settings/").json()
    answer = client.patch("/api/notifications/settings/", body, format="json")
    assert answer.status_code == 400
    assert client.get("/api/notifications/settings/").json() == before


@pytest.mark.parametrize("body", [{}, {"bot_paused": {}}])
def test_a_patch_that_names_no_change_changes_nothing(owner, body):
    client = client_as(owner)
    before = client.get("/api/notifications/settings/").json()
    answer = client.patch("/api/notifications/settings/", body, format="json")
    assert answer.status_code == 200 and answer.json() == before
