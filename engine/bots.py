"""A random legal-move bot: picks an action kind at random, then one of its legal moves."""

from __future__ import annotations

import random

from .legal import legal_moves
from .moves import Move
from .state import State

ACTIONS = ("take", "buy", "redesign", "end", "place")


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
