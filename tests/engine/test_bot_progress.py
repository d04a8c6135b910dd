"""Games between bots end (issue 20, point 8): a bot redesigns only to build, so no bot
undoes its own redesign and no position comes back; a sweep of bot games over every
variant and player count ends within a bound of moves."""

from __future__ import annotations

import random

import pytest

from engine import legal_moves, new_game, play, replay
from engine.bots import choose
from engine.bots.evaluate import Cache
from engine.bots.progress import building
from engine.moves import Move
from engine.state import State
from engine.variants import VARIANTS

#: Twice the longest game of the sweep below (477 moves: a combined game of random bots;
#: greedy and strong games are shorter).
MAX_MOVES = 1000


def arena_game(variant: str, levels: list[str], seed: int, max_moves: int = MAX_MOVES
               ) -> tuple[State, list[tuple[int, Move]]]:
    """A game as ``engine.arena.play_game`` plays it (the same seeds), stopped after
    ``max_moves``: its last state and (seat, move) of every move."""
    state = replay(new_game(variant, [f"{lv}{j + 1}" for j, lv in enumerate(levels)], seed))
    rngs = [random.Random(f"{seed}:{j}") for j in range(len(levels))]
    moves: list[tuple[int, Move]] = []
    while state.phase != "over" and len(moves) < max_moves:
        seat = state.current
        move = choose(levels[seat], state, seat, rngs[seat])
        assert move in legal_moves(state, seat)
        moves.append((seat, move))
        play(state, seat, move)
    return state, moves


def undoes(earlier: Move, later: Move) -> bool:
    """``later`` puts back what the redesign ``earlier`` moved."""
    if earlier.tile != later.tile and earlier.other != later.tile:
        return False
    return {earlier.to, later.to} == {"city", "reserve"} or (
        earlier.to == later.to == "swap" and {earlier.tile, earlier.other}
        == {later.tile, later.other})


def no_redesign_undone(moves: list[tuple[int, Move]]) -> bool:
    last: dict[int, Move] = {}
    for seat, move in moves:
        if move.action == "redesign":
            if seat in last and undoes(last[seat], move):
                return False
            last[seat] = move
    return True


@pytest.mark.parametrize(("variant", "levels", "seed"), [
    # python -m engine arena --bots strong,greedy --players 2 --games 20 --seed 202:
    # game 15 looped on 'redesign A16 at 1,-1' / 'redesign A16 reserve'
    ("alhambra", ["greedy", "strong"], 217),
    # the Granada strong-vs-greedy game of seed 309 (G07 in and out, G23 in and out)
    ("granada", ["strong", "greedy"], 309),
])
def test_the_redesign_loops_of_issue_20_end(variant, levels, seed):
    state, moves = arena_game(variant, levels, seed, max_moves=400)
    assert state.phase == "over", [str(m) for _, m in moves[-6:]]
    assert state.scorings_done == 3 and state.winners
    assert no_redesign_undone(moves)


def test_a_bot_never_lowers_its_building():
    """Tiles in the city, then wall length: every move of a bot seat keeps or raises it
    (a redesign raises it), so a bot's own position never comes back."""
    for variant, players, seed in [("alhambra", 3, 1), ("granada", 2, 2),
                                   ("alhambra_granada", 4, 3)]:
        state = replay(new_game(variant, [f"p{i}" for i in range(players)], seed))
        rng = random.Random(seed)
        cache = Cache()
        while state.phase != "over":
            seat = state.current
            level = ("random", "greedy")[seat % 2]
            move = choose(level, state, seat, rng)
            before = building(state, seat, cache)
            play(state, seat, move)
            now = building(state, seat, cache)
            assert now >= before
            if move.action == "redesign":
                assert now > before, move


SWEEP = [(v.name, n) for v in VARIANTS.values()
         for n in range(v.min_players, v.max_players + 1)]


def sweep_games(players: int) -> list[tuple[list[str], int]]:
    """The games of the sweep for ``players``: (levels, seed). Many random games (cheap),
    two of random against greedy, one greedy game, and with two players one strong game
    (strong is costly: a few seconds a game)."""
    seeds = range(1000 * players, 1000 * players + 16)
    games = [(["random"] * players, seed) for seed in seeds]
    games += [([("random", "greedy")[(j + k) % 2] for j in range(players)], seeds[k])
              for k in range(2)]
    games.append((["greedy"] * players, seeds[0]))
    if players == 2:
        games.append((["strong", "greedy"], seeds[1]))
    return games


@pytest.mark.parametrize(("variant", "players"), SWEEP)
def test_bot_games_end_within_a_bound(variant, players):
    """Every variant and player count: each game of ``sweep_games`` ends within
    MAX_MOVES, no bot undoing its own redesign (268 games in all)."""
    for levels, seed in sweep_games(players):
        state, moves = arena_game(variant, levels, seed)
        assert state.phase == "over", (levels, seed, [str(m) for _, m in moves[-6:]])
        assert no_redesign_undone(moves), (levels, seed)
