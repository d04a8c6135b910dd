"""Building rules (A-4) on placement and on every redesign (A-3.3)."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import RuleViolation, play
from engine.bots import random_move
from engine.grid import Grid

from .helpers import apply, build, set_hand, set_market, start


def _placing(tile: str, layout: dict):
    """A 3-player game whose current seat has ``layout`` built and has just bought
    ``tile`` (exactly, so it may still act)."""
    s = start(3)
    seat = s.current
    build(s, seat, layout)
    others = [t for t in ("A05", "A21", "A40", "A51") if t != tile]
    set_market(s, [tile] + others[:3])
    price = s.face(tile).value
    set_hand(s, seat, [f"DE{price}"])
    apply(s, seat, f"buy {tile} pay DE{price}")
    return s, seat


def _refused(s, seat, text):
    with pytest.raises(RuleViolation) as err:
        apply(s, seat, text)
    return err.value


def test_a4_3_rulebook_walls_must_meet_walls():
    s, seat = _placing("A07", {(1, 0): "A06"})  # A06 has an east wall
    err = _refused(s, seat, "place A07 at 2,0")
    assert err.rule == "A-4.3"
    assert err.message == ("the west side of A07 at 2,0 has no wall but the tile west of it, "
                           "A06, has one on its east side")


def test_a4_4_rulebook_a_tile_walled_off_from_the_start_cannot_be_walked_to():
    s, seat = _placing("A12", {(1, 0): "A06"})  # A12: a west wall against A06's east wall
    err = _refused(s, seat, "place A12 at 2,0")
    assert err.rule == "A-4.4" and "could not be reached on foot" in err.message


def test_a4_2_rulebook_touching_at_a_corner_only_is_not_enough():
    s, seat = _placing("A07", {})
    err = _refused(s, seat, "place A07 at 1,1")
    assert err.rule == "A-4.2" and "corner" in err.message


def test_a4_5_rulebook_no_holes():
    layout = {(1, 0): "A14", (2, 0): "A22", (0, 1): "A23", (2, 1): "A31", (0, 2): "A32"}
    s, seat = _placing("A07", layout)
    err = _refused(s, seat, "place A07 at 1,2")
    assert err.rule == "A-4.5" and "hole" in err.message
    apply(s, seat, "place A07 at 1,1")  # filling the gap itself is fine
    assert s.grids[seat].cells[(1, 1)] == "A07"


def test_a4_1_the_cell_must_be_empty():
    s, seat = _placing("A07", {(1, 0): "A14"})
    assert _refused(s, seat, "place A07 at 1,0").rule == "A-4.1"


def test_a4_redesign_removal_may_leave_no_hole_and_no_unreachable_tile():
    s = start(3)
    seat = s.current
    block = {(x, y): t for (x, y), t in zip(
        [(1, 0), (2, 0), (0, 1), (1, 1), (2, 1), (0, 2), (1, 2), (2, 2)],
        ["A07", "A14", "A22", "A23", "A31", "A32", "A39", "A42"], strict=True)}
    build(s, seat, block)
    assert _refused(s, seat, "redesign A23 reserve").rule == "A-4.5"  # the middle
    g = s.grids[seat]
    assert g.removal_error("A42") is None
    chain = start(3)
    build(chain, chain.current, {(1, 0): "A07", (2, 0): "A14"})
    assert _refused(chain, chain.current, "redesign A07 reserve").rule == "A-4.4"


def test_a3_3c_a_swapped_in_tile_must_match_the_place_it_takes():
    s = start(3)
    seat = s.current
    build(s, seat, {(1, 0): "A07"})
    s.reserves[seat] = ["A06"]  # its east wall would face nothing: fine; west is open: fine
    s.reserves[seat].append("A12")  # its west wall would face the open start tile
    err = _refused(s, seat, "redesign swap A07 with A12")
    assert err.rule == "A-4.3"
    apply(s, seat, "redesign swap A07 with A06")
    assert s.grids[seat].cells[(1, 0)] == "A06"


def _checked_from_scratch(grid: Grid, change) -> bool:
    """Apply ``change`` to a copy of ``grid`` and check the whole grid (A-4.1-A-4.5)."""
    trial = grid.copy()
    change(trial)
    return trial.violations() == []


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), players=st.integers(3, 6), steps=st.integers(20, 400),
       variant=st.sampled_from(["alhambra", "granada", "alhambra_granada"]))
def test_a4_g4_c3_fast_checks_agree_with_a_whole_grid_check(seed, players, steps, variant):
    """Placements, removals and swaps found by the cached checks are exactly those after
    which the whole grid obeys A-4 / G-4 / C-3 (checked from scratch)."""
    s = start(players, seed, variant=variant)
    rng = random.Random(seed)
    for _ in range(steps):
        if s.phase == "over":
            break
        play(s, s.current, random_move(s, s.current, rng))
    for seat, grid in enumerate(s.grids):
        reserve = s.reserves[seat]
        probes = reserve[:3] + [bag[i] for bag in s.bags.values() for i in (0, 5, 9)
                                if len(bag) > i]
        for tile in probes:
            fast = set(grid.legal_positions(tile))
            cells = {(x + dx, y + dy) for x, y in grid.cells
                     for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))} - set(grid.cells)
            slow = {p for p in cells
                    if _checked_from_scratch(grid, lambda g, p=p, t=tile: g.put(t, p))}
            assert fast == slow, (seat, tile)
        roots = set(grid.roots.values())
        for tile in list(grid.where):
            if tile in roots:
                continue
            slow = _checked_from_scratch(grid, lambda g, t=tile: g.take(t))
            assert (tile in grid.removable()) == slow, tile
        listed = set(grid.swaps(reserve))
        for tile in list(grid.where):
            for new in reserve if tile not in roots else ():
                pos = grid.where[tile]
                slow = _checked_from_scratch(
                    grid, lambda g, t=tile, n=new, p=pos: (g.take(t), g.put(n, p)))
                assert ((tile, new) in listed) == slow, (tile, new)
