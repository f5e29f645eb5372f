"""Schemathesis against the published OpenAPI schema: every operation gets generated valid and
invalid requests (a bounded, repeatable number), anonymously and with alice's token. No answer
may be a 500; each status code, content type and body must be what the schema documents; and
invalid input must be refused, not ignored.
"""

from __future__ import annotations

import os

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from rest_framework.authtoken.models import Token
from schemathesis import GenerationMode
from schemathesis.specs.openapi.checks import positive_data_acceptance

# Per operation, mode and caller: 6 in the suite; a full run sets SCHEMA_FUZZ_EXAMPLES (docs/api.md).
EXAMPLES = int(os.environ.get("SCHEMA_FUZZ_EXAMPLES", "6"))
# Operations whose schema-valid input may still be refused with 400 for what only the server
# knows: an upload's content (the schema says "a file"), whether the bots or versions named exist
# and are yours, whether a username and password match. Every other check still applies to them.
DEPENDS_ON_STATE = {"POST /api/bots/", "POST /api/bots/{id}/versions/", "POST /api/challenges/",
                    "POST /api/auth/token/", "POST /api/abtests/"}
# Signed in as alice for the operations where being signed in changes the answer.
SIGNED_IN = {"GET /api/challenges/", "GET /api/matches/{id}/logs/{seat}/"}

SCHEMA = schemathesis.openapi.from_dict(SchemaGenerator().get_schema(request=None, public=True))
OPERATIONS = sorted(result.ok().label for result in SCHEMA.get_all_operations())
CASES = [(label, signed_in) for label in OPERATIONS for signed_in in (False, True)
         if not signed_in or label in SIGNED_IN or not label.startswith("GET ")]


@pytest.fixture(autouse=True)
def _reads_not_throttled(anonymous_reads_unthrottled):
    """Generated requests come fast from one address: the anonymous budgets would answer valid ones 429."""


@pytest.fixture
def wsgi_app():
    """The real WSGI application; like Django's test client, it must not close the test's connection."""
    from arena.wsgi import application

    SCHEMA.app = application  # the checks that send a second request (without auth, ...) use it too
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield application
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE], ids=str)
@pytest.mark.parametrize("label,signed_in", CASES, ids=[f"{label}-{'alice' if s else 'anonymous'}" for label, s in CASES])
def test_every_operation_answers_generated_requests_as_the_schema_says(arena, owner, wsgi_app, label, mode,
                                                                          signed_in):
    operation = SCHEMA.find_operation_by_label(label)
    excluded = [positive_data_acceptance] if label in DEPENDS_ON_STATE else []
    headers = {"Authorization": f"Token {Token.objects.get_or_create(user=owner)[0].key}"} if signed_in else {}

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    def answers_as_documented(case):
        case.call_and_validate(app=wsgi_app, headers=headers, excluded_checks=excluded)

    try:
        answers_as_documented()
    except Unsatisfiable:
        # Nothing is invalid for this operation (e.g. a free-text slug is its only input).
        assert mode == GenerationMode.NEGATIVE
