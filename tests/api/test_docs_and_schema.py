"""The schema at /api/v1/openapi.json and the docs page served by the site itself, within its CSP."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from openapi_spec_validator import validate

from tests.api.conftest import get_json

pytestmark = pytest.mark.django_db

OPERATIONS = {
    "/api/v1/leaderboards/{game}", "/api/v1/players/{username}", "/api/v1/players/{username}/ratings/{game}",
    "/api/v1/players/{username}/matches", "/api/v1/players/{username}/matches.ndjson",
    "/api/v1/matches/{match_id}", "/api/v1/keys", "/api/v1/tournaments", "/api/v1/tournaments/{tournament_id}",
    "/api/v1/tables",
}


def test_the_schema_is_valid_openapi_and_names_every_endpoint():
    schema = get_json("/api/v1/openapi.json")
    validate(schema)
    assert schema["openapi"].startswith("3.")
    assert set(schema["paths"]) == OPERATIONS
    for path, operations in schema["paths"].items():
        assert set(operations) == {"get"}, path  # read-only
        assert "200" in operations["get"]["responses"], path


def test_the_schema_has_no_duplicate_keys():
    # JSON parsers keep the last of two equal keys; Swagger UI's YAML parser refuses the whole schema.
    def refuse_duplicates(pairs):
        keys = [key for key, _ in pairs]
        assert len(keys) == len(set(keys)), keys
        return dict(pairs)

    json.loads(Client().get("/api/v1/openapi.json").content, object_pairs_hook=refuse_duplicates)


def test_every_json_endpoint_declares_its_response_schema():
    schema = get_json("/api/v1/openapi.json")
    for path, operations in schema["paths"].items():
        content = operations["get"]["responses"]["200"].get("content", {})
        media = "application/x-ndjson" if path.endswith(".ndjson") else "application/json"
        assert media in content and content[media].get("schema"), path


def test_the_docs_page_is_served_from_the_site_without_a_cdn():
    response = Client().get("/api/v1/docs")
    assert response.status_code == 200
    html = response.content.decode()
    assert "swagger-ui-bundle.js" in html and "/static/ninja/" in html
    assert "cdn" not in html.lower() and "https://" not in html
    # The site's CSP (no inline script) holds: the page's scripts are files from this site.
    csp = response["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert "<script>" not in html.replace(" ", "")


def test_the_docs_page_script_files_are_served():
    from django.contrib.staticfiles import finders

    for name in ("ninja/swagger-ui-bundle.js", "ninja/swagger-ui-init.js", "ninja/swagger-ui.css"):
        assert finders.find(name), name
