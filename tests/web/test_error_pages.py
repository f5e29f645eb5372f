"""With DEBUG off (as `make run` serves) errors show the site's own pages, never Django's debug pages."""

from __future__ import annotations

import pytest
from django.test import Client


@pytest.fixture
def production(settings):
    settings.DEBUG = False
    settings.ROOT_URLCONF = "tests.web.boom_urls"


def test_a_missing_page_is_the_sites_404(db, production):
    response = Client().get("/no/such/page/")
    page = response.content.decode()
    assert response.status_code == 404 and "There is nothing at this address" in page
    assert 'href="/ladders/"' in page and "URLconf" not in page


def test_a_page_one_may_not_see_is_the_sites_403(arena, production, other_user):
    client = Client()
    client.force_login(other_user)
    response = client.get(f"/bots/{arena['alpha'].pk}/upload/")
    assert response.status_code == 403 and "Not allowed" in response.content.decode()


def test_a_failing_view_is_the_sites_500_without_a_traceback(db, production):
    response = Client(raise_request_exception=False).get("/boom/")
    page = response.content.decode()
    assert response.status_code == 500 and "Something went wrong" in page
    assert "a bug in a view" not in page and "Traceback" not in page


def test_an_id_too_large_for_the_database_is_a_404_not_an_error(db, production):
    assert Client().get("/bots/" + "9" * 30 + "/").status_code == 404
    assert Client().get("/matches/99999999999999999999/").status_code == 404


def test_with_debug_off_a_failing_views_traceback_is_written_to_stderr(tmp_path):
    """The 500 page shows no details because they are in the server's log: with DEBUG off, as
    `make run` serves, Django's defaults would show them only with DEBUG on (or mail them to ADMINS)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    code = ("import django; django.setup()\n"
            "from django.test import Client, override_settings\n"
            "with override_settings(ROOT_URLCONF='tests.web.boom_urls'):\n"
            "    print(Client(raise_request_exception=False).get('/boom/').status_code)\n")
    (tmp_path / "staticfiles").mkdir()
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "arena.settings", "DEBUG": "0", "SECRET_KEY": "x" * 50,
           "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}", "ARENA_VAR_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).resolve().parents[2], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "500", done.stderr
    assert "Internal Server Error: /boom/" in done.stderr
    assert "Traceback" in done.stderr and "RuntimeError: a bug in a view" in done.stderr


def test_a_form_address_opened_in_a_browser_is_a_page_that_says_what_it_is_for(arena, production, owner):
    client = Client()
    client.force_login(owner)
    response = client.get(f"/bots/{arena['alpha'].pk}/challenge/")
    page = " ".join(response.content.decode().split())
    assert response.status_code == 405 and response["Allow"] == "POST"
    assert "Not a page to open" in page and "sends its POST" in page and "does not answer GET" in page
    assert 'href="/ladders/"' in page
    # The API keeps its own answer for a method a view does not take.
    api = client.delete("/api/games/")
    assert api.status_code == 405 and api["Content-Type"].startswith("application/json")
    assert "Not a page to open" not in api.content.decode()
