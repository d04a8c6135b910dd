"""Bots: the next move for a seat, at a level, decided only from what that seat may know
(``worlds.knowledge``: the state with the deck and bag orders and the seed hidden).

- ``random``: an action kind at random, then one of its legal moves.

Every level redesigns only to build (``progress``: a tile into the city, or a swap that
lengthens the wall), so no bot undoes its own redesign and games between bots end.
- ``greedy``: the move whose resulting position evaluates best (``evaluate``: majorities
  at the scorings to come with each kind's points, the longest wall or moat, money in
  the currencies the market asks for, exact payments, rivals' gains counted against).
- ``strong``: the best greedy candidates searched over determinised worlds, each played on
  until the seat's next turn (``strong``).

Each call returns one move; it is called again for the next move of the same turn.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from ..legal import legal_moves
from ..moves import ACTIONS, Action, Move
from ..state import State
from .evaluate import Cache
from .greedy import greedy_move
from .progress import building_redesigns
from .strong import strong_move
from .worlds import knowledge

#: The kinds of move the random bot shuffles, in the order its games depend on (the
#: golden logs and benchmarks replay them).
SHUFFLED: tuple[Action, ...] = ("take", "buy", "redesign", "end", "place")
assert sorted(SHUFFLED) == sorted(ACTIONS)

#: The levels a bot seat may have.
LEVELS: tuple[str, ...] = ("random", "greedy", "strong")


def random_move(state: State, seat: int, rng: random.Random) -> Move:
    """A uniformly random kind of action among those possible now, then a uniformly random
    legal move of that kind (a redesign only if it builds, unless there is nothing else).
    Raises ValueError if the seat has no legal move."""
    kinds = list(SHUFFLED)
    rng.shuffle(kinds)
    cache = Cache()
    for kind in kinds:
        if kind == "redesign":
            moves = building_redesigns(state, seat, cache)
        else:
            moves = legal_moves(state, seat, kinds=(kind,))
        if moves:
            return rng.choice(moves)
    anyway = legal_moves(state, seat, kinds=("redesign",))  # nothing else to do
    if anyway:
        return rng.choice(anyway)
    raise ValueError(f"seat {seat} has no legal move")


def choose(level: str, state: State, seat: int, rng: random.Random, *,
           deadline: Callable[[], bool] | None = None) -> Move:
    """The next move of a ``level`` bot playing ``seat``, decided from what that seat may
    know. ``rng`` is the bot's own generator; ``deadline`` (strong only), if given, says
    when to stop searching early. Raises ValueError for an unknown level or when the seat
    has no legal move."""
    if level == "random":
        return random_move(state, seat, rng)
    if level == "greedy":
        return greedy_move(knowledge(state), seat)
    if level == "strong":
        return strong_move(knowledge(state), seat, rng, deadline=deadline)
    raise ValueError(f"unknown bot level {level!r} (known: {', '.join(LEVELS)})")


__all__ = ["LEVELS", "choose", "random_move"]
