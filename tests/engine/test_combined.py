"""Alhambra + Granada (RULES.md Part C): both games in one grid per player."""

from collections import Counter

import pytest

from engine import OptionError, RuleViolation, legal_moves, new_game, parse_move, replay
from engine.components import TILES
from engine.scoring import awards

from .helpers import apply, build, set_hand, start, take_out, types_of


def test_c0_two_players_are_refused():
    with pytest.raises(OptionError) as err:
        new_game("alhambra_granada", ["a", "b"], 1)
    assert err.value.field == "players" and "C-0" in str(err.value)


@pytest.mark.parametrize("both,cards", [(False, 108), (True, 216)])
def test_c1a_one_money_deck_of_108_by_default_both_decks_as_an_option(both, cards):
    """Decision C-1a (revised): one deck; ``both_money_decks`` plays with 216 cards."""
    for seed in range(10):
        events = new_game("alhambra_granada", ["a", "b", "c", "d"], seed,
                          {"both_money_decks": both} if both else {})
        assert events[0]["options"]["both_money_decks"] is both
        s = replay(events)
        money = sum(s.hands, Counter()) + Counter(s.display) + Counter(s.deck)
        assert sum(money.values()) == cards + 1  # with scoring card 1
        assert max(money.values()) == cards // 36


def test_c1_scoring_card_1_in_pile_3_and_card_2_set_aside():
    for seed in range(30):
        events = new_game("alhambra_granada", ["a", "b", "c", "d"], seed)
        stacked = next(e for e in events if e["type"] == "deck_stacked")
        assert stacked["set_aside"] == ["S2"] and "S2" not in stacked["deck"]
        deck = stacked["deck"]
        size, extra = divmod(len(deck) - 1, 5)
        bounds = [sum(size + (i < extra) for i in range(k)) for k in range(6)]
        assert bounds[2] <= deck.index("S1") <= bounds[3]
        s = replay(events)
        for space in s.market:
            assert sorted(TILES[t].kind for t in space) == ["alhambra", "granada"]
            granada = next(t for t in space if TILES[t].kind == "granada")
            assert TILES[granada].mask, "C-1: a Granada tile without moats goes back"
            assert s.faces[granada] == 0


def test_c1_a_moatless_granada_tile_at_setup_goes_back_into_the_bag_at_a_random_place():
    """C-1: the tile is mixed back in (recorded as ``tile_returned``), so the bag's top
    after setup is moatless about as often as any tile (10 of 54), not most of the time."""
    moatless_on_top, positions = 0, set()
    for seed in range(200):
        events = new_game("alhambra_granada", ["a", "b", "c"], seed)
        bag = next(e["tiles"] for e in events if e["type"] == "bag_filled"
                   and e["kind"] == "granada")
        for e in events:
            if e["type"] == "tile_returned":
                assert e["kind"] == "granada" and e["tile"] == bag[0]
                assert not TILES[e["tile"]].mask
                assert sorted(e["tiles"]) == sorted(bag)
                positions.add(e["tiles"].index(e["tile"]))
                bag = e["tiles"]
            elif e["type"] == "market_refilled" and TILES[e["tile"]].kind == "granada":
                assert e["tile"] == bag[0] and TILES[e["tile"]].mask
                bag = bag[1:]
        s = replay(events)
        assert s.bags["granada"] == bag
        moatless_on_top += not TILES[bag[0]].mask
    assert moatless_on_top / 200 < 0.3  # 10/50 expected; 65% when they stayed on top
    assert len(positions) > 20  # mixed in anywhere, not put back on top or at the bottom


def test_c1_scoring_card_2_joins_pile_2_at_the_first_reshuffle():
    s = start(3, variant="alhambra_granada")
    seat = s.current
    s.discard[:] = [c for c in s.deck if c != "S1"]
    s.deck[:] = []
    events = apply(s, seat, "take 1")
    reshuffle = next(e for e in events if e["type"] == "deck_reshuffled")
    new = reshuffle["deck"]
    assert reshuffle["set_aside"] == [] and s.set_aside == []
    size, extra = divmod(len(new) - 1, 5)
    bounds = [sum(size + (i < extra) for i in range(k)) for k in range(6)]
    assert bounds[1] <= new.index("S2") <= bounds[2]


def _combined_grid():
    """Seat 0: A06 (east wall) east of the start, G16 (west moat, the first Granada tile)
    east of it, and G01 (no moats) south of G16."""
    s = start(3, variant="alhambra_granada")
    build(s, 0, {(1, 0): "A06", (2, 0): "G16", (2, 1): "G01"}, faces={"G16": 0, "G01": 0})
    return s


def test_c3_rulebook_a_cell_needing_both_an_alhambra_and_a_granada_tile_cannot_be_built():
    s = _combined_grid()
    g = s.grids[0]
    assert g.violations() == []
    # (1,1): A06 above it is open (only an Alhambra tile fits), G01 east of it is open
    # (only a Granada tile fits).
    assert g.constraint((1, 1), "alhambra") is None and g.constraint((1, 1), "granada") is None
    for tile in ("A07", "A14", "G06", "G20"):
        assert (1, 1) not in g.legal_positions(tile)
    rule, why = g.placement_error("A07", (1, 1))
    assert rule == "C-3" and "wall and a moat" in why


def test_c3_the_first_granada_tile_must_meet_a_wall_with_a_moat_and_then_stays():
    s = start(3, variant="alhambra_granada")
    g = s.grids[0]
    assert g.placement_error("G16", (1, 0))[0] == "C-3"  # the start tile has no wall
    build(s, 0, {(1, 0): "A06"})
    assert g.placement_error("G16", (2, 0)) is None  # its west moat meets A06's wall
    assert (2, 0) in g.legal_positions("G16")
    build(s, 0, {(2, 0): "G16"}, faces={"G16": 0})
    assert g.roots == {"alhambra": "A00", "granada": "G16"}
    assert "start tile" in g.removal_error("G16")[1]  # the Granada start tile stays
    rule, why = g.removal_error("A06")
    assert rule == "C-3a" and "pieces" in why  # without it G16 would touch nothing


def test_c3a_a_redesign_may_not_split_the_grid():
    """Decision C-3a: without A06 the Granada part (G16, G01) would float apart."""
    s = start(3, variant="alhambra_granada")
    seat = s.current
    build(s, seat, {(1, 0): "A06", (2, 0): "G16", (2, 1): "G01"}, faces={"G16": 0, "G01": 0})
    assert parse_move("redesign A06 reserve") not in legal_moves(s, seat)
    with pytest.raises(RuleViolation) as err:
        apply(s, seat, "redesign A06 reserve")
    assert err.value.rule == "C-3a" and "fall apart" in err.value.message
    apply(s, seat, "redesign G01 reserve")  # G16 still touches A06


def test_c3_a_granada_tile_must_reach_the_granada_start_tile():
    s = _combined_grid()
    build(s, 0, {(-1, 0): "A12"})  # west wall
    rule, why = s.grids[0].placement_error("G02", (-2, 0))  # its east moat meets that wall
    assert rule == "C-3" and "could not be reached on foot" in why


def test_c4_a_wall_facing_a_moat_counts_in_all_three_lines():
    s = _combined_grid()
    lines = {a.kind: a.points for a in awards(s, 1) if a.seat == 0 and a.kind != "majority"}
    assert lines == {"wall": 1, "moat": 1, "combined": 2}


def test_c2_two_tiles_a_space_both_bought_with_one_currency_up_to_nine_actions():
    s = start(3, variant="alhambra_granada", seed=4)
    seat = s.current
    hand, buys = [], []
    for space in s.market:
        for tile in space:
            price = s.face(tile).value
            currency = ["DE", "DI", "DU", "FL"][s.market.index(space)]
            cards = [f"{currency}9", f"{currency}{price - 9}"] if price > 9 else \
                [f"{currency}{price}"]
            hand += cards
            buys.append(f"buy {tile} pay {','.join(cards)}")
    set_hand(s, seat, hand)
    apply(s, seat, "; ".join(buys))
    assert s.can_act and len(s.pending) == 8 and all(not space for space in s.market)
    apply(s, seat, "take 1")  # the ninth action
    assert not s.can_act and s.phase == "placement"


def test_c5_the_game_ends_when_a_space_has_neither_tile_and_both_may_go_to_one_player():
    s = start(3, variant="alhambra_granada", seed=6)
    seat = s.current
    for bag in s.bags.values():
        bag.clear()
    for k in range(3):
        set_hand(s, k, [])
    first = s.market[0]
    a_tile = next(t for t in first if TILES[t].kind == "alhambra")
    g_tile = next(t for t in first if TILES[t].kind == "granada")
    set_hand(s, seat, [f"DE{min(9, s.face(a_tile).value)}"] * 2 + ["DI9", "DI9"])
    price = s.face(a_tile).value
    pay = ["DE9", f"DE{price - 9}"] if price > 9 else [f"DE{price}"]
    set_hand(s, seat, pay + ["DI9", "DI9"])
    apply(s, seat, f"buy {a_tile} pay {','.join(pay)}; place {a_tile} reserve")
    # Space 1 still holds its Granada tile: the game goes on.
    assert s.phase == "action" and s.market[0] == [g_tile]
    nxt = s.current
    set_hand(s, nxt, ["DE9", "DE9"])
    price = s.face(g_tile).value
    pay = ["DE9", f"DE{price - 9}"] if price > 9 else [f"DE{price}"]
    set_hand(s, nxt, pay)
    events = apply(s, nxt, f"buy {g_tile} pay {','.join(pay)}; place {g_tile} reserve")
    assert "game_ending" in types_of(events)
    # Space 2 (dirham): the seat with DI9,DI9 gets both of its tiles.
    awarded = [e for e in events if e["type"] == "tile_awarded"]
    assert {e["space"] for e in awarded} == {2} and len(awarded) == 2
    assert {e["seat"] for e in awarded} == {seat} and len(s.pending) == 2
    assert {m.to for m in legal_moves(s, seat)} == {"city", "reserve"}


def test_c_tiles_of_both_games_are_taken_out_by_kind():
    s = start(3, variant="alhambra_granada")
    assert set(s.bags) == {"alhambra", "granada"}
    assert len(s.bags["alhambra"]) == 50
    taken = take_out(s, s.bags["granada"][0], 1)
    assert s.faces[taken] == 1
    with pytest.raises(RuleViolation):
        apply(s, s.current, f"place {taken} reserve")


def test_c2_the_marker_switches_only_when_granada_tiles_are_refilled():
    s = start(3, variant="alhambra_granada", seed=2)
    assert s.marker == 1
    seat = s.current
    space = s.market[0]
    a_tile = next(t for t in space if TILES[t].kind == "alhambra")
    price = s.face(a_tile).value
    pay = ["DE9", f"DE{price - 9}"] if price > 9 else [f"DE{price}"]
    set_hand(s, seat, pay)
    events = apply(s, seat, f"buy {a_tile} pay {','.join(pay)}; place {a_tile} reserve")
    refills = [e for e in events if e["type"] == "market_refilled"]
    assert [TILES[e["tile"]].kind for e in refills] == ["alhambra"]
    assert "marker_switched" not in types_of(events) and s.marker == 1
