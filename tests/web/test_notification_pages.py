"""The bell, the notifications page (mark read) and the notification settings page."""

from __future__ import annotations

from django.test import Client

from arena.notifications.models import Kind, Notification
from arena.notifications.services import notification_send, preferences_of


def _signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_bell_shows_the_unread_count_to_a_signed_in_user_only(owner):
    for i in range(2):
        notification_send(user=owner, kind=Kind.CHALLENGE_ENDED, key=f"m{i}", title=f"Challenge {i}")
    page = _signed_in(owner).get("/").content.decode()
    assert 'data-role="bell"' in page and '<span class="bell-count" data-role="unread">2</span>' in page
    assert 'data-role="bell"' not in Client().get("/").content.decode()


def test_the_notifications_page_needs_a_login_and_lists_only_ones_own(owner, other_user):
    notification_send(user=owner, kind=Kind.CHALLENGE_ENDED, key="a", title="Alice challenge ended")
    notification_send(user=other_user, kind=Kind.CHALLENGE_ENDED, key="a", title="Bob challenge ended")
    assert Client().get("/notifications/").status_code == 302
    page = _signed_in(owner).get("/notifications/").content.decode()
    assert "Alice challenge ended" in page and "Bob challenge ended" not in page


def test_opening_a_notification_marks_it_read_and_goes_to_its_page(owner, other_user):
    mine = notification_send(user=owner, kind=Kind.CHALLENGE_ENDED, key="a", title="t", url="/matches/5/")
    theirs = notification_send(user=other_user, kind=Kind.CHALLENGE_ENDED, key="a", title="t")
    client = _signed_in(owner)
    answer = client.post("/notifications/read/", {"id": mine.pk, "next": mine.url})
    assert answer.status_code == 302 and answer["Location"] == "/matches/5/"
    assert Notification.objects.get(pk=mine.pk).is_read
    client.post("/notifications/read/", {"id": theirs.pk})
    assert not Notification.objects.get(pk=theirs.pk).is_read   # not alice's: unchanged
    assert client.post("/notifications/read/", {"id": "x"}).status_code == 400
    assert client.post("/notifications/read/", {"next": "//evil.example/"})["Location"] == "/notifications/"


def test_the_settings_page_switches_each_kind_in_the_site_and_by_e_mail(owner):
    client = _signed_in(owner)
    page = client.get("/notifications/settings/").content.decode()
    for kind in Kind:
        assert f'name="{kind.value}-site"' in page and f'name="{kind.value}-email"' in page
    answer = client.post("/notifications/settings/", {"bot_paused-site": "on", "challenge_ended-email": "on"})
    assert answer.status_code == 302
    chosen = preferences_of(user=owner)
    assert chosen["bot_paused"] == {"site": True, "email": False}
    assert chosen["challenge_ended"] == {"site": False, "email": True}
    assert chosen["version_failed"] == {"site": False, "email": False}
