"""Bot strength and speed: the goal matches of issue 15, through engine/arena.py.

Run: ``python benchmarks/bots.py [--games 200] [--strong-games 200] [--seed 1]
[--variant alhambra] [--cap 2.0]``. Plays greedy against random and strong against greedy
(two players, seats rotated) and prints one JSON object per match: win rates with 95%
Wilson intervals, mean score margins and seconds per move (wall-clock and CPU, p50 and
p95). Goals: greedy wins >= 90% against random; strong wins >= 65% against greedy with
<= 2 s per move. ``--cap`` stops a strong search after that many wall-clock seconds.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import arena  # noqa: E402


def match(variant: str, bots: list[str], games: int, seed: int, cap: float | None) -> dict:
    start = time.perf_counter()
    tallies = arena.run(variant, bots, 2, games, seed, cap)
    out: dict = {"variant": variant, "players": 2, "bots": bots, "games": games,
                 "seed": seed, "seconds": round(time.perf_counter() - start, 1)}
    for level, t in tallies.items():
        low, high = arena.wilson(t.wins, games)
        out[level] = {
            "wins": t.wins, "win_rate": round(t.wins / games, 3),
            "ci95": [round(low, 3), round(high, 3)],
            "mean_margin": round(statistics.fmean(t.margins), 1),
            "move_p50_s": round(arena.percentile(t.times, 0.5), 3),
            "move_p95_s": round(arena.percentile(t.times, 0.95), 3),
            "move_max_s": round(max(t.times), 3),
            "cpu_p50_s": round(arena.percentile(t.cpu, 0.5), 3),
            "cpu_p95_s": round(arena.percentile(t.cpu, 0.95), 3),
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--variant", default="alhambra")
    parser.add_argument("--games", type=int, default=200, help="greedy against random")
    parser.add_argument("--strong-games", type=int, default=200, help="strong against greedy")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cap", type=float, default=2.0)
    parser.add_argument("--only", choices=["greedy", "strong"], help="play one match only")
    args = parser.parse_args()
    if args.only != "strong":
        print(json.dumps(match(args.variant, ["greedy", "random"], args.games, args.seed,
                               None)), flush=True)
    if args.only != "greedy":
        print(json.dumps(match(args.variant, ["strong", "greedy"], args.strong_games,
                               args.seed, args.cap)), flush=True)


if __name__ == "__main__":
    main()
