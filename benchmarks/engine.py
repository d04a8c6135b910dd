"""Engine speed: replay of a complete game, legal_moves late in a game, random-bot games/s.

Run: ``python benchmarks/engine.py [--variant NAME ...] [--games 60] [--json]``. Prints one
JSON object of figures per variant (all by default), or with ``--json`` one document of
them by variant. Goals (issue 23): >= 30 complete random 4-player games per second on one
core in the combined game; replay median <= 1 ms (Alhambra), <= 1.5 ms (combined);
late-game legal_moves median <= 2 ms. Times are CPU times (``time.process_time``),
games/s the best of 3 rounds.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import legal_moves, new_game, play, replay  # noqa: E402
from engine.bots import random_move  # noqa: E402
from engine.variants import VARIANTS  # noqa: E402


def builder_move(state, seat, rng):
    """A random move, except that bought tiles go into the city where they fit."""
    city = [m for m in legal_moves(state, seat, kinds=("place",)) if m.to == "city"]
    return rng.choice(city) if city else random_move(state, seat, rng)


def random_game(variant: str, players: int, seed: int, bot=random_move, keep=False):
    events = new_game(variant, [f"p{i}" for i in range(players)], seed)
    state = replay(events)
    rng = random.Random(seed)
    trail = []
    while state.phase != "over":
        seat = state.current
        events += play(state, seat, bot(state, seat, rng))
        if keep:
            trail.append(state.copy())
    return state, events, trail


def late_states(variant: str, count: int) -> list:
    """Late-game states: the seat to move has a city of 20+ tiles and 3 bought tiles to
    place. Taken from 3-player games where bought tiles go into the city when they fit;
    where a city is still short of 20, tiles from the bag are built into it (legally)."""
    out = []
    for seed in range(count):
        _, _, trail = random_game(variant, 3, 1000 + seed, builder_move, keep=True)
        s = next(s for s in reversed(trail) if s.phase == "action"
                 and sum(len(b) for b in s.bags.values()) >= 12)
        s = s.copy()
        grid = s.grids[s.current]
        bag = s.bags[s.variant.kinds[0]]
        for tile in list(bag):
            if len(grid.cells) > 20 or len(bag) <= 3:
                break
            spots = grid.legal_positions(tile)
            if spots:
                bag.remove(tile)
                grid.put(tile, spots[len(spots) // 2])
        if len(grid.cells) <= 20:
            continue
        s.pending = bag[:3]
        del bag[:3]
        s.phase, s.can_act = "placement", False
        out.append(s)
    return out


def cold(state):
    """``state`` with what the grids found and cached dropped, so nothing is reused."""
    for grid in state.grids:
        grid._frontier, grid._slots, grid._removable, grid._lines = None, {}, None, {}
    return state


def timed(fn, repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        t = time.process_time()
        fn()
        times.append((time.process_time() - t) * 1000)
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--variant", nargs="*", default=sorted(VARIANTS))
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--json", action="store_true",
                        help="print one JSON document: {variant: figures}")
    args = parser.parse_args()
    results = {}
    for variant in args.variant:
        results[variant] = figures(variant, args.games)
        if not args.json:
            print(json.dumps(results[variant]), flush=True)
    if args.json:
        print(json.dumps(results))


def figures(variant: str, games: int) -> dict:
    """The figures of one variant."""

    # CPU time of the best of 3 rounds: this machine's speed wanders between runs.
    rounds = []
    for _ in range(3):
        start = time.process_time()
        logs = [random_game(variant, 4, seed)[1] for seed in range(games)]
        rounds.append(time.process_time() - start)
    games_per_second = games / min(rounds)

    replay_ms = [t for events in logs for t in timed(lambda e=events: replay(e), 3)]
    states = late_states(variant, 60)
    place_ms = [t for s in states for t in timed(lambda s=s: legal_moves(cold(s), s.current), 5)]
    for s in states:
        s.phase, s.can_act, s.acted = "action", True, False
    # The same states in the action phase: every take, buy and redesign.
    action_ms = [t for s in states for t in
                 timed(lambda s=s: legal_moves(cold(s), s.current), 5)]
    return {
        "variant": variant,
        "games_per_second_4p": round(games_per_second, 1),
        "events_per_game_median": statistics.median(len(e) for e in logs),
        "replay_ms_median": round(statistics.median(replay_ms), 3),
        "replay_ms_p95": round(statistics.quantiles(replay_ms, n=20)[-1], 3),
        "late_states": len(states),
        "legal_moves_placement_ms_median": round(statistics.median(place_ms), 3),
        "legal_moves_action_ms_median": round(statistics.median(action_ms), 3),
    }


if __name__ == "__main__":
    main()
