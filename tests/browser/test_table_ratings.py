"""The seats' Wertungszahl on a ranked table's page in a real browser (ratings/table.js): "1500?" at each seat
while the match is played, and once it has ended each seat's change ("+14", "−9") in the bar and in the
match-end view, as stored for the match. The match is played through the services from the test, as in
test_ranked.py; the page watches as a spectator."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from games import services
from games.models import Match
from ratings.models import RatingChange
from tests.browser.conftest import elsewhere
from tests.games.helpers import play_out

pytestmark = pytest.mark.browser


def test_a_ranked_table_shows_each_seat_s_wertungszahl_and_after_the_match_each_change(
    new_page, live_server_url, settings, screenshot
):
    settings.GAMES_TEST_DEAL_SEED = "table-ratings-browser"
    settings.GAMES_BOT_DELAY_SECONDS = 0
    anna, ben = (get_user_model().objects.create_user(n, f"{n}@example.com", "pw-" + n) for n in ("anna", "ben"))
    table = elsewhere(services.table_create_seated, game="gin", users=[anna, ben], preset="schnell",
                                   ranked=True)
    page = new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"/spielen/tisch/{table.pk}/")
    bar = page.locator("#seat-ratings")
    bar.wait_for(state="visible")
    for seat, name in enumerate(("anna", "ben")):
        item = bar.locator(f".gt-ratings__seat[data-seat='{seat}']")
        assert item.locator(".gt-ratings__name").inner_text() == name
        assert item.locator(".gt-wz").inner_text() == "1500?"
    assert bar.locator(".gt-delta").count() == 0
    assert page.locator("#match-end-ratings").is_hidden()

    finished = elsewhere(play_out, table.pk, [anna, ben])
    match = Match.objects.get(pk=finished.current_match_id)
    changes = {c.user_id: c for c in RatingChange.objects.filter(match=match)}
    assert set(changes) == {anna.pk, ben.pk}

    # The page learns of the end from its socket, or (this server's socket does not poll the database, and
    # the test's frames go out in another process) from a reload, as test_ranked.py does.
    try:
        page.wait_for_selector("#table-app[data-status='finished']", timeout=5_000)
    except Exception:
        page.reload()
    page.wait_for_selector("#seat-ratings .gt-delta", timeout=15_000)
    end = page.locator("#match-end-ratings")
    end.wait_for(state="visible")
    for seat, user in enumerate((anna, ben)):
        change = changes[user.pk]
        delta = change.display_after - change.display_before
        text = f"+{delta}" if delta > 0 else f"\u2212{-delta}" if delta < 0 else "±0"
        for box in (bar, end):
            item = box.locator(f".gt-ratings__seat[data-seat='{seat}']")
            assert item.locator(".gt-delta").inner_text() == text
            assert item.locator(".gt-wz").inner_text() == f"{change.display_after}?"
    assert "Wertung dieser Partie" in end.inner_text()
    screenshot(page, "ranked-table-ratings")
    assert errors == []
