"""Bots make progress: a bot redesigns only to build (issue 20).

A redesign (A-3.3) ends the turn and draws nothing, so two bots that each prefer to undo
their last redesign once the other has undone theirs would play for ever. A seat's
*building* is the number of tiles in its city, then the length of its longest wall or
moat (compared in that order). No move lowers it but a redesign: buying, taking money and
placing into the reserve leave it, placing into the city adds a tile. So a bot plays a
redesign only when it raises its building (a tile from the reserve into the city, or a
swap that lengthens the wall); then no redesign of a bot is ever undone, a position never
comes back, and a bot seat redesigns at most a few times per tile it owns.

Only when every legal move is a redesign that would not build (nothing to take, nothing
to buy) does a bot make one anyway: the rules leave it nothing else.
"""

from __future__ import annotations

from ..legal import redesign_moves
from ..moves import Move
from ..state import State
from .evaluate import Cache


def building(state: State, seat: int, cache: Cache) -> tuple[int, int]:
    """(tiles in ``seat``'s city, points of its longest walls or moats)."""
    return len(state.grids[seat].where), cache.line_points(state, seat)


def builds(state: State, seat: int, move: Move, cache: Cache,
           result: State | None = None) -> bool:
    """Whether ``seat`` being a bot may make legal ``move`` in ``state``: any move but a
    redesign, and a redesign that raises the seat's building. ``result``: the state
    right after ``move``, if the caller has it (else a swap is tried on the grid alone)."""
    if move.action != "redesign":
        return True
    if move.to != "swap":  # a tile in: one more in the city; a tile out: one fewer
        return move.to == "city"
    if result is None:  # a swap keeps the city's size: only its lines may grow
        grid, variant = state.grids[seat], state.variant
        return sum(grid.swap_lines(str(move.tile), str(move.other), variant.line_kinds)) \
            > cache.grid_line_points(grid, variant)
    return building(result, seat, cache) > building(state, seat, cache)


def building_redesigns(state: State, seat: int, cache: Cache) -> list[Move]:
    """The redesigns ``seat`` being a bot may make (``builds``), in ``legal_moves``'s order.
    Taking a tile out never builds: the tiles that could leave are not looked for."""
    if state.phase != "action" or seat != state.current:  # no redesign is legal
        return []
    return [m for m in redesign_moves(state, seat, leaving=False)
            if builds(state, seat, m, cache)]
