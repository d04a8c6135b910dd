"""Where a move submission's time goes: cProfile over real submissions (the moves of
benchmarks/api.py: precomputed random legal moves, each against its version) sent
through the Flask app in process (no HTTP server: the request path itself).

    .venv/bin/python benchmarks/profile_move.py [--moves 600] [--top 30]

Prints the time per submission and the functions with the most cumulative time.
Not a test: CI never runs it.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.api import create_games  # noqa: E402
from service import create_app  # noqa: E402
from service.settings import Settings  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--moves", type=int, default=600)
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--sort", default="cumulative")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app(Settings(database=str(Path(tmp) / "p.db")))
        store = app.extensions["alhambra"].store
        games = create_games(store, max(2, args.moves // 250 + 1), base_seed=77)
        jobs = [(f"/games/{g['id']}/moves", {"move": m, "version": v},
                 {"Authorization": f"Bearer {g['tokens'][s]}"})
                for g in games for s, m, v in g["moves"]][:args.moves]
        client = app.test_client()
        for path, body, head in jobs[:20]:  # warm up: imports, caches
            assert client.post(path, json=body, headers=head).status_code == 201
        profile = cProfile.Profile()
        start = time.perf_counter()
        profile.enable()
        for path, body, head in jobs[20:]:
            r = client.post(path, json=body, headers=head)
            assert r.status_code == 201, r.get_json()
        profile.disable()
        took = time.perf_counter() - start
        print(f"{len(jobs) - 20} submissions, {took / (len(jobs) - 20) * 1000:.2f} ms each "
              f"(under cProfile)")
        pstats.Stats(profile).sort_stats(args.sort).print_stats(args.top)
        store.close()


if __name__ == "__main__":
    main()
