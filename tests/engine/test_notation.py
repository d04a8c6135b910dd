"""The move notation (engine/NOTATION.md): examples, round trips, errors with columns."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    Move,
    NotationError,
    format_move,
    format_moves,
    legal_moves,
    parse_move,
    parse_moves,
    play,
)
from engine.bots import random_move

from .helpers import start

EXAMPLES = {
    "take 3": Move("take", positions=(3,)),
    "take 1,4": Move("take", positions=(1, 4)),
    "buy A17 pay DI3,DI5": Move("buy", tile="A17", cards=("DI5", "DI3")),
    "end": Move("end"),
    "place A17 at 1,-1": Move("place", tile="A17", to="city", at=(1, -1)),
    "place A17 reserve": Move("place", tile="A17", to="reserve"),
    "place A17 dirk": Move("place", tile="A17", to="neutral"),
    "redesign A17 at 2,0": Move("redesign", tile="A17", to="city", at=(2, 0)),
    "redesign A17 reserve": Move("redesign", tile="A17", to="reserve"),
    "redesign swap A17 with A20": Move("redesign", tile="A17", to="swap", other="A20"),
}


@pytest.mark.parametrize("text", sorted(EXAMPLES))
def test_examples_parse_and_format_back(text):
    move = parse_move(text)
    assert move == EXAMPLES[text]
    assert parse_move(format_move(move)) == move


def test_canonical_spelling_is_case_and_space_insensitive():
    move = parse_move("  BUY a17   PAY di3 , di5 ")
    assert format_move(move) == "buy A17 pay DI5,DI3"
    assert format_move(parse_move("take 4,1")) == "take 1,4"


def test_a_turn_is_moves_separated_by_semicolons_or_lines():
    moves = parse_moves("buy A07 pay DE8; take 2\nplace A07 at 1,0")
    assert [m.action for m in moves] == ["buy", "take", "place"]


@pytest.mark.parametrize("text,column,expected", [
    ("tak 1", 1, "'take'"),
    ("take x", 6, "a money display position"),
    ("buy Z99 pay DE1", 5, "a tile id"),
    ("buy A17 pay XX1", 13, "a money card"),
    ("buy A17 pay DE0", 13, "a money card"),
    ("place A17 at 1", 15, "','"),
    ("place A17 somewhere", 11, "'at'"),
    ("redesign swap A17 for A20", 19, "'with'"),
    ("end now", 5, "the end of the move"),
    ("take 1 # 2", 8, "a word, a number"),
])
def test_errors_name_the_column_and_what_was_expected(text, column, expected):
    with pytest.raises(NotationError) as err:
        parse_move(text)
    assert err.value.position == column
    assert expected in err.value.expected
    assert str(err.value).startswith(f"column {column}: expected")


def test_empty_turn_is_an_error():
    with pytest.raises(NotationError):
        parse_moves(" ; ")


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), players=st.integers(2, 6), steps=st.integers(0, 300))
def test_every_legal_move_round_trips_through_text_and_json(seed, players, steps):
    s = start(players, seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if s.phase == "over":
            break
        play(s, s.current, random_move(s, s.current, rng))
    for move in legal_moves(s, s.current):
        assert parse_move(format_move(move)) == move
        assert Move.from_json(move.to_json()) == move


@pytest.mark.parametrize("data,words", [
    ([], "JSON object"),
    ({"action": "jump"}, "'action'"),
    ({"action": "buy", "tile": "Z1", "cards": ["DE1"]}, "'tile'"),
    ({"action": "buy", "tile": "A17", "cards": "DE1"}, "'cards'"),
    ({"action": "take", "positions": [1, True]}, "'positions'"),
    ({"action": "place", "tile": "A17", "to": "city", "at": [1]}, "'at'"),
    ({"action": "place", "tile": "A17", "to": "moon"}, "'to'"),
    ({"action": "place", "tile": "G17", "to": "reserve", "face": 2}, "'face'"),
    ({"action": "end", "colour": "red"}, "unknown field"),
    ({"action": "take"}, "needs 'positions'"),
    ({"action": "take", "positions": [1], "tile": "A07"}, "'tile' does not belong to a 'take'"),
    ({"action": "redesign", "tile": "G01", "to": "reserve", "face": 1}, "'face' does not"),
    ({"action": "buy", "tile": "A07", "cards": ["DE8"], "to": "city"}, "'to' does not"),
    ({"action": "place", "tile": "A07", "to": "swap", "other": "A08"}, "city, reserve or"),
    ({"action": "place", "tile": "A07", "to": "reserve", "at": [1, 0]}, "'at' does not"),
    ({"action": "redesign", "tile": "A07", "to": "swap"}, "needs 'other'"),
])
def test_json_moves_are_checked_field_by_field(data, words):
    with pytest.raises(ValueError, match=words):
        Move.from_json(data)


@pytest.mark.parametrize("fields", [
    {"action": "take", "positions": (1,), "tile": "A07"},
    {"action": "buy", "tile": "A07", "cards": ("DE8",), "positions": (1,)},
    {"action": "end", "cards": ("DE8",)},
    {"action": "redesign", "tile": "G01", "to": "city", "at": (1, 0), "face": 1},
    {"action": "redesign", "tile": "A07", "to": "reserve", "cards": ("DE3",)},
    {"action": "place", "tile": "A07", "to": "city"},
])
def test_a_move_with_fields_that_do_not_belong_to_its_action_cannot_be_made(fields):
    """A move carries exactly its action's fields: checked once, when it is made, so
    ``decide`` never sees one that it would have to ignore fields of."""
    with pytest.raises(ValueError, match="does not belong|needs"):
        Move(**fields)


TOKENS = ["take", "buy", "end", "place", "redesign", "pay", "at", "reserve", "dirk", "juan",
          "swap", "with", "front", "back", "A17", "a05", "G07", "A00", "A99", "Z1", "DE5",
          "fl9", "DU0", "DI", "1", "2", "-1", "0", "12", "007", ",", ";", ":", " ", "\n", "#",
          "é", "\t"]


_ids = st.sampled_from(["A17", "a05", "G07", "A00", "A99", "G54", "g1"])
_cards = st.lists(st.sampled_from(["DE5", "fl9", "DU1", "DI3", "DU0", "XX2"]), min_size=1,
                  max_size=3).map(",".join)
_ints = st.integers(-3, 12).map(str)
_cell = st.tuples(_ints, _ints).map(lambda p: f"at {p[0]},{p[1]}")
_moves = st.one_of(
    st.lists(_ints, min_size=1, max_size=4).map(lambda p: "take " + ",".join(p)),
    st.tuples(_ids, _cards).map(lambda a: f"buy {a[0]} pay {a[1]}"),
    st.just("end"),
    st.tuples(_ids, st.sampled_from(["", ":front", ":back", ":up"]),
              _cell | st.sampled_from(["reserve", "dirk", "juan", "moon"]),
              st.just("") | _cards.map(" pay ".__add__)).map("place {0[0]}{0[1]} {0[2]}{0[3]}"
                                                              .format),
    st.tuples(_ids, _cell | st.just("reserve")).map(lambda a: f"redesign {a[0]} {a[1]}"),
    st.tuples(_ids, _ids).map(lambda a: f"redesign swap {a[0]} with {a[1]}"),
)
# Turns in the grammar, the same with a token inserted somewhere, token soup, any text.
_turns = st.lists(_moves, min_size=1, max_size=3).map("; ".join)
_texts = st.one_of(
    _turns,
    st.tuples(_turns, st.integers(0, 40), st.sampled_from(TOKENS)).map(
        lambda a: a[0][:a[1]] + a[2] + a[0][a[1]:]),
    st.lists(st.sampled_from(TOKENS), max_size=9).map(" ".join),
    st.text(max_size=30),
)


@settings(max_examples=400, deadline=None)
@given(text=_texts)
def test_fuzz_any_text_is_a_notation_error_or_moves_that_round_trip(text):
    """Random text: either a NotationError naming a column inside it, or moves whose
    canonical spelling reads back to the same moves (and is its own canonical spelling)."""
    try:
        moves = parse_moves(text)
    except NotationError as err:
        assert 1 <= err.position <= len(text.replace("\n", ";")) + 1 and err.expected
        return
    canonical = format_moves(moves)
    assert parse_moves(canonical) == moves
    assert format_moves(parse_moves(canonical)) == canonical
    for move in moves:
        assert parse_move(format_move(move)) == move
        assert Move.from_json(move.to_json()) == move


def test_a_tile_id_that_names_no_tile_is_said_so():
    """Issue 34.4: ``G99`` looks like a tile id; the error says there is no such tile
    (a word that is no tile id at all still gets the notation's example)."""
    with pytest.raises(NotationError) as err:
        parse_move("buy G99 pay DE5")
    assert err.value.position == 5 and "there is no tile G99" in str(err.value.message)
    with pytest.raises(NotationError) as err:
        parse_move("buy X1 pay DE5")
    assert "a tile id like A17 or G05" in str(err.value.message)
