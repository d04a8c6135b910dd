"""Bot matches: ``python -m engine arena --bots strong,greedy --players 2 --games 200``.

Game ``i`` is seeded ``seed + i`` and seats are rotated: seat ``j`` plays level
``bots[(i + j) % len(bots)]``, so every level sits in every seat equally often. A level
wins a game when the winners' seats are all its own; a shared victory between levels
counts a share to each. Win rates come with a 95% Wilson interval; the margin is a
level's mean seat score minus the mean of the other levels' seats. Decision times are
seconds per move, wall-clock and CPU (on a shared machine the CPU time is the fairer).
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from .bots import choose
from .rules import new_game, play
from .state import replay

Z95 = 1.959964


def wilson(wins: float, games: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a win rate ``wins / games``."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    denom = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denom
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class Tally:
    """One level's results over a match."""

    wins: float = 0.0
    margins: list[float] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)


def _deadline(at: float) -> Callable[[], bool]:
    return lambda: time.perf_counter() > at


def play_game(variant: str, levels: list[str], seed: int, cap: float | None = None
              ) -> tuple[list[int], list[int], list[tuple[int, float, float]]]:
    """One game with ``levels[j]`` in seat ``j``: (scores, winners, (seat, wall-clock
    seconds, CPU seconds) per bot decision). ``cap`` bounds a strong decision's search in
    wall-clock seconds."""
    state = replay(new_game(variant, [f"{lv}{j + 1}" for j, lv in enumerate(levels)], seed))
    rngs = [random.Random(f"{seed}:{j}") for j in range(len(levels))]
    times: list[tuple[int, float, float]] = []
    while state.phase != "over":
        seat = state.current
        start, cpu = time.perf_counter(), time.process_time()
        deadline = None if cap is None else _deadline(start + cap)
        move = choose(levels[seat], state, seat, rngs[seat], deadline=deadline)
        times.append((seat, time.perf_counter() - start, time.process_time() - cpu))
        play(state, seat, move)
    return list(state.scores), list(state.winners), times


def run(variant: str, bots: list[str], players: int, games: int, seed: int,
        cap: float | None = None, progress: Callable[[int], None] | None = None
        ) -> dict[str, Tally]:
    """Play the match; a ``Tally`` per level."""
    tallies = {b: Tally() for b in bots}
    for i in range(games):
        levels = [bots[(i + j) % len(bots)] for j in range(players)]
        scores, winners, times = play_game(variant, levels, seed + i, cap)
        winning = {levels[w] for w in winners}
        for level in winning:
            tallies[level].wins += 1 / len(winning)
        for level in tallies:
            mine = [s for s, lv in zip(scores, levels, strict=True) if lv == level]
            theirs = [s for s, lv in zip(scores, levels, strict=True) if lv != level]
            if mine and theirs:
                tallies[level].margins.append(statistics.fmean(mine) - statistics.fmean(theirs))
        for seat, seconds, cpu in times:
            tallies[levels[seat]].times.append(seconds)
            tallies[levels[seat]].cpu.append(cpu)
        if progress:
            progress(i + 1)
    return tallies


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0-1) of ``values``, nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


def report(tallies: dict[str, Tally], games: int) -> list[str]:
    """One line per level: wins with the 95% interval, mean margin, time per move."""
    lines = []
    for level, t in tallies.items():
        low, high = wilson(t.wins, games)
        margin = statistics.fmean(t.margins) if t.margins else 0.0
        line = (f"{level:<7} wins {t.wins:g}/{games} = {100 * t.wins / games:.1f}% "
                f"(95% CI {100 * low:.1f}-{100 * high:.1f}%)  mean margin {margin:+.1f}")
        if t.times:
            line += (f"  move p50 {percentile(t.times, 0.5):.3f} s"
                     f" p95 {percentile(t.times, 0.95):.3f} s"
                     f" (cpu p50 {percentile(t.cpu, 0.5):.3f} s"
                     f" p95 {percentile(t.cpu, 0.95):.3f} s)")
        lines.append(line)
    return lines
