"""Bots: the next move for a seat, at a level. ``random`` picks an action kind at random,
then one of its legal moves."""

from __future__ import annotations

import random

from ..legal import legal_moves
from ..moves import Move
from ..state import State

ACTIONS = ("take", "buy", "redesign", "end", "place")

#: The levels a bot seat may have.
LEVELS: tuple[str, ...] = ("random",)


def random_move(state: State, seat: int, rng: random.Random) -> Move:
    """A uniformly random kind of action among those possible now, then a uniformly random
    legal move of that kind. Raises ValueError if the seat has no legal move."""
    kinds = list(ACTIONS)
    rng.shuffle(kinds)
    for kind in kinds:
        moves = legal_moves(state, seat, kinds=(kind,))
        if moves:
            return rng.choice(moves)
    raise ValueError(f"seat {seat} has no legal move")


def choose(level: str, state: State, seat: int, rng: random.Random) -> Move:
    """The next move of a ``level`` bot playing ``seat``, decided from what that seat may
    see. Raises ValueError for an unknown level or when the seat has no legal move."""
    if level == "random":
        return random_move(state, seat, rng)
    raise ValueError(f"unknown bot level {level!r} (known: {', '.join(LEVELS)})")
