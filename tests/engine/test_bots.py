"""Bots (issue 15): legal moves only, complete games, decisions from what a seat may know
(A-7), the arena command, and greedy's grasp of the rules in constructed positions."""

from __future__ import annotations

import random
import re
from collections import Counter

import pytest

from engine import legal_moves, new_game, play, redact_event, replay
from engine.bots import LEVELS, choose, random_move
from engine.bots.greedy import greedy_move
from engine.bots.strong import strong_move
from engine.cli import main
from engine.components import SCORING_CARDS
from engine.variants import VARIANTS

from .helpers import build, set_hand, set_market, start

GAMES = [(v.name, n) for v in VARIANTS.values()
         for n in range(v.min_players, v.max_players + 1)]


def random_states(variant: str, players: int, seed: int, count: int):
    """``count`` states along a game of random moves, the seat to move in each."""
    events = new_game(variant, [f"p{i}" for i in range(players)], seed)
    state = replay(events)
    rng = random.Random(seed)
    stops = sorted(rng.sample(range(1, 150), count))
    out, step = [], 0
    while state.phase != "over" and len(out) < count:
        if step in stops:
            out.append(state.copy())
        play(state, state.current, random_move(state, state.current, rng))
        step += 1
    return out


def test_levels_are_random_greedy_strong():
    assert LEVELS == ("random", "greedy", "strong")
    with pytest.raises(ValueError, match="unknown bot level 'clever'"):
        choose("clever", start(), 0, random.Random(1))


@pytest.mark.parametrize(("variant", "players"), GAMES)
def test_greedy_plays_only_legal_moves(variant, players):
    for state in random_states(variant, players, seed=players * 7, count=10):
        seat = state.current
        assert choose("greedy", state, seat, random.Random(1)) in legal_moves(state, seat)


@pytest.mark.parametrize(("variant", "players"), [("alhambra", 2), ("granada", 4),
                                                  ("alhambra_granada", 3)])
def test_strong_plays_only_legal_moves(variant, players):
    for state in random_states(variant, players, seed=11, count=4):
        seat = state.current
        assert choose("strong", state, seat, random.Random(1)) in legal_moves(state, seat)


def play_out(variant: str, levels: list[str], seed: int, worlds: int = 1):
    """A complete game with ``levels[j]`` in seat ``j``, every move checked legal (strong
    on a budget of ``worlds``, two candidates, to keep the test fast)."""
    state = replay(new_game(variant, levels, seed))
    rng = random.Random(seed)
    while state.phase != "over":
        seat = state.current
        if levels[seat] == "strong":
            move = strong_move(state, seat, rng, worlds=worlds, candidates=2)
        else:
            move = choose(levels[seat], state, seat, rng)
        assert move in legal_moves(state, seat)
        play(state, seat, move)
    return state


@pytest.mark.parametrize(("variant", "levels"), [
    ("alhambra", ["strong", "greedy"]),
    ("granada", ["greedy", "strong"]),
    ("alhambra_granada", ["random", "greedy", "random"]),
])
def test_games_between_the_levels_end(variant, levels):
    state = play_out(variant, levels, seed=3)
    assert state.winners and state.scorings_done == 3


def hidden_twin(state, seed: int):
    """``state`` with every secret changed (A-7): deck order with the scoring cards
    elsewhere, bag orders, seed. Hands stay: they follow from public events."""
    twin = state.copy()
    rng = random.Random(seed)
    cards = [c for c in twin.deck if c not in SCORING_CARDS]
    rng.shuffle(cards)
    for card in (c for c in twin.deck if c in SCORING_CARDS):
        cards.insert(rng.randint(0, len(cards)), card)
    twin.deck = cards
    for bag in twin.bags.values():
        rng.shuffle(bag)
    twin.seed = state.seed + 1000
    return twin


@pytest.mark.parametrize(("variant", "players"), [("alhambra", 2), ("granada", 3),
                                                  ("alhambra_granada", 4)])
def test_a7_bots_cannot_tell_states_that_differ_only_in_secrets(variant, players):
    for state in random_states(variant, players, seed=5, count=3):
        twin = hidden_twin(state, seed=9)
        assert twin.deck != state.deck or not state.deck
        seat = state.current
        for level in LEVELS:
            assert (choose(level, state, seat, random.Random(42))
                    == choose(level, twin, seat, random.Random(42)))


@pytest.mark.parametrize("variant", ["alhambra", "granada"])
def test_a7_every_hand_follows_from_the_events_a_seat_sees(variant):
    """Why bots may read the other hands: each is the sum of public events (money dealt
    face up, taken from the display, paid for tiles and flips), as redacted for a seat."""
    state = replay(new_game(variant, ["a", "b", "c"], 8))
    rng = random.Random(8)
    events = []
    for _ in range(120):
        events += play(state, state.current, random_move(state, state.current, rng))
    seen = [redact_event(e, 0) for e in new_game(variant, ["a", "b", "c"], 8) + events]
    hands = [Counter() for _ in range(3)]
    for e in seen:
        if e["type"] in ("money_dealt", "money_taken"):
            hands[e["seat"]].update(e["cards"])
        elif e["type"] in ("tile_bought", "tile_placed"):
            hands[e["seat"]].subtract(e.get("cards", []))
    assert [+h for h in hands] == [+h for h in state.hands]


def test_a3_2_greedy_pays_exactly_to_keep_another_action():
    state = start(3, seed=2)
    seat = state.current
    set_market(state, ["A44", None, None, None])  # a tower for 7 denars
    assert state.face("A44").value == 7
    set_hand(state, seat, ["DE3", "DE4", "DE5"])
    move = greedy_move(state, seat)
    assert move.action == "buy" and move.tile == "A44"
    assert move.cards == ("DE4", "DE3")  # 7 exactly: another action, DE5 kept
    events = play(state, seat, move)
    assert events[-1]["exact"] and state.can_act
    assert choose("greedy", state, seat, random.Random(1)) in legal_moves(state, seat)


def test_a5_1_greedy_buys_the_tile_that_wins_a_majority():
    """Both tiles can be paid exactly; the tower breaks the tie for towers with the next
    seat, the pavilion would only make a distant second to its three."""
    state = start(3, seed=2)
    seat = state.current
    rival = (seat + 1) % 3
    set_market(state, ["A07", "A50", None, None])  # pavilion 8 (denar), tower 11 (dirham)
    build(state, seat, {(1, 0): "A53"})  # a tower each; the rival leads pavilions 3 to 0
    build(state, rival, {(1, 0): "A49", (0, 1): "A01", (0, 2): "A02", (0, 3): "A03"})
    set_hand(state, seat, ["DE8", "DI9", "DI2"])
    move = greedy_move(state, seat)
    assert (move.action, move.tile, move.cards) == ("buy", "A50", ("DI9", "DI2"))


def test_arena_prints_win_rates_with_intervals_margins_and_times(capsys):
    assert main(["arena", "--bots", "greedy,random", "--players", "2", "--games", "2",
                 "--seed", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == ("arena: alhambra, 2 players, 2 games from seed 1, bots "
                        "greedy,random (seats rotated)")
    pattern = (r"(\w+) +wins ([\d.]+)/2 = ([\d.]+)% \(95% CI ([\d.]+)-([\d.]+)%\)  "
               r"mean margin ([+-][\d.]+)  move p50 [\d.]+ s p95 [\d.]+ s "
               r"\(cpu p50 [\d.]+ s p95 [\d.]+ s\)")
    rows = [re.fullmatch(pattern, line) for line in lines[1:]]
    assert all(rows) and [r[1] for r in rows] == ["greedy", "random"]
    assert sum(float(r[2]) for r in rows) == 2
    assert float(rows[0][6]) == -float(rows[1][6])
    assert float(rows[0][4]) <= float(rows[0][3]) <= float(rows[0][5])


def test_arena_refuses_unknown_levels_and_player_counts(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["arena", "--bots", "greedy,clever"])
    assert exit_.value.code == 2 and "--bots takes distinct levels" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["arena", "--bots", "greedy,random", "--variant", "alhambra_granada",
              "--players", "2"])
    assert "alhambra_granada takes 3-6 players" in capsys.readouterr().err


def test_wilson_interval():
    from engine.arena import wilson
    low, high = wilson(65, 100)
    assert round(low, 3) == 0.553 and round(high, 3) == 0.736
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == pytest.approx(1.0)
