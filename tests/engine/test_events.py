"""Events (engine/events.py): every type declared once, schema versions, a damaged log
refused by ``evolve``, and events told in words (``describe``)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import get_type_hints

import pytest

from engine import SCHEMA, __version__, describe, new_game, redact_event, replay
from engine.errors import LogError
from engine.events import EVENT_TYPES

from .helpers import apply, build, set_hand, set_market, start

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


def golden(name: str) -> dict:
    return json.loads((GOLDEN / name).read_text())


@pytest.fixture(scope="module")
def logs() -> dict[str, list]:
    return {f"{p.parent.name}/{p.stem}": json.loads(p.read_text())["log"]
            for p in sorted(GOLDEN.glob("v*/*.json"))}


def test_every_event_of_every_golden_log_has_exactly_the_declared_fields(logs):
    seen = set()
    for name, log in logs.items():
        for event in log:
            cls = EVENT_TYPES[event["type"]]
            declared = set(get_type_hints(cls))
            assert set(event) <= declared, (name, event)
            assert cls.__required_keys__ <= set(event), (name, event)
            seen.add(event["type"])
    # the golden games use every type but the service's own (a vacation: its test is
    # test_vacation_is_no_rule below and tests/service/test_vacation.py)
    assert seen == set(EVENT_TYPES) - {"vacation"}


def test_vacation_is_no_rule():
    """A vacation event changes nothing the rules know: the state after it is the state
    before it, one version on; its words say it."""
    from engine import describe, replay

    log = new_game("alhambra", ["a", "b"], 1)
    before = replay(log)
    event = {"type": "vacation", "seat": 1, "since": "2027-01-01T00:00:00.000Z",
             "until": "2027-01-08T00:00:00.000Z"}
    after = replay([*log, event])
    assert after.version == before.version + 1
    assert engine_view(after) == engine_view(before)
    assert describe(event, ["a", "b"]) == ("b is on vacation from 2027-01-01 00:00 until "
                                           "2027-01-08 00:00 (UTC): that seat's clock "
                                           "stops meanwhile")
    with pytest.raises(Exception, match="no seat 5"):
        replay([*log, {**event, "seat": 5}])


def engine_view(state):
    from engine import view

    doc = view(state, None)
    doc.pop("version", None)
    return doc


def test_game_created_records_the_schema_and_the_engine_version():
    created = new_game("alhambra", ["a", "b"], 1)[0]
    assert created["schema"] == SCHEMA == 2 and created["engine_version"] == __version__
    old = new_game("alhambra", ["a", "b"], 1, schema=1)[0]
    assert "schema" not in old and replay([old]).schema == 1


# Each damage: (golden game, event type, which one of that type, change) -> words.
DAMAGES = [
    ("card_drawn", 3, lambda e: e.update(card="FL9" if e["card"] != "FL9" else "FL8"),
     "top card"),
    ("market_refilled", 5, lambda e: e.update(tile="A54" if e["tile"] != "A54" else "A53"),
     "bag"),
    ("money_dealt", 1, lambda e: e["cards"].reverse(), "cards dealt"),
    ("display_refilled", 0, lambda e: e["cards"].reverse(), "cards drawn"),
    ("bag_filled", 0, lambda e: e["tiles"].pop(), "other tiles"),
    ("money_shuffled", 0, lambda e: e["deck"].append("DE1"), "other cards"),
    ("deck_stacked", 0, lambda e: e["deck"].remove("S1"), "other cards"),
    ("deck_reshuffled", 0, lambda e: e["deck"].append("DE1"), "other cards"),
    ("tile_returned", 0, lambda e: e["tiles"].pop(), "other tiles"),
    ("neutral_received", 0, lambda e: e["tiles"].reverse(), "next ones"),
    ("money_taken", 2, lambda e: e.update(cards=["DE9", "DE9", "DE9"]), "display holds"),
    ("scoring_card_drawn", 0, lambda e: e.update(scoring=3), "next scoring"),
    ("tile_bought", 1, lambda e: e.update(cards=["FL9"] * 9), "pays"),
    ("tile_placed", 4, lambda e: e.update(tile="A00"), "not waiting"),
    ("game_over", 0, lambda e: e["scores"].reverse(), "scores"),
]


@pytest.mark.parametrize("kind,nth,damage,words", DAMAGES, ids=[d[0] for d in DAMAGES])
def test_a_damaged_log_fails_loudly_naming_the_event(logs, kind, nth, damage, words):
    name = "v2/combined-5p" if kind == "tile_returned" else (
        "v2/granada-2p" if kind == "neutral_received" else "v2/alhambra-4p")
    log = copy.deepcopy(logs[name])
    index = [i for i, e in enumerate(log) if e["type"] == kind][nth]
    damage(log[index])
    with pytest.raises(LogError) as err:
        replay(log)
    assert err.value.version <= index + 1 and err.value.event_type == kind
    assert err.value.version == index + 1 or kind == "game_over"
    assert words in err.value.message


def test_a_log_must_begin_with_game_created_and_hold_known_events(logs):
    log = logs["v2/alhambra-2p"]
    with pytest.raises(LogError, match="begins with game_created"):
        replay(log[1:])
    with pytest.raises(LogError, match="unknown event type 'jump'"):
        replay([*log[:5], {"type": "jump"}])
    with pytest.raises(LogError, match="first event"):
        replay([log[0], log[0]])
    with pytest.raises(LogError, match="malformed"):
        replay([*log[:3], {k: v for k, v in log[3].items() if k != "tile"}])


def test_old_logs_of_schema_1_replay_with_their_rules(logs):
    """A schema 1 combined game had 216 cards and took its Granada tiles from below a
    moatless top at setup; both still replay, and the options say so."""
    state = replay(logs["v1/combined-3p"])
    assert state.schema == 1 and state.options["both_money_decks"] is True
    assert replay(logs["v2/combined-3p"]).options["both_money_decks"] is False


# -- describe ----------------------------------------------------------------------------

NAMES = ["Ann", "Bob", "Cid"]


def test_describe_says_what_happened_in_words():
    s = start(3)
    seat = s.current
    set_market(s, ["A35", "A14", "A22", "A50"])  # A35: garden 8
    set_hand(s, seat, ["DE5", "DE3", "DI9"])
    events = apply(s, seat, "buy A35 pay DE5,DE3; place A35 at 0,-1")
    names = [f"p{i}" for i in range(3)]
    lines = [describe(e, names, state=s) for e in events if "move" in e]
    who = names[seat]
    assert lines == [f"{who} bought a garden (8), walls north and east, with a 5 and a 3 denar, "
                     "the exact price: another action",
                     f"{who} placed a garden (8) north of the fountain"]


def test_describe_scorings_name_the_place_and_the_neutral():
    award = {"type": "points_awarded", "scoring": 2, "seat": 0, "kind": "majority",
             "building": "pavilion", "points": 9}
    assert describe(award, NAMES) == "2nd scoring: Ann got 9 for pavilions"
    wall = dict(award, kind="wall", building=None, points=8, seat=1)
    assert describe(wall, NAMES) == "2nd scoring: Bob got 8 for the longest wall"
    juan = dict(award, seat="neutral", building="bath_house", points=6)
    assert describe(juan, NAMES) == "2nd scoring: Juan got 6 for bath houses"
    dirk = {"type": "neutral_received", "tiles": ["A01", "A44"]}
    assert describe(dirk, NAMES) == "Dirk receives a pavilion (2) and a tower (7)"
    over = {"type": "game_over", "scores": [81, 77], "neutral_score": 90, "winners": [0]}
    assert describe(over, NAMES, "Dirk") == "game over: Ann 81, Bob 77, Dirk 90; Ann won"


def test_describe_granada_faces_from_the_event_or_the_state():
    bought = {"type": "tile_bought", "seat": 1, "space": 1, "tile": "G07", "cards": ["DE4"],
              "exact": False, "face": 1}
    assert describe(bought, NAMES) == ("Bob bought a school (3), back face up, moats north and "
                                       "east, with 4 denars")
    s = start(3, variant="granada")
    build(s, 0, {(0, 1): "G07"}, faces={"G07": 0})
    placed = {"type": "tile_placed", "seat": 0, "tile": "G07", "to": "city", "at": [0, 1],
              "move": "place G07 at 0,1", "timeout": True}
    assert describe(placed, NAMES) == ("Ann placed G07 south of the start tile "
                                       "(time ran out: the default move)")
    assert describe(placed, NAMES, state=s).startswith("Ann placed a park (2) south")


def test_every_event_of_the_golden_games_is_described_or_left_out_as_a_seat_sees_it(logs):
    for name, log in logs.items():
        names = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"]
        state = replay(log)
        told = 0
        for event in log:
            for seat in (None, 0, 1):
                line = describe(redact_event(event, seat, over=True), names, state=state)
                assert line is None or (line and "None" not in line), (name, event, line)
                told += line is not None
        assert told > len(log) // 3, name


def test_describe_says_money_and_places_in_words_not_notation():
    """Issue 25: "Bob took 9 ducats", not "Bob took DU9"; cells from the start tile."""
    take = {"type": "money_taken", "seat": 1, "positions": [1, 2], "cards": ["DU2", "DI3"]}
    assert describe(take, NAMES) == "Bob took 3 dirhams and 2 ducats"
    assert describe(dict(take, cards=["DU1"]), NAMES) == "Bob took 1 ducat"
    dealt = {"type": "money_dealt", "seat": 0, "count": 5, "total": 26,
             "cards": ["FL3", "DI4", "FL8", "DI9", "DU2"]}
    assert describe(dealt, NAMES) == ("Ann was dealt a 9 and a 4 dirham, 2 ducats, and an 8 "
                                      "and a 3 florin: 26 in all")
    s = start(3)
    far = {"type": "tile_placed", "seat": 2, "tile": "A35", "to": "city", "at": [2, -1]}
    assert describe(far, NAMES, state=s) == ("Cid placed a garden (8) 2 east and 1 north of "
                                             "the fountain")
    flipped = {"type": "tile_placed", "seat": 0, "tile": "G07", "to": "city", "at": [-1, 0],
               "face": 1, "cards": ["DU3"]}
    assert describe(flipped, NAMES) == ("Ann placed a school (3), turned over for 3 ducats, "
                                        "west of the start tile")
    back = {"type": "tile_returned", "kind": "granada", "tile": "G07", "tiles": []}
    assert describe(back, NAMES) == "a park (2) has no moat and goes back into the bag"
