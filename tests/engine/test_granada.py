"""Granada (RULES.md Part G): faces, the black marker, flipping, moats, majorities, Juan."""

import pytest

from engine import NotationError, RuleViolation, legal_moves, new_game, parse_move, replay, view
from engine.components import GRANADA_TILES
from engine.scoring import Award, awards

from .helpers import apply, build, set_hand, set_market, start, types_of

SCHOOL_FRONTS = {2: "G08", 4: "G17", 6: "G26", 8: "G35", 10: "G44", 12: "G53"}
SCHOOL_BACKS = {3: "G07", 5: "G13", 7: "G24", 9: "G29", 11: "G37", 13: "G48"}


def schools(*values):
    """Tile ids and faces for school faces of the given values."""
    return [(SCHOOL_FRONTS[v], 0) if v % 2 == 0 else (SCHOOL_BACKS[v], 1) for v in values]


def city(state, seat, tiles):
    """Build (tile, face) pairs in a column south of the start tile."""
    build(state, seat, {(0, i + 1): t for i, (t, _) in enumerate(tiles)},
          faces=dict(tiles))


def school_points(state, scoring):
    return {a.seat: a.points for a in awards(state, scoring) if a.building == "school"}


def test_g1_tile_data_is_read_as_data():
    assert len(GRANADA_TILES) == 54
    for t in GRANADA_TILES:
        front, back = t.faces
        assert front.value % 2 == 0 and back.value == front.value + 1
        assert front.type != back.type


def test_g5_rulebook_first_scoring_3_schools_against_2_and_2_scores_n_7():
    s = start(3, variant="granada")
    city(s, 0, schools(2, 4, 6))
    city(s, 1, schools(8, 10))
    city(s, 2, schools(12, 3))
    assert school_points(s, 1) == {0: 7}


def test_g5_rulebook_second_scoring_18_and_9():
    s = start(3, variant="granada")
    city(s, 0, schools(2, 4, 6, 8))
    city(s, 1, schools(10, 12, 3))
    city(s, 2, schools(5, 7))
    assert school_points(s, 2) == {0: 18, 1: 9}


def test_g5_rulebook_third_scoring_tie_broken_by_the_12_over_the_9():
    s = start(3, variant="granada")
    city(s, 0, schools(9, 2, 4, 6))    # blue: 4 schools, best 9
    city(s, 1, schools(12, 8, 3, 5))   # green: 4 schools, best 12
    city(s, 2, schools(7, 11))         # red: 2 schools
    assert school_points(s, 3) == {1: 30, 0: 20, 2: 10}


def test_g5_simple_scoring_uses_fixed_points_and_the_same_tie_break():
    s = start(3, variant="granada", simple_scoring=True)
    city(s, 0, schools(9, 2, 4, 6))
    city(s, 1, schools(12, 8, 3, 5))
    city(s, 2, schools(7, 11))
    assert school_points(s, 3) == {1: 18, 0: 10, 2: 3}
    assert school_points(s, 2) == {1: 10, 0: 3}
    assert school_points(s, 1) == {1: 3}


def test_g5_moats_score_like_walls_and_awards_name_them():
    s = start(3, variant="granada")
    build(s, 0, {(0, 1): "G23"})  # a moat on its south side
    moats = [a for a in awards(s, 1) if a.kind == "moat"]
    assert moats == [Award(seat=0, kind="moat", building=None, points=1)]


def test_g2_g3_marker_first_tiles_even_then_alternating_after_each_refill():
    events = new_game("granada", ["a", "b", "c"], 2)
    setup = [e for e in events if e["type"] == "market_refilled"]
    assert [e["face"] for e in setup] == [0, 0, 0, 0]
    s = replay(events)
    assert s.marker == 1  # odd after the first refill
    faces_seen = []
    for _ in range(4):
        seat = s.current
        tile = s.market[0][0]
        set_hand(s, seat, [f"DE{min(9, s.face(tile).value)}"] * 2)
        price = s.face(tile).value
        pay = ",".join(["DE9", f"DE{price - 9}"]) if price > 9 else f"DE{price}"
        set_hand(s, seat, pay.split(","))
        marker = s.marker
        events = apply(s, seat, f"buy {tile} pay {pay}; place {tile} reserve")
        refill = next(e for e in events if e["type"] == "market_refilled")
        faces_seen.append(refill["face"])
        assert refill["face"] == marker
        assert s.faces[refill["tile"]] == marker
        assert s.marker == 1 - marker  # G-3: switched after a refill that placed a tile
    assert faces_seen == [1, 0, 1, 0]
    seat = s.current
    marker = s.marker
    events = apply(s, seat, "take 1")
    assert "market_refilled" not in types_of(events)
    assert s.marker == marker  # Decision G-3a: no tile placed, no switch


def _bought(players=3, tiles=("G01", "G02"), hand=("DE2", "DI2")):
    """The current seat has bought ``tiles`` (on market spaces 1 and 2) exactly."""
    s = start(players, variant="granada", seed=3)
    seat = s.current
    set_market(s, [tiles[0], tiles[1], "G03", "G04"])
    for t in tiles:
        s.faces[t] = 0
    set_hand(s, seat, list(hand))
    apply(s, seat, f"buy {tiles[0]} pay {hand[0]}; buy {tiles[1]} pay {hand[1]}")
    return s, seat


def test_g3_rulebook_flip_paid_3_in_one_currency_then_5_in_another():
    s, seat = _bought()
    s.hands[seat].update(["DU3", "FL5", "FL4", "DE1"])
    apply(s, seat, "place G01:back at 0,1 pay DU3")
    assert s.faces["G01"] == 1 and s.face("G01").type == "bath_house"
    assert s.phase == "placement"  # an exact 3 grants no extra action
    legal = legal_moves(s, seat)
    flips = {m.cards for m in legal if m.tile == "G02" and m.face == 1 and m.to == "city"}
    assert flips == {("FL5",), ("FL4",)}  # no way to pay exactly 3 any more
    events = apply(s, seat, "place G02:back at 1,0 pay FL5")
    placed = next(e for e in events if e["type"] == "tile_placed")
    assert placed["face"] == 1 and placed["cards"] == ["FL5"]
    assert s.hands[seat] == {"FL4": 1, "DE1": 1}
    assert {"DU3", "FL5"} <= set(s.discard)


@pytest.mark.parametrize("text,words", [
    ("place G01:back at 0,1", "you first pay at least 3"),
    ("place G01:back at 0,1 pay DE1", "total 1"),
    ("place G01:back at 0,1 pay DE1,DI2", "one currency"),
    ("place G01 at 0,1 pay DE3", "not being flipped"),
    ("place G01:back reserve pay DE3", "free"),
])
def test_g3_flips_refused_with_their_rule(text, words):
    s, seat = _bought()
    s.hands[seat].update(["DE1", "DI2", "DE3"])
    with pytest.raises(RuleViolation) as err:
        apply(s, seat, text)
    assert err.value.rule == "G-3" and words in err.value.message


def test_g3_free_turn_into_the_reserve_and_never_again_there_or_in_the_city():
    s, seat = _bought()
    apply(s, seat, "place G01:back reserve; place G02 at 0,1")
    assert s.faces["G01"] == 1 and s.reserves[seat] == ["G01"]
    s2 = s.copy()
    s2.current, s2.phase, s2.can_act = seat, "action", True
    assert not any(m.face is not None for m in legal_moves(s2, seat))
    with pytest.raises(RuleViolation) as err:
        apply(s2, seat, "place G01:front at 1,0 pay DE3")  # no longer a bought tile
    assert err.value.rule == "A-3.4"
    with pytest.raises(NotationError):
        parse_move("redesign G01:front at 1,0")  # redesigns have no face at all


def test_g6_no_flip_in_the_game_end_distribution():
    s = start(3, variant="granada", seed=5)
    seat = s.current
    set_market(s, ["G01", "G02", "G03", "G04"])
    s.bags["granada"].clear()
    for k in range(3):
        set_hand(s, k, [])
    set_hand(s, seat, ["DE2", "DI9", "DU3"])
    apply(s, seat, "buy G01 pay DE2; place G01 reserve")
    assert s.phase == "distribution" and s.pending == ["G02"]
    err = pytest.raises(RuleViolation, apply, s, seat, "place G02:back at 0,1 pay DU3").value
    assert err.rule == "G-6"
    assert all(m.face is None and not m.cards for m in legal_moves(s, seat))


def test_g4_moats_must_meet_moats():
    s, seat = _bought(tiles=("G01", "G02"))  # G02 has a moat on its east side
    apply(s, seat, "place G02 at 1,0")
    with pytest.raises(RuleViolation) as err:
        apply(s, seat, "place G01 at 2,0")
    assert err.value.rule == "G-4" and "has no moat" in err.value.message


def test_g7_juan_two_players_72_cards_first_six_tiles_even_side_up():
    s = start(2, variant="granada", seed=8)
    money = sum(s.hands[0].values()) + sum(s.hands[1].values()) + len(s.display) + len(s.deck)
    assert money == 72 + 2
    assert len(s.neutral) == 6 and all(s.faces[t] == 0 for t in s.neutral)
    assert s.variant.neutral_name == "Juan"


def test_g7_juan_draws_on_the_marker_face_without_switching_it():
    s, seat = _bought(players=2)
    s.deck[:0] = ["S1"]
    marker_before = s.marker
    events = apply(s, seat, "take 1; place G01 juan; place G02 reserve")
    switch_after_refill = [e for e in events if e["type"] == "marker_switched"]
    draw = next(e for e in events if e["type"] == "neutral_received")
    assert len(draw["tiles"]) == 6
    assert draw["faces"] == [1 - marker_before] * 6  # the marker's face after the refill
    assert len(switch_after_refill) == 1  # only the refill switched it (Decision G-7a)


def test_g7_a_tile_given_to_juan_may_be_flipped_for_a_payment():
    s, seat = _bought(players=2)
    s.hands[seat].update(["DI4"])
    apply(s, seat, "place G01:back juan pay DI4")
    assert "G01" in s.neutral and s.faces["G01"] == 1
    assert parse_move("place G02 juan") in legal_moves(s, seat)


def test_g1_the_face_up_and_the_public_back_show_everywhere_in_the_view():
    s, seat = _bought()
    apply(s, seat, "place G01:back reserve")
    v = view(s, seat)
    reserve = v["seats"][seat]["reserve"][0]
    assert reserve == {"id": "G01", "type": "bath_house", "value": 3, "moats": [],
                       "face": "back", "other_side": {"type": "arena", "value": 2}}
    assert v["pending"][0]["id"] == "G02" and v["pending"][0]["face"] == "front"
    assert v["marker"] in ("front", "back")
    market = [t for space in v["market"] for t in space["tiles"]]
    assert all("other_side" in t for t in market)


@pytest.mark.parametrize("text", ["place G01:front at 0,1", "place G01:front reserve"])
def test_g3_naming_the_face_a_tile_shows_is_refused_one_spelling_as_in_legal_moves(text):
    """Issue 25: a named face turns the tile over (G-3); the face it already shows is not
    named, so what the parser and decide accept is what legal_moves lists."""
    s, seat = _bought()
    assert text.replace(":front", "") in {str(m) for m in legal_moves(s, seat)}
    assert text not in {str(m) for m in legal_moves(s, seat)}
    with pytest.raises(RuleViolation) as err:
        apply(s, seat, text)
    assert err.value.rule == "G-3" and "already shows its front" in err.value.message
    apply(s, seat, text.replace(":front", ""))


def test_g7_juan_is_the_only_spelling_for_a_granada_tile_and_dirk_for_an_alhambra_one():
    """Issue 25: 'place A17 juan' was read as 'place A17 dirk'; each tile has one neutral
    name (A-8 Dirk, G-7 Juan), as legal_moves writes it."""
    s, seat = _bought(players=2)
    assert "place G01 juan" in {str(m) for m in legal_moves(s, seat)}
    assert str(parse_move("place G01 Juan")) == "place G01 juan"
    with pytest.raises(NotationError, match="'juan'.*Granada tile"):
        parse_move("place G01 dirk")
    with pytest.raises(NotationError, match="'dirk'.*Alhambra tile"):
        parse_move("place A17 juan pay DE3")
    assert str(parse_move("place A17 dirk")) == "place A17 dirk"
