"""schemathesis drives every operation of the schema against the app through WSGI (generated valid and invalid
parameters): no server error, every response matching its declared schema and status codes."""

from __future__ import annotations

import json

import pytest
import schemathesis
from django.core.wsgi import get_wsgi_application
from hypothesis import HealthCheck, settings
from ninja.responses import NinjaJSONEncoder

from api.api import api
from tests.api.conftest import connection_kept


def served_schema() -> dict:
    """The schema as /api/v1/openapi.json serves it: made from the code, through JSON."""
    return json.loads(json.dumps(api.get_openapi_schema(path_prefix="/api/v1/"), cls=NinjaJSONEncoder))


pytestmark = pytest.mark.django_db

# Made from the code, as /api/v1/openapi.json serves it (a test below holds the two equal).
schema = schemathesis.openapi.from_dict(served_schema())
schema.app = get_wsgi_application()


@pytest.fixture
def kept():
    """The real WSGI handler schemathesis calls sends request_started and request_finished (conftest)."""
    with connection_kept():
        yield


@pytest.fixture
def something_to_read(people, play):
    anna, ben, _ = people
    play([anna, ben], ranked=True)


@schema.parametrize()
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
def test_every_operation_answers_as_its_schema_says(case, something_to_read, kept):
    case.call_and_validate(headers={"Host": "testserver"})


def test_the_fuzzed_schema_is_the_served_one():
    from tests.api.conftest import get_json

    assert get_json("/api/v1/openapi.json") == served_schema()
