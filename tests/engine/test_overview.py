"""A seat's situation at a glance (engine/overview.py): what the mails and pages show."""

from collections import Counter

from engine.components import TILES
from engine.overview import Purse, exact_spaces, majorities, next_scoring, purses

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
