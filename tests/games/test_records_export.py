"""The exported record (games.reads.records): one builder for both downloads, each round's published deal
hash, the ratings of a rated match (through the ratings panel), and the site's Ed25519 signature over the
canonical JSON of the record without its signature; what other apps add through games.panels."""

from __future__ import annotations

import copy
import hashlib
import json

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from django.core.exceptions import ImproperlyConfigured
from django.test import Client, TestCase
from django.urls import reverse

from games import panels, services
from games.models import Match, Round
from games.reads import records as records_export
from ratings.models import RatingChange
from tests.factories import users
from tests.games.helpers import play_out
from tests.play import rows_kept_for_the_scope
from tests.points import replay as replay_record

SEED = pytest.mark.deal_seed("records-export-tests", players=7)
pytestmark = [pytest.mark.django_db, SEED]


@pytest.fixture(autouse=True)
def _signing_key_of_its_own(settings, tmp_path):
    settings.RECORDS_SIGNING_KEY = ""
    settings.RECORDS_SIGNING_KEY_FILE = str(tmp_path / "records-signing-key.dev")


@pytest.fixture(scope="module", autouse=True)
def _played(django_db_setup, django_db_blocker):
    """The module's two players and their two matches, played once for its tests, which only read them (what
    a test writes is rolled back after it: tests/play.py): a ranked gin match of several rounds, played out and
    rated (its announcement run), then anna's against a computer player, each as if first (the test players'
    choices from the seed). Ids of the people, the ranked match and the bot match."""
    from tests.games import helpers

    def make():
        anna, ben = users("anna", "ben")
        table = services.table_create_seated(game="gin", users=[anna, ben], preset="klassisch",
                                             options={"target": 50}, ranked=True)
        with TestCase.captureOnCommitCallbacks(execute=True):
            ranked = play_out(table.pk, [anna, ben]).current_match_id
        helpers._RNG.seed(SEED.kwargs["players"])
        table = services.table_create(user=anna, game="gin", preset="schnell", bots="simple")
        with TestCase.captureOnCommitCallbacks(execute=True):
            bot = play_out(table.pk, [anna, None]).current_match_id
        return [anna.pk, ben.pk], ranked, bot

    yield from rows_kept_for_the_scope(django_db_blocker, make, seed=SEED.args[0], players=SEED.kwargs["players"])


@pytest.fixture
def people(_played, django_user_model):
    """Two players: anna, ben."""
    return [django_user_model.objects.get(pk=pk) for pk in _played[0]]


@pytest.fixture
def ranked_match(_played) -> Match:
    """A ranked gin match of several rounds, played out and rated (anna and ben)."""
    return Match.objects.get(pk=_played[1])


@pytest.fixture
def bot_match(_played) -> Match:
    """anna's gin match against a computer player, played out."""
    return Match.objects.get(pk=_played[2])


def download(match: Match) -> dict:
    response = Client().get(reverse("matches:record", kwargs={"match_id": match.pk}))
    assert response.status_code == 200
    return json.loads(response.content)


def canonical(value) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")


# --- what the record carries ---------------------------------------------------------------------------------


def test_each_round_carries_the_deal_hash_published_when_it_began(ranked_match):
    record = download(ranked_match)
    published = list(Round.objects.filter(match=ranked_match).order_by("number").values_list("deal_hash", flat=True))
    assert len(record["rounds"]) >= 2
    assert [r["deal_hash"] for r in record["rounds"]] == published
    for rnd in record["rounds"]:
        deal = {key: rnd[key] for key in ("dealer", "hands", "upcard", "stock")}
        assert hashlib.sha256(canonical(deal)).hexdigest() == rnd["deal_hash"]


def test_a_rated_match_carries_each_seat_s_wertungszahl_before_and_after(ranked_match, people):
    record = download(ranked_match)
    expected = []
    for user in people:  # anna sits at seat 0, ben at seat 1
        change = RatingChange.objects.get(match=ranked_match, user=user)
        expected.append({"before": change.display_before, "after": change.display_after})
    assert record["ratings"] == expected
    assert expected[0]["after"] != expected[0]["before"]


def test_an_unrated_match_carries_no_ratings(bot_match):
    record = download(bot_match)
    assert "ratings" not in record
    assert record_holds(record)


def test_the_extra_fields_do_not_change_the_replay(ranked_match):
    record = download(ranked_match)
    bare = {key: value for key, value in record.items() if key not in ("signature", "ratings")}
    bare["rounds"] = [{k: v for k, v in rnd.items() if k != "deal_hash"} for rnd in record["rounds"]]
    assert replay_record(record) == replay_record(bare)
    assert replay_record(record)["final"] == ranked_match.final_scores


def test_the_table_download_is_the_same_record_as_the_match_download(ranked_match):
    url = reverse("games:record", kwargs={"table_id": ranked_match.table_id})
    from_table = Client().get(url, {"partie": ranked_match.number}).json()
    from_match = download(ranked_match)
    assert records_export.record_signature_holds(from_table)
    unsigned = ("signature", "signed_at")  # signed a moment apart
    assert {k: v for k, v in from_table.items() if k not in unsigned} == {
        k: v for k, v in from_match.items() if k not in unsigned}


# --- the signature -------------------------------------------------------------------------------------------


def record_holds(record: dict) -> bool:
    return records_export.record_signature_holds(record)


def test_the_signature_of_a_downloaded_record_holds(ranked_match):
    record = download(ranked_match)
    assert record["signature"]["algorithm"] == "Ed25519"
    assert record["signature"]["public_key"] == records_export.site_public_key().hex()
    assert record_holds(record)


def test_the_signature_covers_the_canonical_json_of_the_record_without_the_signature(ranked_match):
    record = download(ranked_match)
    unsigned = {key: value for key, value in record.items() if key != "signature"}
    key = Ed25519PublicKey.from_public_bytes(bytes.fromhex(record["signature"]["public_key"]))
    key.verify(bytes.fromhex(record["signature"]["value"]), canonical(unsigned))  # raises if it does not hold
    assert records_export.signed_bytes(record) == canonical(unsigned)


def test_a_record_whose_stock_was_edited_no_longer_holds(ranked_match):
    record = download(ranked_match)
    edited = copy.deepcopy(record)
    stock = edited["rounds"][1]["stock"]
    stock[-1], stock[-2] = stock[-2], stock[-1]  # never drawn: the record still replays the same
    assert replay_record(edited) == replay_record(record)
    assert not record_holds(edited)


@pytest.mark.parametrize(
    "change",
    [
        lambda r: r["players"].reverse(),
        lambda r: r["ratings"][0].update(after=r["ratings"][0]["after"] + 1),
        lambda r: r["rounds"][0].update(deal_hash="0" * 64),
        lambda r: r.update(resigned=1),
        lambda r: r["rounds"].pop(),
    ],
    ids=["players", "ratings", "deal_hash", "added_field", "dropped_round"],
)
def test_any_change_to_a_signed_record_breaks_the_signature(ranked_match, change):
    record = download(ranked_match)
    change(record)
    assert not record_holds(record)


def test_the_layout_of_the_file_does_not_matter(ranked_match):
    text = Client().get(reverse("matches:record", kwargs={"match_id": ranked_match.pk})).content.decode()
    assert "\n" in text  # the download is indented
    assert record_holds(json.loads(json.dumps(json.loads(text), ensure_ascii=True)))


def test_a_record_signed_with_another_key_does_not_hold(ranked_match):
    record = download(ranked_match)
    forged = records_export.record_sign(record, private_key=bytes(range(32)))
    assert records_export.record_signature_holds(forged, public_key=records_export.public_key_of(bytes(range(32))))
    assert not record_holds(forged)


@pytest.mark.parametrize(
    "signature",
    [None, "abc", {}, {"algorithm": "RSA", "value": "00" * 64}, {"algorithm": "Ed25519", "value": "zz" * 64},
     {"algorithm": "Ed25519", "value": "00" * 64}, {"algorithm": "Ed25519", "value": 7}],
)
def test_a_missing_or_malformed_signature_does_not_hold(ranked_match, signature):
    record = download(ranked_match)
    record["signature"] = signature
    assert not record_holds(record)
    assert not record_holds([record])


# --- the key -------------------------------------------------------------------------------------------------


def test_records_signing_key_sets_the_key(settings, bot_match):
    seed = bytes(range(100, 132))
    settings.RECORDS_SIGNING_KEY = seed.hex()
    record = download(bot_match)
    public = Ed25519PrivateKey.from_private_bytes(seed).public_key()
    public.verify(bytes.fromhex(record["signature"]["value"]), records_export.signed_bytes(record))
    assert record["signature"]["public_key"] == records_export.public_key_of(seed).hex()


@pytest.mark.parametrize("value", ["abc", "00" * 31, "zz" * 32, "00" * 33])
def test_a_records_signing_key_that_is_not_32_bytes_of_hex_is_refused_clearly(settings, value):
    settings.RECORDS_SIGNING_KEY = value
    with pytest.raises(ImproperlyConfigured, match="RECORDS_SIGNING_KEY must be 64 hex digits"):
        records_export.site_private_key()


def test_the_key_page_shows_the_site_s_public_key_and_is_linked_from_the_match_page_and_the_paste_viewer(
    ranked_match,
):
    url = reverse("matches:signing_key")
    html = Client().get(url).content.decode()
    assert records_export.site_public_key().hex() in html
    assert "BEGIN PUBLIC KEY" in html and "Ed25519" in html
    english = Client().get(url, headers={"accept-language": "en"}).content.decode()
    assert "What is signed" in english
    for page in (reverse("matches:detail", kwargs={"match_id": ranked_match.pk}), reverse("matches:view_record")):
        assert f'href="{url}"' in Client().get(page).content.decode()


# --- panels --------------------------------------------------------------------------------------------------


@pytest.fixture
def test_panels():
    """Panels a test registers, taken out again when it ends."""
    added = []

    def add(slot, panel):
        panels.register(slot, panel)
        added.append((slot, panel))

    yield add
    for slot, panel in added:
        panels.unregister(slot, panel)


def test_a_registered_panel_adds_a_column_a_heading_line_and_record_fields(bot_match, test_panels):
    def seats(*, match, players):
        return [panels.Column(key="luck", header="Glück", cells={p.seat: panels.Cell(text=f"L{p.seat}") for p in players},
                              note="Glück ist Zufall.")]

    test_panels(panels.MATCH_SEATS, seats)
    test_panels(panels.MATCH_HEAD, lambda *, match: [panels.HeadLink(text="Freundschaftsspiel", url="/x/")])
    test_panels(panels.RECORD, lambda *, match, players: {"venue": "Kneipe"})
    html = Client().get(reverse("matches:detail", kwargs={"match_id": bot_match.pk})).content.decode()
    assert '<th scope="col" class="num">Glück</th>' in html
    assert '<td class="num" data-role="luck">L1</td>' in html and "Glück ist Zufall." in html
    assert '<a href="/x/">Freundschaftsspiel</a>' in html
    record = download(bot_match)
    assert record["venue"] == "Kneipe" and record_holds(record)


def test_a_record_panel_may_not_replace_a_field_games_writes(bot_match, test_panels):
    test_panels(panels.RECORD, lambda *, match, players: {"players": ["mallory", "eve"]})
    with pytest.raises(ValueError, match="may not replace players"):
        records_export.record_export(match=bot_match)


def test_an_unknown_panel_slot_is_refused():
    with pytest.raises(ValueError, match="unknown panel slot 'sidebar'"):
        panels.register("sidebar", lambda **kwargs: None)


def test_ratings_and_tournaments_register_their_panels_at_start_up():
    from ratings import panels as rating_panels
    from tournaments import panels as tournament_panels

    assert rating_panels.match_seat_columns in panels._panels[panels.MATCH_SEATS]
    assert rating_panels.record_ratings in panels._panels[panels.RECORD]
    assert rating_panels.head_to_head_ratings in panels._panels[panels.HEAD_TO_HEAD]
    assert tournament_panels.match_tournament in panels._panels[panels.MATCH_HEAD]


def test_a_tournament_match_page_names_and_links_its_tournament(bot_match):
    from tournaments.models import Stage, StageTable, Tournament

    tournament = Tournament.objects.create(name="Herbstpokal", game="gin", format="swiss")
    stage = Stage.objects.create(tournament=tournament, number=2)
    StageTable.objects.create(stage=stage, number=3, table_id=bot_match.table_id)
    url = reverse("matches:detail", kwargs={"match_id": bot_match.pk})
    html = Client().get(url).content.decode()
    link = reverse("tournaments:detail", kwargs={"tournament_id": tournament.pk})
    assert f'<a href="{link}">Turnier: Herbstpokal · Runde 2, Tisch 3</a>' in html
    english = Client().get(url, headers={"accept-language": "en"}).content.decode()
    assert "Tournament: Herbstpokal · Round 2, table 3" in english


def test_a_match_outside_a_tournament_names_none(bot_match):
    html = Client().get(reverse("matches:detail", kwargs={"match_id": bot_match.pk})).content.decode()
    assert 'data-panel="head"' not in html


@pytest.mark.parametrize("name", ["games.panels", "games.reads.records", "games.reads.replay"])
def test_the_examples_in_the_docstrings_hold(name):
    import doctest
    import importlib

    failed, attempted = doctest.testmod(importlib.import_module(name), report=True)
    assert attempted > 0 and failed == 0, name


def test_a_record_carries_who_played_each_seat_when_it_was_signed_and_the_key_s_id(ranked_match, people):
    """A name is not a person (issue 25): the record names each seat's account, and the signature names its key."""
    import datetime as dt

    record = download(ranked_match)
    by_name = {p.username: p.pk for p in people}
    assert record["player_ids"] == [by_name[name] for name in record["players"]]
    signed = dt.datetime.strptime(record["signed_at"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.UTC)
    assert abs((dt.datetime.now(dt.UTC) - signed).total_seconds()) < 120
    assert record["signature"]["key_id"] == records_export.key_id(records_export.site_public_key())
    assert record_holds(record)
    edited = {**record, "player_ids": list(reversed(record["player_ids"]))}
    assert not record_holds(edited)


def test_a_computer_player_s_seat_has_no_account_id(bot_match):
    record = download(bot_match)
    assert record["player_ids"][1] is None and isinstance(record["player_ids"][0], int)
