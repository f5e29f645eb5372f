"""Fixtures of the API tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def anonymous_reads_unthrottled(settings):
    """Lifts the anonymous reads' budgets and the cap on requests at once (their own tests:
    tests/api/test_throttling.py) for tests that send many requests fast from one address."""
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {
        **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "anon_reads": "", "anon_reads_burst": ""}}
    settings.CLIENT_MAX_IN_FLIGHT = 0
