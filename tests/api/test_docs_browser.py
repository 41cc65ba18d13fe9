"""The docs page in a real browser (Chromium through Playwright): Swagger UI loads the schema and lists every
operation, with the site's Content-Security-Policy in force and not one CSP violation or page error.

No server is started: the page, its files and the schema are fetched with Django's test client first, headers
(the CSP) included, and the browser is answered with exactly those; anything else it asks for is refused.
"""

from __future__ import annotations

import os
import re

import pytest
from django.test import Client

# It starts Chromium: with the serial part (tests/conftest.py), like the other browser tests.
pytestmark = [pytest.mark.django_db, pytest.mark.browser, pytest.mark.serial]

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]
SITE = "http://localhost"


def test_the_docs_page_renders_every_operation_within_the_csp():
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    client = Client()
    served = {}
    docs = client.get("/api/v1/docs")
    for path in ["/api/v1/docs", "/api/v1/openapi.json", *re.findall(r'(?:src|href)="(/static/[^"]+)"', docs.content.decode())]:
        response = client.get(path)
        body = b"".join(response.streaming_content) if response.streaming else response.content
        served[path] = {"status": response.status_code, "headers": dict(response.items()), "body": body}
    assert all(answer["status"] == 200 for answer in served.values()), {p: a["status"] for p, a in served.items()}

    asked: list[str] = []

    def answer(route):
        asked.append(route.request.url)
        found = served.get(route.request.url.removeprefix(SITE))
        if found is None:
            route.fulfill(status=404, body=b"")
        else:
            route.fulfill(**found)

    problems: list[str] = []
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"  # Playwright's sync API runs an event loop in this thread
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            page = browser.new_page()
            page.route(f"{SITE}/**", answer)
            page.route("**/*", lambda route: route.abort() if not route.request.url.startswith(SITE)
                       else route.fallback())
            page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: problems.append(str(e)))
            page.goto(f"{SITE}/api/v1/docs")
            try:
                page.wait_for_selector(".opblock", timeout=15000)
            except Exception as error:
                text = page.inner_text("body")[:600]
                raise AssertionError(f"Swagger UI did not render: {problems} {asked} {text}") from error
            paths = page.locator(".opblock-summary-path").all_inner_texts()
            browser.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous
    assert len(paths) == 10 and any("/leaderboards/" in p for p in paths), paths
    script_violations = [p for p in problems if "Content Security Policy" in p and "script" in p]
    assert script_violations == [], script_violations
    assert [p for p in problems if "Content Security Policy" not in p] == [], problems
