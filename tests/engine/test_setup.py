"""Setup (A-2) and the two-player changes (A-8)."""

from collections import Counter

import pytest

from engine import OptionError, new_game, redact_event, replay
from engine.components import card_value


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_a2_4_starting_money_is_dealt_until_20_to_28(players):
    for seed in range(60):
        events = new_game("alhambra", [f"p{i}" for i in range(players)], seed)
        deals = [e for e in events if e["type"] == "money_dealt"]
        assert [d["seat"] for d in deals] == list(range(players))
        for d in deals:
            values = [card_value(c) for c in d["cards"]]
            assert 20 <= sum(values) <= 28
            assert sum(values) == d["total"] and len(values) == d["count"]
            assert sum(values[:-1]) < 20  # dealt one at a time until 20 or more


def test_a2_4_starting_money_is_public_every_seat_sees_every_deal():
    """The cards are dealt face up (A-2 step 4, Part S): redaction keeps them."""
    events = new_game("alhambra", ["a", "b", "c"], 7)
    deals = [e for e in events if e["type"] == "money_dealt"]
    for seat in (None, 0, 1, 2):
        for deal in deals:
            assert redact_event(deal, seat)["cards"] == deal["cards"]


def test_a2_5_start_player_has_fewest_cards_then_lowest_total_then_earliest_seat():
    seen_tiebreaks = Counter()
    for seed in range(300):
        events = new_game("alhambra", ["a", "b", "c", "d", "e", "f"], seed)
        deals = {e["seat"]: (e["count"], e["total"]) for e in events if e["type"] == "money_dealt"}
        first = next(e["seat"] for e in events if e["type"] == "turn_started")
        fewest = min(c for c, _ in deals.values())
        with_fewest = [s for s, (c, _) in deals.items() if c == fewest]
        lowest = min(deals[s][1] for s in with_fewest)
        candidates = [s for s in with_fewest if deals[s][1] == lowest]
        assert first == min(candidates)  # Decision A-2a: the earliest seat
        seen_tiebreaks[len(with_fewest) > 1, len(candidates) > 1] += 1
    # The seeds exercise the count rule, the total tie-break and the seat tie-break.
    assert seen_tiebreaks[True, False] and seen_tiebreaks[True, True]


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_a2_7_scoring_cards_lie_in_piles_2_and_4(players):
    for seed in range(40):
        events = new_game("alhambra", [f"p{i}" for i in range(players)], seed)
        deck = next(e["deck"] for e in events if e["type"] == "deck_stacked")
        rest = len(deck) - 2
        size, extra = divmod(rest, 5)
        sizes = [size + (i < extra) for i in range(5)]  # Decision A-2b: larger piles first
        bounds = [sum(sizes[:i]) for i in range(6)]
        s1, s2 = deck.index("S1"), deck.index("S2")
        # S1 is inside pile 2 (which grows by one), S2 inside pile 4 (after S1 shifted it).
        assert bounds[1] <= s1 <= bounds[2]
        assert bounds[3] + 1 <= s2 <= bounds[4] + 1
        assert Counter(deck) - Counter({"S1": 1, "S2": 1}) == Counter(
            c for c in deck if c not in ("S1", "S2"))


def test_a2_setup_fills_market_and_display_and_deck():
    state = replay(new_game("alhambra", ["a", "b", "c"], 5))
    assert all(len(space) == 1 for space in state.market)
    assert len(state.display) == 4
    assert len(state.bags["alhambra"]) == 54 - 4
    money = sum(state.hands, Counter()) + Counter(state.display) + Counter(state.deck)
    assert sum(money.values()) == 108 + 2  # with the two scoring cards
    assert state.phase == "action"


def test_a8_two_players_use_72_cards_and_dirk_draws_6_tiles():
    state = replay(new_game("alhambra", ["a", "b"], 3))
    money = sum(state.hands, Counter()) + Counter(state.display) + Counter(state.deck)
    assert sum(money.values()) == 72 + 2
    assert max(money[c] for c in money if c not in ("S1", "S2")) == 2
    assert len(state.neutral) == 6
    assert len(state.bags["alhambra"]) == 54 - 4 - 6


@pytest.mark.parametrize("seats,field", [(["a"], "players"), (["a"] * 7, "players")])
def test_player_count_is_checked(seats, field):
    with pytest.raises(OptionError) as err:
        new_game("alhambra", seats, 1)
    assert err.value.field == field


def test_unknown_variant_and_option_are_refused():
    with pytest.raises(OptionError) as err:
        new_game("carcassonne", ["a", "b"], 1)
    assert err.value.field == "variant"
    with pytest.raises(OptionError) as err:
        new_game("alhambra", ["a", "b"], 1, {"fast": True})
    assert err.value.field == "options.fast"
    with pytest.raises(OptionError) as err:
        new_game("alhambra", ["a", "b"], 1, {"dirk_third_draw_cap": "yes"})
    assert err.value.field == "options.dirk_third_draw_cap"
