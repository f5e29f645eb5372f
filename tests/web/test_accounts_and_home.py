"""Accounts (password change and reset by mail, profiles) and the signed-in home page."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client

from tests.conftest import PASSWORD

ROOT = Path(__file__).resolve().parents[2]


def _logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_a_user_changes_their_password(owner):
    client = _logged_in(owner)
    assert client.get("/accounts/password/change/").status_code == 200
    response = client.post("/accounts/password/change/", {
        "old_password": PASSWORD, "new_password1": "a-new-long-passphrase-9", "new_password2": "a-new-long-passphrase-9"})
    assert response.status_code == 302 and response["Location"] == "/accounts/password/change/done/"
    owner.refresh_from_db()
    assert owner.check_password("a-new-long-passphrase-9")
    assert "Password changed" in client.get("/accounts/password/change/done/").content.decode()


def test_a_wrong_old_password_changes_nothing(owner):
    response = _logged_in(owner).post("/accounts/password/change/", {
        "old_password": "wrong", "new_password1": "a-new-long-passphrase-9", "new_password2": "a-new-long-passphrase-9"})
    assert response.status_code == 200 and "incorrectly" in response.content.decode()
    owner.refresh_from_db()
    assert owner.check_password(PASSWORD)


def test_a_forgotten_password_is_reset_through_the_link_in_the_mail(owner):
    client = Client()
    assert "Forgot your password?" in client.get("/accounts/login/").content.decode()
    response = client.post("/accounts/password/reset/", {"email": "alice@example.com"})
    assert response.status_code == 302 and response["Location"] == "/accounts/password/reset/sent/"
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["alice@example.com"]
    assert mail.outbox[0].subject == "Your Dive Arena password"
    link = re.search(r"http://testserver(/accounts/reset/\S+/)", mail.outbox[0].body).group(1)
    form = client.get(link, follow=True)
    assert "Choose a new password" in form.content.decode()
    done = client.post(form.redirect_chain[-1][0], {"new_password1": "fresh-passphrase-77",
                                                    "new_password2": "fresh-passphrase-77"})
    assert done.status_code == 302 and done["Location"] == "/accounts/reset/done/"
    owner.refresh_from_db()
    assert owner.check_password("fresh-passphrase-77")
    assert "does not work" in client.get(link, follow=True).content.decode()  # used once


def test_a_reset_for_an_unknown_address_says_the_same_and_sends_nothing(db):
    response = Client().post("/accounts/password/reset/", {"email": "nobody@example.com"})
    assert response.status_code == 302 and mail.outbox == []


def _mail_settings(**env) -> str:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("EMAIL_")}
    code = "from django.conf import settings; print(settings.EMAIL_BACKEND, settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_USE_TLS)"
    return subprocess.run([sys.executable, "-c", f"import django; django.setup(); {code}"], cwd=ROOT,
                          env={**clean, "DJANGO_SETTINGS_MODULE": "arena.settings", **env},
                          capture_output=True, text=True, check=True, timeout=60).stdout.strip()


def test_mail_goes_to_the_console_by_default_and_to_smtp_when_a_host_is_set():
    assert _mail_settings() == "django.core.mail.backends.console.EmailBackend  587 True"
    assert _mail_settings(EMAIL_HOST="smtp.example.org", EMAIL_PORT="465") == \
        "django.core.mail.backends.smtp.EmailBackend smtp.example.org 465 False"


def test_sign_up_takes_an_optional_email_for_resets(db):
    client = Client()
    response = client.post("/signup/", {"username": "dave", "email": "dave@example.com",
                                        "password1": PASSWORD, "password2": PASSWORD})
    assert response.status_code == 302
    assert get_user_model().objects.get(username="dave").email == "dave@example.com"


def test_a_profile_lists_the_users_bots(arena, other_user):
    page = Client().get("/users/alice/").content.decode()
    assert "alpha" in page and "bravo" not in page and "Duel ladder" in page
    assert "change your password" not in page
    assert "change your password" in _logged_in(arena["alpha"].owner).get("/users/alice/").content.decode()
    assert Client().get("/users/nobody/").status_code == 404


def test_the_signed_in_home_shows_my_bots_my_results_and_what_needs_me(arena, owner, bot_upload):
    from arena.bots.services import bot_version_create
    from arena.runs.smoke import bot_version_record_smoke_test

    failed = bot_version_create(bot=arena["alpha"], upload=bot_upload(), by=owner)
    bot_version_record_smoke_test(version_id=failed.pk, outcome=None, log="it crashed")
    page = _logged_in(owner).get("/").content.decode()
    assert "Hello, alice" in page and "Your bots" in page and "Needs you" in page
    attention = page[page.index("Needs you"):page.index("Your bots")]
    assert "alpha" in attention and "v2" in attention and "failed" in attention
    mine = page[page.index("Your latest matches"):page.index("<h2>Games</h2>")]
    assert f"/matches/{arena['played'].pk}/" in mine
    anonymous = Client().get("/").content.decode()
    assert "Needs you" not in anonymous and "Your bots" not in anonymous


def test_the_header_links_the_profile_and_the_docs(owner):
    page = _logged_in(owner).get("/").content.decode()
    assert 'href="/users/alice/"' in page and 'href="/docs/writing-a-bot/"' in page
