"""A turn: its actions (A-3.1-A-3.3), the end of turn (A-3.4), the game end (A-6), Dirk (A-8)."""

import pytest

from engine import (
    Move,
    NotationError,
    NotYourTurn,
    RuleViolation,
    decide,
    default_moves,
    legal_moves,
    parse_move,
    parse_moves,
)
from engine.scoring import awards

from .helpers import apply, build, set_hand, set_market, start, types_of


def test_a3_2_rulebook_five_action_turn_four_exact_purchases_then_money():
    """Rulebook example: exact payments grant another action, up to 5 actions in a turn."""
    s = start(3)
    seat = s.current
    set_market(s, ["A07", "A14", "A22", "A50"])  # prices 8, 9, 9, 11
    set_hand(s, seat, ["DE8", "DI9", "DU9", "FL9", "FL2", "DE1"])
    for text in ("buy A07 pay DE8", "buy A14 pay DI9", "buy A22 pay DU9", "buy A50 pay FL9,FL2"):
        events = apply(s, seat, text)
        assert events[0]["exact"] is True
        assert s.current == seat and s.can_act
    assert s.market == [[], [], [], []]  # not refilled during the turn
    apply(s, seat, "take 1")  # the fifth action ends the actions
    assert s.phase == "placement" and not s.can_act
    assert sorted(s.pending) == ["A07", "A14", "A22", "A50"]
    with pytest.raises(RuleViolation) as err:
        apply(s, seat, "take 1")
    assert err.value.rule == "A-3.4"
    events = apply(s, seat, "place A07 reserve; place A14 reserve; place A22 reserve")
    assert s.current == seat
    events = apply(s, seat, "place A50 reserve")
    assert events[-1] == {"type": "turn_started", "seat": (seat + 1) % 3}
    assert all(len(space) == 1 for space in s.market)


def test_a3_2_overpaying_ends_the_actions_and_wrong_payments_are_refused():
    s = start(3)
    seat = s.current
    set_market(s, ["A07", "A14", "A22", "A50"])
    set_hand(s, seat, ["DE5", "DE4", "DI3", "FL1"])
    # the cards in words, never their codes (issue 34.4)
    for text, words in (("buy A07 pay DE5", "costs 8 denars; 5 denars total 5"),
                        ("buy A07 pay DE5,DI3", "3 dirhams is a dirham card"),
                        ("buy A07 pay DE5,DE5", "you pay 2 x 5 denars but hold only 1"),
                        ("buy A01 pay DE5,DE4", "not on the building market")):
        with pytest.raises(RuleViolation) as err:
            apply(s, seat, text)
        assert err.value.rule == "A-3.2" and words in err.value.message
    events = apply(s, seat, "buy A07 pay DE5,DE4")
    assert events[0]["exact"] is False
    assert s.phase == "placement" and s.pending == ["A07"]


def test_a3_1_several_cards_only_up_to_a_total_of_5():
    s = start(3)
    seat = s.current
    s.display[:] = ["DE2", "DI3", "DU4", "FL1"]
    with pytest.raises(RuleViolation) as err:
        apply(s, seat, "take 2,3")
    assert err.value.rule == "A-3.1" and "3 dirhams and 4 ducats total 7" in \
        err.value.message  # in words, not DI3+DU4 (issue 34.4)
    with pytest.raises(RuleViolation):
        apply(s, seat, "take 5")
    apply(s, seat, "take 1,2")  # 2 + 3 = 5
    assert s.hands[seat]["DE2"] >= 1 and s.hands[seat]["DI3"] >= 1
    assert s.current != seat  # no tile bought: the turn is over
    assert len(s.display) == 4  # refilled at the end of the turn (A-3.4 step 2)


def test_a3c_the_extra_action_is_optional():
    s = start(3)
    seat = s.current
    set_market(s, ["A07", "A14", "A22", "A50"])
    set_hand(s, seat, ["DE8"])
    with pytest.raises(RuleViolation) as err:
        apply(s, seat, "end")
    assert err.value.rule == "A-3"
    events = apply(s, seat, "buy A07 pay DE8; end; place A07 reserve")
    assert "actions_ended" in types_of(events) and s.current != seat


def test_a3_3_redesign_moves_swaps_and_ends_the_turn():
    s = start(3)
    seat = s.current
    build(s, seat, {(1, 0): "A07"})  # open on all sides
    s.reserves[seat] = ["A14"]
    s.bags["alhambra"].remove("A14")
    assert parse_move("redesign swap A07 with A14") in legal_moves(s, seat)
    apply(s, seat, "redesign swap A07 with A14")
    assert s.grids[seat].where["A14"] == (1, 0) and s.reserves[seat] == ["A07"]
    assert s.current != seat  # Decision A-3a: a redesign ends the turn


def test_a3_3_the_start_tile_never_moves():
    s = start(3)
    seat = s.current
    for text in ("redesign A00 reserve", "redesign A07 reserve"):
        with pytest.raises(RuleViolation) as err:
            decide(s, seat, parse_move(text))
        assert err.value.rule == "A-3.3"
    assert "start tile" in s.grids[seat].removal_error("A00")[1]


def test_moves_out_of_turn_are_refused_and_a_failed_turn_changes_nothing():
    s = start(3)
    seat = s.current
    other = (seat + 1) % 3
    with pytest.raises(NotYourTurn):
        decide(s, other, parse_move("take 1"))
    set_market(s, ["A07", "A14", "A22", "A50"])
    set_hand(s, seat, ["DE8", "DI1"])
    before = (s.version, dict(s.hands[seat]), [list(m) for m in s.market])
    with pytest.raises(RuleViolation) as err:
        decide(s, seat, parse_moves("buy A07 pay DE8; buy A14 pay DI1"))
    assert err.value.rule == "A-3.2"
    assert (s.version, dict(s.hands[seat]), [list(m) for m in s.market]) == before
    with pytest.raises(RuleViolation) as err:
        decide(s, seat, parse_moves("take 1; take 2"))
    assert "after your turn ended" in err.value.message


def test_a3_4_end_of_turn_order_display_then_market_then_scoring():
    s = start(3)
    seat = s.current
    set_market(s, ["A07", "A14", "A22", "A50"])
    set_hand(s, seat, ["DE8"])
    s.display[:] = ["DI1", "DI2", "DI3", "DI4"]
    s.deck[:0] = ["S1", "DU2"]
    events = apply(s, seat, "buy A07 pay DE8; take 1; place A07 at 1,0")
    kinds = types_of(events)
    i_card = kinds.index("scoring_card_drawn")
    assert kinds[i_card - 1] == "tile_placed"
    assert kinds[i_card + 1] == "card_drawn" and events[i_card + 1]["card"] == "DU2"
    assert kinds.index("market_refilled") > i_card
    first_award = kinds.index("points_awarded")
    assert first_award > kinds.index("market_refilled")
    assert kinds[-2:] == ["scoring_done", "turn_started"]
    # The only pavilion in any Alhambra: 1 point in the first scoring.
    assert events[first_award] == {"type": "points_awarded", "scoring": 1, "seat": seat,
                                   "kind": "majority", "building": "pavilion", "points": 1}
    assert s.scorings_done == 1 and s.display == ["DI2", "DI3", "DI4", "DU2"]


def test_a3_4_deck_reshuffles_the_discard_when_it_runs_out():
    s = start(3)
    seat = s.current
    s.discard[:] = s.deck[1:]
    s.deck[:] = s.deck[:1]
    s.display[:] = ["DI1", "DI2", "DI3", "DI4"]
    events = apply(s, seat, "take 1,2")
    kinds = types_of(events)
    assert kinds.count("deck_reshuffled") == 1 and kinds.count("card_drawn") == 2
    assert not s.discard and len(s.display) == 4


def _end_game_state():
    s = start(3)
    seat = s.current
    set_market(s, ["A07", "A14", "A22", "A50"])
    s.bags["alhambra"].clear()
    hands = {0: ["DE9", "DI5"], 1: ["DE9", "DU2"], 2: ["DI3", "FL1"]}
    for k, cards in hands.items():
        set_hand(s, k, cards)
    s.hands[seat]["DU9"] += 1
    return s, seat


def test_a6_game_end_distribution_then_final_scoring():
    s, seat = _end_game_state()
    events = apply(s, seat, "buy A22 pay DU9; place A22 at 1,0")
    kinds = types_of(events)
    assert kinds[-1] == "tile_awarded" and "game_ending" in kinds
    ending = next(e for e in events if e["type"] == "game_ending")
    assert ending["spaces"] == [1, 2, 4]
    # Space 1 (denar): seats 0 and 1 both hold 9 -> nobody gets A07 (A-6 step 2).
    resolved = [e for e in events if e["type"] == "space_resolved"]
    assert resolved[0] == {"type": "space_resolved", "space": 1, "seat": None}
    # Space 2 (dirham): seat 0 holds 5 (or more), the most.
    assert resolved[1]["space"] == 2
    winner = resolved[1]["seat"]
    assert s.phase == "distribution" and s.current == winner and s.pending == ["A14"]
    moves = legal_moves(s, winner)
    assert {m.to for m in moves} == {"city", "reserve"}  # never to Dirk, never redesign
    events = apply(s, winner, "place A14 reserve")
    # Space 4 (florin): only seat 2 holds florins.
    assert s.pending == ["A50"] and s.current == 2
    events = apply(s, 2, "place A50 at 0,1")
    assert types_of(events)[-1] == "game_over"
    assert s.phase == "over" and s.market[0] == ["A07"]
    finals = [e for e in events if e["type"] == "points_awarded"]
    assert {e["scoring"] for e in finals} == {3}
    assert legal_moves(s, 0) == []
    with pytest.raises(RuleViolation) as err:
        decide(s, s.current, parse_move("take 1"))
    assert err.value.rule == "A-6"


def test_a3b_a_scoring_drawn_in_the_last_turn_comes_before_the_game_end():
    s, seat = _end_game_state()
    s.deck[:0] = ["S2"]
    s.scorings_done = 1
    events = apply(s, seat, "buy A22 pay DU9; take 1; place A22 at 1,0")
    kinds = types_of(events)
    assert kinds.index("scoring_done") < kinds.index("game_ending")
    assert next(e for e in events if e["type"] == "scoring_done")["scoring"] == 2


def _two_player_before_scoring(scoring: int, **options):
    s = start(2, seed=4, **options)
    seat = s.current
    set_market(s, ["A07", "A14", "A22", "A50"])
    set_hand(s, seat, ["DE8"])
    s.deck[:0] = [f"S{scoring}"]
    s.scorings_done = scoring - 1
    return s, seat


def test_a8_dirk_draws_6_tiles_right_after_the_first_scoring():
    s, seat = _two_player_before_scoring(1)
    before = len(s.neutral)
    events = apply(s, seat, "buy A07 pay DE8; take 1; place A07 dirk")
    kinds = types_of(events)
    draw = events[kinds.index("neutral_received")]
    assert kinds.index("neutral_received") == kinds.index("scoring_done") + 1
    assert len(draw["tiles"]) == 6 and len(s.neutral) == before + 1 + 6


@pytest.mark.parametrize("cap,expected", [(False, 40 // 3), (True, 6)])
def test_a8_dirk_draws_a_third_of_the_bag_after_the_second_scoring(cap, expected):
    s, seat = _two_player_before_scoring(2, dirk_third_draw_cap=cap)
    del s.bags["alhambra"][41:]  # 41 left; one refills the market -> 40
    events = apply(s, seat, "buy A07 pay DE8; take 1; place A07 reserve")
    draw = next(e for e in events if e["type"] == "neutral_received")
    assert len(draw["tiles"]) == expected  # Decision A-8a: the cap is an option


def test_a8_only_two_player_games_have_dirk():
    s = start(3)
    seat = s.current
    set_market(s, ["A07", "A14", "A22", "A50"])
    set_hand(s, seat, ["DE8"])
    with pytest.raises(RuleViolation) as err:
        apply(s, seat, "buy A07 pay DE8; place A07 dirk")
    assert err.value.rule == "A-8"


def test_a8_dirk_scores_majorities_but_cannot_win():
    s = start(2, seed=9)
    s.neutral[:] = ["A44", "A45", "A46"]  # three towers
    build(s, 0, {(1, 0): "A50"})
    given = awards(s, 2)
    towers = {a.seat: a.points for a in given if a.building == "tower"}
    assert towers == {"neutral": 13, 0: 6}
    assert all(a.seat != "neutral" for a in given if a.kind == "wall")


def test_part_s_default_move_takes_the_highest_card_and_reserves_bought_tiles():
    s = start(3)
    seat = s.current
    set_market(s, ["A07", "A14", "A22", "A50"])
    set_hand(s, seat, ["DE8", "DI9", "DI1"])
    s.display[:] = ["DI3", "DU7", "FL7", "DE2"]
    assert [str(m) for m in default_moves(s, seat)] == ["take 2"]  # 7 at position 2
    apply(s, seat, "buy A14 pay DI9,DI1")  # not exact: no further action
    moves = default_moves(s, seat)
    assert [str(m) for m in moves] == ["place A14 reserve"]
    events = decide(s, seat, moves, timeout=True)
    assert [e["move"] for e in events if "move" in e] == ["place A14 reserve"]
    assert all(e.get("timeout") for e in events if "move" in e)
    s2 = start(3)
    s2.display.clear()
    s2.reserves[s2.current] = []
    assert [str(m) for m in default_moves(s2, s2.current)] == ["end"]
    assert default_moves(s2, (s2.current + 1) % 3) == []


def test_part_s_default_move_after_an_exact_purchase_ends_the_turn():
    """The extra action is optional (Decision A-3c): a seat that timed out takes none."""
    s = start(3)
    seat = s.current
    set_market(s, ["A07", "A14", "A22", "A50"])
    set_hand(s, seat, ["DE8"])
    s.display[:] = ["DI3", "DU7", "FL7", "DE2"]
    apply(s, seat, "buy A07 pay DE8")
    moves = default_moves(s, seat)
    assert [str(m) for m in moves] == ["end", "place A07 reserve"]
    events = decide(s, seat, moves, timeout=True)
    assert "money_taken" not in types_of(events)
    assert s.hands[seat] == {}


def _empty_display(can_buy: bool):
    s = start(3)
    seat = s.current
    set_market(s, ["A07", "A14", "A22", "A50"])
    set_hand(s, seat, ["DE8"] if can_buy else ["DE1"])
    s.display.clear()
    return s, seat


def test_part_s_no_pass_while_the_seat_can_buy():
    """Passing ('end' without an action) only when a seat can do nothing at all, or for a
    timeout; a seat that can act must act (A-3)."""
    s, seat = _empty_display(can_buy=True)
    assert Move("end") not in legal_moves(s, seat)
    with pytest.raises(RuleViolation) as err:
        apply(s, seat, "end")
    assert err.value.rule == "A-3" and "nothing to buy" in err.value.message
    assert Move("end") in legal_moves(s, seat, timeout=True)
    events = decide(s, seat, [Move("end")], timeout=True)
    assert events[0]["timeout"] and types_of(events)[-1] == "turn_started"
    assert [str(m) for m in default_moves(s, seat)] == ["end"]


def test_part_s_a_seat_without_any_action_may_pass():
    s, seat = _empty_display(can_buy=False)
    assert legal_moves(s, seat) == [Move("end")]
    events = apply(s, seat, "end")
    assert types_of(events)[:1] == ["actions_ended"] and s.current != seat
    # A redesign is an action too: with a tile in the reserve that fits, no pass.
    s, seat = _empty_display(can_buy=False)
    s.reserves[seat] = ["A30"]
    s.bags["alhambra"].remove("A30")
    assert Move("end") not in legal_moves(s, seat)
    with pytest.raises(RuleViolation):
        apply(s, seat, "end")


def test_a3_1_taking_money_takes_at_least_one_card():
    with pytest.raises(ValueError, match="needs 'positions'"):
        Move("take")
    with pytest.raises(ValueError, match="needs 'positions'"):
        Move.from_json({"action": "take", "positions": []})
    with pytest.raises(NotationError):
        parse_move("take")
