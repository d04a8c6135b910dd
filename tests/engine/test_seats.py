"""Seats played by bots (docs/rules.md S-2): bot seats in game_created, moves marked with
the bot's level, a seat taken over when it resigns or its time runs out too often in a
row, and the record and views saying so."""

from __future__ import annotations

import random

import pytest

from engine import (
    RuleViolation,
    decide,
    default_moves,
    describe,
    evolve,
    new_game,
    replay,
    take_over,
    view,
)
from engine.bots import random_move
from engine.record import export_record, import_record


def seated(after: int = 2, bots: list[str | None] | None = None):
    return replay(new_game("alhambra", ["Ann", "Bob", "Cid"], 7, bots=bots,
                           takeover_after_timeouts=after, takeover_bot="random"))


def fold(state, events):
    for e in events:
        evolve(state, e)
    return events


def time_out(state):
    seat = state.current
    return fold(state, decide(state, seat, default_moves(state, seat), timeout=True))


def play_others(state, seat):
    """Random moves until it is ``seat``'s turn again."""
    rng = random.Random(1)
    while state.current != seat:
        fold(state, decide(state, state.current, random_move(state, state.current, rng)))


def test_bot_seats_are_in_game_created_and_in_every_view():
    state = seated(bots=[None, "random", None])
    assert state.bots == {1: "random"}
    assert [s["bot"] for s in view(state)["seats"]] == [None, "random", None]
    assert [s["left"] for s in view(state, 0)["seats"]] == [None, None, None]


def test_a_bot_move_carries_the_bot_marker_in_its_first_event_and_its_words():
    state = seated(bots=[None, "random", None])
    seat = state.current
    events = fold(state, decide(state, seat, random_move(state, seat, random.Random(2)),
                                bot="random"))
    first = next(e for e in events if "move" in e)
    assert first["bot"] == "random"
    assert describe(first, state.seats).endswith("(random bot)")


def test_the_nth_timed_out_turn_in_a_row_hands_the_seat_to_the_takeover_bot():
    state = seated(after=2)
    seat = state.current
    assert not any(e["type"] == "seat_taken_over" for e in time_out(state))
    play_others(state, seat)
    events = time_out(state)
    assert events[-1] == {"type": "seat_taken_over", "seat": seat, "bot": "random",
                          "reason": "abandoned"}
    assert state.bots == {seat: "random"} and state.left == {seat: "abandoned"}
    assert view(state)["seats"][seat]["left"] == "abandoned"
    assert "let the time run out too often" in describe(events[-1], state.seats)


def test_a_move_in_time_resets_the_count_and_zero_never_takes_over():
    state = seated(after=2)
    seat = state.current
    time_out(state)
    play_others(state, seat)
    fold(state, decide(state, seat, random_move(state, seat, random.Random(3))))
    play_others(state, seat)
    assert not any(e["type"] == "seat_taken_over" for e in time_out(state))
    never = seated(after=0)
    for _ in range(12):
        assert not any(e["type"] == "seat_taken_over" for e in time_out(never))


def test_resigning_is_a_takeover_and_twice_or_after_the_end_is_refused():
    state = seated()
    fold(state, take_over(state, 2, "random", "resigned"))
    assert state.left == {2: "resigned"}
    with pytest.raises(RuleViolation) as err:
        take_over(state, 2, "random", "resigned")
    assert err.value.rule == "S-2"


def test_the_record_of_a_game_with_takeovers_replays_to_the_same_log():
    state = seated(after=2, bots=[None, None, "random"])
    events = list(new_game("alhambra", ["Ann", "Bob", "Cid"], 7, bots=[None, None, "random"],
                           takeover_after_timeouts=2, takeover_bot="random"))
    events += fold(state, take_over(state, 1, "random", "resigned"))
    rng = random.Random(4)
    while state.phase != "over":
        seat = state.current
        if seat in state.bots:
            events += fold(state, decide(state, seat, random_move(state, seat, rng),
                                         bot=state.bots[seat]))
        else:
            events += time_out(state)
    doc = export_record(events, state)
    assert doc["bots"] == [None, None, "random"] and doc["takeover_after_timeouts"] == 2
    assert doc["result"]["left"] == ["abandoned", "resigned", None]
    assert {"seat": 1, "taken_over": "random", "reason": "resigned"} in doc["moves"]
    assert any(m.get("bot") == "random" for m in doc["moves"])
    assert import_record(doc) == events


def test_a_bot_named_for_its_level_is_not_told_twice():
    event = {"type": "money_taken", "seat": 1, "positions": [1], "cards": ["DE5"],
             "move": "take 1", "bot": "greedy"}
    assert describe(event, ["Ann", "Bot 2 (greedy)"]) == "Bot 2 (greedy) took 5 denars"
    assert describe(event, ["Ann", "Bob"]) == "Bob took 5 denars (greedy bot)"
    taken = {"type": "seat_taken_over", "seat": 0, "bot": "greedy", "reason": "resigned"}
    assert describe(taken, ["Ann", "Bob"]) == \
        "Ann resigned: a greedy bot plays the seat from now on"
