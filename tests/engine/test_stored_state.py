"""A match state stored with ``to_json(keep_records=n)``: only the last n finished rounds' records, every summary;
it reads back, plays on like the whole state, and refuses to give a whole record it does not have."""

from __future__ import annotations

import random

import pytest

from games.engine.errors import RecordsLeftOut
from games.engine.gin import bots as gin_bots
from games.engine.gin import match as gin_match
from games.engine.romme import bots as romme_bots
from games.engine.romme import match as romme_match

ENGINES = {
    "gin": (gin_match, gin_bots, {"target": 150}, 2),
    "romme": (romme_match, romme_bots, {"seats": 3, "rounds": 6}, 3),
}


def records_of(game: str, data: dict) -> list:
    return [rec for rec, _ in data["finished"]] if game == "gin" else data["finished"]


def summaries_of(game: str, data: dict) -> list:
    return [summ for _, summ in data["finished"]] if game == "gin" else data["summaries"]


def step(engine, bots, m, rng: random.Random):
    """One move of the match (the simple bot of the seat to act), or the next round's deal between rounds."""
    if m.to_act is None:
        return engine.deal_next_round(m, rng)
    action = bots.choose_action(engine.view(m, m.to_act), "simple", rng)
    return engine.apply_action(m, m.to_act, action, rng=rng)


def played_to(game: str, finished_rounds: int, seed: int = 3):
    """A match played by simple bots until ``finished_rounds`` rounds have finished and the next is dealt."""
    engine, bots, options, seats = ENGINES[game]
    rng = random.Random(seed)
    m = engine.new_match(options, seats=seats, rng=rng)
    for _ in range(20000):
        records = records_of(game, m.to_json())
        if len(records) >= finished_rounds and m.to_act is not None:
            return m, rng
        assert not m.over, "the match ended before it had the rounds the test needs"
        m = step(engine, bots, m, rng)
    raise AssertionError("the match did not get there")


@pytest.mark.parametrize("game", ENGINES)
def test_a_compact_state_keeps_every_summary_and_only_the_last_records(game):
    m, _ = played_to(game, 3)
    whole, compact = m.to_json(), m.to_json(keep_records=1)
    assert summaries_of(game, compact) == summaries_of(game, whole)
    assert records_of(game, compact)[:-1] == [None] * (len(records_of(game, whole)) - 1)
    assert records_of(game, compact)[-1] == records_of(game, whole)[-1] is not None
    # Everything but the records is the same.
    rest = {k: v for k, v in whole.items() if k != "finished"}
    assert {k: v for k, v in compact.items() if k != "finished"} == rest
    assert len(str(compact)) < len(str(whole))


@pytest.mark.parametrize("game", ENGINES)
def test_a_compact_state_reads_back_and_plays_on_like_the_whole_state(game):
    engine, bots, _, seats = ENGINES[game]
    m, rng = played_to(game, 3)
    whole = engine.Match.from_json(m.to_json())
    compact = engine.Match.from_json(m.to_json(keep_records=1))
    assert compact.to_json(keep_records=1) == m.to_json(keep_records=1)
    assert engine.Match.from_json(m.to_json()).to_json() == m.to_json()  # the whole form still round-trips
    state = random.Random(9).getstate()
    for _ in range(400):  # into the next rounds: each side from its own reading of the state
        if whole.over:
            break
        for seat in [None, *range(seats)]:
            assert engine.view(compact, seat) == engine.view(whole, seat)
        assert compact.facts() == whole.facts()
        assert compact.round_number == whole.round_number
        rng_w, rng_c = random.Random(), random.Random()
        rng_w.setstate(state)
        rng_c.setstate(state)
        whole, compact = step(engine, bots, whole, rng_w), step(engine, bots, compact, rng_c)
        state = rng_w.getstate()
        # Stored and read back at every move, as the site does.
        compact = engine.Match.from_json(compact.to_json(keep_records=1))
        assert compact.to_json(keep_records=1) == whole.to_json(keep_records=1)
    assert len(records_of(game, whole.to_json())) > 3  # a later round finished on the way


@pytest.mark.parametrize("game", ENGINES)
def test_record_of_a_compact_state_raises_instead_of_giving_part_of_the_record(game):
    engine, _, _, _ = ENGINES[game]
    m, _ = played_to(game, 3)
    compact = engine.Match.from_json(m.to_json(keep_records=1))
    with pytest.raises(RecordsLeftOut, match="records of 1 of its 3 finished rounds"):
        compact.record()
    with pytest.raises(RecordsLeftOut, match="round 2"):
        compact.round_record(2)
    assert compact.round_record(3) == m.record()["rounds"][2]
    assert compact.round_record(4) is None  # not finished yet
    assert engine.Match.from_json(m.to_json(keep_records=3)).record() == m.record()


def test_romme_upgrades_old_summaries_from_the_records_it_has_and_keeps_the_others_as_stored():
    m, _ = played_to("romme", 3)
    data = m.to_json(keep_records=1)
    assert all("laid_off" in s for s in data["summaries"])
    # A summary stored before rounds reported lay-offs, whose record is there: found again from the moves.
    old = m.to_json()
    for summary in old["summaries"]:
        del summary["laid_off"]
    assert romme_match.Match.from_json(old).summaries == m.summaries
    # A compact state's summaries were stored upgraded: read as they are, without their left-out records.
    assert romme_match.Match.from_json(data).summaries == m.summaries


def test_romme_resigning_between_rounds_notes_it_in_the_kept_record_of_a_compact_state():
    m, rng = played_to("romme", 2)
    engine, bots, _, _ = ENGINES["romme"]
    while m.to_act is not None:  # to the end of the round in play
        m = engine.apply_action(m, m.to_act, bots.choose_action(engine.view(m, m.to_act), "simple", rng), rng=rng)
    assert m.phase == "round_over"
    whole = romme_match.resign(romme_match.Match.from_json(m.to_json()), 1, rng=random.Random(1))
    compact = romme_match.resign(romme_match.Match.from_json(m.to_json(keep_records=1)), 1, rng=random.Random(1))
    assert compact.finished[-1]["moves"][-1] == {"seat": 1, "action": "resign"}
    assert compact.to_json(keep_records=1) == whole.to_json(keep_records=1)
    assert compact.round_record(len(compact.finished)) == whole.record()["rounds"][-1]


@pytest.mark.parametrize("game", ENGINES)
def test_a_state_stored_without_any_record_takes_a_rounds_record_back_and_is_then_the_whole_state(game):
    m, _ = played_to(game, 2)
    engine = ENGINES[game][0]
    bare = engine.Match.from_json(m.to_json(keep_records=0))
    assert records_of(game, bare.to_json()) == [None, None]
    with pytest.raises(RecordsLeftOut):
        bare.round_record(2)
    given = bare.with_round_record(2, m.round_record(2))
    assert given.round_record(2) == m.round_record(2)
    assert records_of(game, given.to_json()) == [None, m.round_record(2)]
    assert given.to_json(keep_records=1) == m.to_json(keep_records=1)
    assert records_of(game, bare.to_json()) == [None, None]  # the state it was made from is unchanged
    with pytest.raises(ValueError):
        bare.with_round_record(3, m.round_record(2))  # round 3 is in play


def test_romme_resigning_between_rounds_needs_the_record_of_the_round_just_ended():
    m, rng = played_to("romme", 1)
    engine, bots, _, _ = ENGINES["romme"]
    while m.to_act is not None:  # to the end of the round in play
        m = engine.apply_action(m, m.to_act, bots.choose_action(engine.view(m, m.to_act), "simple", rng), rng=rng)
    bare = romme_match.Match.from_json(m.to_json(keep_records=0))
    with pytest.raises(RecordsLeftOut):
        romme_match.resign(bare, 0, rng=random.Random(1))
    given = romme_match.resign(bare.with_round_record(2, m.round_record(2)), 0, rng=random.Random(1))
    whole = romme_match.resign(m, 0, rng=random.Random(1))
    assert given.round_record(2) == whole.round_record(2)
    assert given.round_record(2)["moves"][-1] == {"seat": 0, "action": "resign"}
