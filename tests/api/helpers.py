"""Clients for the API tests: a user signs in with a real token (or not at all)."""

from __future__ import annotations

from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient


def client_as(user) -> APIClient:
    """An API client that authenticates as ``user`` with its token; anonymous when not signed in."""
    client = APIClient()
    if user is not None and user.is_authenticated:
        token, _ = Token.objects.get_or_create(user=user)
        client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client
