"""The OpenAPI schema and its docs page; token and session authentication."""

from __future__ import annotations

from rest_framework.test import APIClient

from tests.api.helpers import client_as
from tests.conftest import PASSWORD


def test_the_schema_describes_every_endpoint(db):
    response = client_as(None).get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"].startswith("3.")
    for path in ["/api/games/", "/api/ladders/", "/api/ladders/{slug}/leaderboard/", "/api/bots/",
                 "/api/bots/{id}/", "/api/bots/{id}/versions/", "/api/matches/", "/api/matches/{id}/",
                 "/api/matches/{id}/replay/", "/api/matches/{id}/logs/{seat}/", "/api/challenges/",
                 "/api/auth/token/"]:
        assert path in schema["paths"], path
    assert "multipart/form-data" in schema["paths"]["/api/bots/"]["post"]["requestBody"]["content"]
    assert {"tokenAuth", "cookieAuth"} <= set(schema["components"]["securitySchemes"])


def test_the_docs_page_serves_swagger_ui_from_this_server(db):
    response = client_as(None).get("/api/docs/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "/api/schema/" in page
    assert "/static/drf_spectacular_sidecar/" in page  # no CDN needed


def test_a_token_from_the_token_endpoint_authenticates(owner):
    anonymous = APIClient()
    token = anonymous.post("/api/auth/token/", {"username": "alice", "password": PASSWORD}).json()["token"]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert client.get("/api/challenges/").status_code == 200


def test_the_token_endpoint_rejects_a_wrong_password(owner):
    response = APIClient().post("/api/auth/token/", {"username": "alice", "password": "wrong"})
    assert response.status_code == 400
    assert "Unable to log in" in response.json()["non_field_errors"][0]


def test_a_bad_token_is_401(db):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-token")
    assert client.get("/api/games/").status_code == 401


def test_a_logged_in_browser_session_authenticates_and_needs_csrf_for_writes(owner, ready_bot):
    bot = ready_bot("alpha")
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(owner)
    assert client.get("/api/challenges/").status_code == 200
    response = client.patch(f"/api/bots/{bot.pk}/", {"description": "x"}, format="json")
    assert response.status_code == 403 and "CSRF" in response.json()["detail"]
