"""What the engine keeps for speed agrees with what it would compute from scratch: each
grid's frontier (kept up to date as tiles come and go), its cached checks and lines, and
the moves ``legal_moves`` makes without Move's checks of client input."""

import dataclasses
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Move, decide, evolve, legal_moves, new_game, replay
from engine.bots import random_move
from engine.bots.evaluate import Cache, after
from engine.bots.progress import building_redesigns, builds
from engine.components import CURRENCIES, money_cards
from engine.grid import Grid
from engine.payments import held, holdings
from engine.variants import VARIANTS


def _games(variant: str, players: int, seed: int):
    """Each state of a random game, moves decided on a copy and folded in (as the service
    does), with the seat to move and its legal moves."""
    state = replay(new_game(variant, [f"p{i}" for i in range(players)], seed))
    rng = random.Random(seed)
    while state.phase != "over":
        seat = state.current
        yield state, seat, legal_moves(state, seat)
        for event in decide(state, seat, random_move(state, seat, rng)):
            evolve(state, event)


def _rebuilt(grid: Grid) -> Grid:
    """The same tiles put into a new grid: nothing found or cached yet."""
    fresh = Grid.__new__(Grid)
    fresh.cells, fresh.where, fresh.roots = dict(grid.cells), dict(grid.where), dict(grid.roots)
    fresh.rules, fresh._frontier, fresh._slots, fresh._removable = grid.rules, None, {}, None
    fresh._lines, fresh._trials = {}, {}
    return fresh


@pytest.mark.parametrize("variant,players,seed", [
    ("alhambra", 3, 5), ("granada", 4, 6), ("alhambra_granada", 4, 7), ("alhambra_granada", 6, 8),
])
def test_a4_a5_c3_a_kept_frontier_and_cached_checks_agree_with_a_fresh_grid(variant, players,
                                                                             seed):
    reserve_tiles = [t for kind in VARIANTS[variant].kinds for t in VARIANTS[variant].bag(kind)]
    lines = [kinds for _, kinds in VARIANTS[variant].barrier_lines]
    for step, (state, _, _) in enumerate(_games(variant, players, seed)):
        for i, grid in enumerate(state.grids):
            fresh = _rebuilt(grid)
            for kinds in lines:
                assert grid.longest_barrier(kinds) == fresh.longest_barrier(kinds), (step, i)
            assert grid.frontier() == fresh.frontier(), (step, i)
            assert grid.removable() == fresh.removable(), (step, i)
            reserve = state.reserves[i]
            assert grid.swaps(reserve) == fresh.swaps(reserve), (step, i)
            for tile in reserve + reserve_tiles[step % 40::40]:
                if tile not in grid.where:
                    assert grid.legal_positions(tile) == fresh.legal_positions(tile), (step, tile)
            for out, new in grid.swaps(reserve):  # a bot's trial: the lines after a swap
                fresh = _rebuilt(grid)
                fresh.put(new, fresh.take(out))
                expected = tuple(fresh.longest_barrier(kinds) for kinds in lines)
                assert grid.swap_lines(out, new, tuple(lines)) == expected, (step, out, new)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_listed_moves_are_the_moves_their_fields_make(variant):
    """legal_moves makes its moves unchecked; each is the checked, canonically spelled move
    of its fields (equal, same hash)."""
    players = 2 if variant != "alhambra_granada" else 3
    for _, _, moves in _games(variant, players, 3):
        for move in moves:
            checked = Move(**dataclasses.asdict(move))
            assert dataclasses.astuple(checked) == dataclasses.astuple(move), move
            assert checked == move and hash(checked) == hash(move)


@pytest.mark.parametrize("variant,players,seed", [("alhambra", 3, 9), ("alhambra_granada", 4, 10)])
def test_a3_3_a_bot_lists_the_redesigns_that_build_without_those_that_take_a_tile_out(
        variant, players, seed):
    """The random bot looks only for the redesigns that build: the same moves, in the same
    order, as the legal redesigns it may make."""
    for state, _, _ in _games(variant, players, seed):
        for seat in range(players):
            legal = legal_moves(state, seat, kinds=("redesign",))
            assert building_redesigns(state, seat, Cache()) == [
                m for m in legal if builds(state, seat, m, Cache())]


@pytest.mark.parametrize("variant,players,seed", [("alhambra", 3, 9), ("alhambra_granada", 4, 10)])
def test_a3_3_a_bots_swap_trial_on_the_grid_agrees_with_the_state_after_it(variant, players,
                                                                          seed):
    """A bot weighs a swap on a copy of the grid alone: the same answer as on a copy of
    the whole state after the move (issue 20)."""
    for state, seat, moves in _games(variant, players, seed):
        for move in moves:
            if move.action == "redesign" and move.to == "swap":
                assert builds(state, seat, move, Cache()) == builds(
                    state, seat, move, Cache(), after(state, seat, move)), move


_COMBINED = VARIANTS["alhambra_granada"]
_TILES = _COMBINED.bag("alhambra")[::3] + _COMBINED.bag("granada")[::3]
_LINES = [kinds for _, kinds in _COMBINED.barrier_lines]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_TILES), st.integers(-2, 2), st.integers(-2, 2),
                          st.integers(0, 3)), max_size=40))
def test_c4_lines_kept_piece_by_piece_agree_with_a_fresh_grid(steps):
    """Tiles of both kinds come and go anywhere (the lines do not ask whether a grid was
    built by the rules), several between two looks, on the grid and on copies of it: its
    longest lines are always those of the same tiles put into a new grid."""
    grids = [_COMBINED.new_grid()]
    for tile, x, y, look in steps:
        grid = grids[-1]
        if tile in grid.where:
            grid.take(tile)
        elif (x, y) not in grid.cells:
            grid.put(tile, (x, y))
        if look == 0:
            continue
        fresh = _rebuilt(grid)
        for kinds in _LINES[:look]:
            assert grid.longest_barrier(kinds) == fresh.longest_barrier(kinds)
        if look == 3:  # go on with a copy; the grid keeps what it found
            grids.append(grid.copy())
    for grid in grids:
        fresh = _rebuilt(grid)
        for kinds in _LINES:
            assert grid.longest_barrier(kinds) == fresh.longest_barrier(kinds)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(money_cards(6)), max_size=30))
def test_a3_2_holdings_are_the_cards_held_of_each_currency(cards):
    """legal_moves reads a hand's cards of every currency in one pass."""
    hand = Counter(cards)
    assert holdings(hand) == {currency: held(hand, currency) for currency in CURRENCIES}
