"""A seat's situation at a glance (engine/overview.py): what the mails and pages show."""

from collections import Counter

from engine import legal_moves
from engine.components import TILES
from engine.overview import (
    Purse,
    exact_spaces,
    majorities,
    next_scoring,
    purses,
    tiles_without_cell,
)

from .helpers import build, set_hand, set_market, start

TOWERS = ["A44", "A45", "A46", "A47", "A48", "A49", "A50", "A51", "A52", "A53", "A54"]


def test_the_hand_by_currency_highest_first_with_sums():
    hand = Counter(["DE6", "DI9", "DE2", "DE6", "FL1"])
    assert purses(hand) == [Purse("denar", (6, 6, 2)), Purse("dirham", (9,)),
                            Purse("florin", (1,))]
    assert [p.total for p in purses(hand)] == [14, 9, 1]
    assert purses(Counter()) == []


def test_a3_2_spaces_payable_exactly_in_their_own_currency():
    s = start(3)
    set_market(s, ["A44", "A45", "A46", "A47"])  # towers of 7, 8, 9, 9
    assert [TILES[t].faces[0].value for t in ("A44", "A45", "A46", "A47")] == [7, 8, 9, 9]
    # space 1 (denar): one card of its price; space 2 (dirham): two cards adding up to it;
    # space 3 (ducat): only more than the price; space 4 (florin): 9, but in denars
    set_hand(s, 0, ["DE7", "DE9", "DI5", "DI3", "DU4", "DU6", "FL2"])
    assert exact_spaces(s, 0) == [1, 2]
    set_hand(s, 0, [])
    assert exact_spaces(s, 0) == []


def test_a5_1_majorities_as_the_next_scoring_would_count_them_now():
    s = start(3)
    build(s, 0, {(0, i + 1): t for i, t in enumerate(TOWERS[:4])})
    build(s, 1, {(0, i + 1): t for i, t in enumerate(TOWERS[4:8])})
    build(s, 2, {(0, i + 1): t for i, t in enumerate(TOWERS[8:9])})
    assert next_scoring(s) == 1
    (tower,) = majorities(s)
    assert tower.building == "tower" and tower.counts == {0: 4, 1: 4, 2: 1}
    assert tower.points == {0: 3, 1: 3}  # the first scoring's 6 for towers, shared
    s.scorings_done = 1
    assert majorities(s)[0].points == {0: 9, 1: 9}  # the rulebook's (13 + 6) / 2


def test_a6_during_the_final_distribution_the_next_scoring_is_the_third():
    """Issue 25: with both money decks the 2nd scoring card may never come (C-1a); once the
    game ends (A-6, C-5) the scoring to come is the final one, not the 2nd."""
    s = start(3, variant="alhambra_granada", both_money_decks=True)
    build(s, 0, {(0, 1): TOWERS[0], (0, 2): TOWERS[1]})
    s.phase, s.scorings_done = "distribution", 1
    assert next_scoring(s) == 3
    (tower,) = majorities(s)
    assert tower.scoring == 3 and tower.points == {0: 21}  # the 3rd scoring's 21
    s.phase = "action"
    assert next_scoring(s) == 2


def test_c3_a_granada_tile_that_fits_no_cell_says_the_rule_and_why():
    """Issue 25: the first Granada tile must meet an Alhambra wall with a moat (C-3); with
    the fountain alone in the city it fits nowhere, and the engine says why."""
    s = start(3, variant="alhambra_granada")
    seat = s.current
    s.phase, s.pending = "placement", ["G16", "A06"]
    assert legal_moves_of(s, seat, "G16") == {"reserve"}
    (no_cell,) = tiles_without_cell(s, seat)
    assert no_cell.tile == "G16" and no_cell.rule == "C-3"
    assert "wall and a moat" in no_cell.reason
    assert tiles_without_cell(s, (seat + 1) % 3) == []  # not that seat's tiles


def test_a4_a_tile_that_fits_no_cell_names_the_building_rule():
    """A34's sides match no free cell beside A30 (south), A13 (east) and A41 (west): the
    rule most cells break is A-4.3, with the engine's sentence for one of them."""
    s = start(2)
    seat = s.current
    build(s, seat, {(0, 1): "A30", (1, 0): "A13", (-1, 0): "A41"})
    s.phase, s.pending = "placement", ["A34", "A01"]
    assert legal_moves_of(s, seat, "A34") == {"reserve", "neutral"}
    assert "city" in legal_moves_of(s, seat, "A01")
    (no_cell,) = tiles_without_cell(s, seat)
    assert (no_cell.tile, no_cell.rule) == ("A34", "A-4.3")
    assert no_cell.reason.startswith("the ") and "A34 at" in no_cell.reason


def legal_moves_of(s, seat, tile):
    return {m.to for m in legal_moves(s, seat) if m.tile == tile}
