"""The ``strong`` bot: determinised lookahead under hidden information.

It ranks the legal moves with the greedy evaluation and keeps the best few. For each of a
fixed number of worlds drawn from what the seat knows (``worlds.determinise``: deck and
bag orders resampled), it plays each candidate, lets greedy finish the turn and play every
rival's next turn (refills, scorings and rivals' purchases happen as in that world), and
evaluates the position when the turn comes back. All candidates meet the same worlds, and
the move with the best total wins. Only the choice of action is searched this way; the
tiles bought are placed greedily.

The budget is the number of worlds, so a decision is reproducible from the bot's seed; a
caller may add a wall-clock cap with ``deadline`` (checked after each world).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from ..moves import Move
from ..rules import play
from ..state import State
from .evaluate import Cache, evaluate
from .greedy import greedy_move, ranked
from .worlds import determinise

WORLDS = 4  # worlds per decision
CANDIDATES = 3  # moves searched, best by the greedy evaluation first
MARGIN = 12.0  # moves this far below the best greedy value are not searched


def rollout(world: State, seat: int, move: Move, cache: Cache) -> float:
    """``move`` played in ``world``, then greedy play until ``seat``'s next turn (or the
    game end); the value of that position to ``seat``."""
    sim = world.copy()
    turn = sim.turn
    play(sim, seat, move)
    while sim.phase != "over" and not (sim.current == seat and sim.turn > turn
                                        and sim.phase == "action"):
        play(sim, sim.current, greedy_move(sim, sim.current, cache))
    return evaluate(sim, seat, cache)


def strong_move(state: State, seat: int, rng: random.Random, *, worlds: int = WORLDS,
                candidates: int = CANDIDATES,
                deadline: Callable[[], bool] | None = None) -> Move:
    """The move with the best total over ``worlds`` determinised lookaheads."""
    cache = Cache()
    moves = ranked(state, seat, cache)
    best = moves[0][0]
    top = [m for v, m in moves[:candidates] if v >= best - MARGIN]
    if len(top) == 1 or state.phase != "action":
        return top[0]
    totals = [0.0] * len(top)
    for _ in range(worlds):
        world = determinise(state, rng)
        for i, move in enumerate(top):
            totals[i] += rollout(world, seat, move, cache)
        if deadline is not None and deadline():
            break
    return top[max(range(len(top)), key=lambda i: (totals[i], -i))]
