"""Same deals kept secret through a real tournament (tournaments.md): the stage's tables share deals and stay
closed together, watched by staff and their own players only until the stage has ended."""

import pytest
from django.test import Client
from django.urls import reverse

from games.models import Round, Table
from games.reads import selectors as games_selectors
from tests.games.helpers import play_out
from tests.tournaments.helpers import started, users_of
from tournaments import selectors as tournament_selectors

pytestmark = pytest.mark.django_db

FAST = {"check_in_minutes": 0, "break_minutes": 0}


def _client(user=None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


@pytest.fixture
def stage(staff, make_players, settings):
    """Eight players at two tables of four with the same deals, one list of two rounds."""
    settings.GAMES_TEST_DEAL_SEED = ""  # the tournament's own seeds deal the cards
    t = started(staff, make_players(8), name="Gleiche Karten", game="romme", format="series",
                settings={"same_deals": True, "rounds": 2, "series": 1, **FAST}, options={})
    rows = tournament_selectors.tournament_tables(tournament_id=t.pk)
    assert len(rows) == 2
    return t, rows


def test_a_stages_tables_share_one_deal_group_and_seed(stage):
    t, rows = stage
    first, second = (Table.objects.get(pk=row["table"]) for row in rows)
    assert first.deal_group == second.deal_group == f"tournament-stage-{t.stages.get(number=1).pk}"
    assert first.deal_seed == second.deal_seed != ""


def test_the_tournament_page_offers_watching_a_running_same_deals_stage_to_staff_only(stage, staff, django_user_model):
    t, rows = stage
    outsider = django_user_model.objects.create_user("gast", "gast@example.org", "pw")
    url = reverse("tournaments:detail", kwargs={"tournament_id": t.pk})
    links = [f'href="{reverse("games:table", kwargs={"table_id": row["table"]})}"' for row in rows]
    for client in (_client(), _client(outsider)):
        page = client.get(url).content.decode()
        assert not any(link in page for link in links)
        assert "Zuschauen erst nach dieser Turnierrunde" in page
    assert all(link in _client(staff).get(url).content.decode() for link in links)
    # A player is sent to their own table, not to the other one.
    player = users_of(rows[0]["users"])[0]
    page = _client(player).get(url).content.decode()
    assert links[0] in page and links[1] not in page


def test_a_table_that_finished_early_keeps_its_deals_until_the_other_table_has_played_them(stage, staff,
                                                                                          django_user_model):
    t, rows = stage
    outsider = django_user_model.objects.create_user("gast", "gast@example.org", "pw")
    early, late = rows
    play_out(early["table"], users_of(early["users"]))
    early_table = Table.objects.get(pk=early["table"])
    player = users_of(early["users"])[0]
    record = reverse("games:record", kwargs={"table_id": early_table.pk})
    table_page = reverse("games:table", kwargs={"table_id": early_table.pk})
    assert _client(outsider).get(table_page).status_code == 403
    assert _client(outsider).get(record).status_code == 403
    assert _client(player).get(record).json()["rounds"] == []
    assert games_selectors.deal_rounds_disclosed(match=early_table.current_match) == set()
    # The other table plays the same two deals; then the stage is over and all is public.
    play_out(late["table"], users_of(late["users"]))
    assert _client(outsider).get(table_page).status_code == 200
    # The exported rounds carry their published deal hash besides the deal (records.md).
    shown = [{k: v for k, v in r.items() if k != "deal_hash"} for r in _client(outsider).get(record).json()["rounds"]]
    deals = list(Round.objects.filter(match__table=early_table).order_by("number").values_list("record", flat=True))
    assert shown == deals and len(shown) == 2
