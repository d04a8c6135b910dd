"""The cost of a move early and late in a long game (issue 32): does a submission cost
more as the game's log grows?

    .venv/bin/python benchmarks/growth.py [--games 3] [--seed 3000]
                                          [--modes in_process,serve,postgres] [--json]

Plays complete 6-player games of the combined game (``alhambra_granada``, about 440
submissions and 1,270 events each), seeded, with precomputed random legal moves
(benchmarks/api.py ``create_games``); every seat has an e-mail address (its mails are
planned as due work) and the game a bank time control (10 days, 1 day more a move,
capped at 10 days), so each move runs the bank clock. Every submission is timed
(``time.perf_counter``, one client, one submission at a time), in each mode:

- ``in_process``: the Flask app in process (its test client; no HTTP server) on a SQLite
  file, as benchmarks/profile_move.py runs it;
- ``serve``: ``alhambra-pbem serve --no-worker`` (2 gunicorn workers) on SQLite, over HTTP
  on loopback (benchmarks/api.py ``serve``);
- ``postgres``: ``serve --no-worker --workers 1`` on a scratch PostgreSQL database
  (benchmarks/postgres.py; ``ALHAMBRA_BENCH_PG_URL``), dropped at the end.

For each mode: the median submission time over the first fifth of every game's
submissions and over the last fifth (all the games pooled), and the ratio last / first.
The fifths are timed in pairs, one submission each in turn: the last fifth of one game
with the first fifth of the next, so that a busy machine (other jobs, CI) slows both
alike; each pair's own ratio is shown too. So ``--games N`` plays N + 1 games: the first
one's first four fifths lead in (imports, connections, caches), the last one stops after
its first fifth. Goal: ratio <= 1.2.

Prints one line per mode; with ``--json`` the lines go to stderr and one JSON document
to stdout. ``python -m benchmarks`` runs it (``--smoke``: ``--games 1``, no PostgreSQL).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from itertools import pairwise, zip_longest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.api import Client, create_games, free_port, serve, stop  # noqa: E402
from service import create_app  # noqa: E402
from service.settings import Settings  # noqa: E402
from service.store import sqlite_store  # noqa: E402

VARIANT, PLAYERS = "alhambra_granada", 6
BANK = {"bank": 864000, "increment": 86400, "cap": 864000}
GOAL = 1.2


def make_games(store, args) -> list[dict]:
    """The ``args.games`` timed games and one more (see play)."""
    return create_games(store, args.games + 1, args.seed, variant=VARIANT, players=PLAYERS,
                        emails=True, time_per_move=None, time_control=BANK)


def play(post, games: list[dict]) -> tuple[list[list[float]], list[list[float]]]:
    """``post(path, body, token)`` each submission; the ms of each one in the games'
    first fifths and in their last fifths, each pair (the last fifth of a game, the
    first of the next) timed in turn."""
    subs = [[(f"/games/{g['id']}/moves", {"move": move, "version": version},
              g["tokens"][seat]) for seat, move, version in g["moves"]] for g in games]

    def fifth(moves):
        return max(1, len(moves) // 5)

    def timed(item, into):
        start = time.perf_counter()
        post(*item)
        into.append((time.perf_counter() - start) * 1000)

    for item in subs[0][:-fifth(subs[0])]:  # lead in
        post(*item)
    firsts, lasts = [], []
    for n, (before, after) in enumerate(pairwise(subs)):
        lasts.append([])
        firsts.append([])
        for late, early in zip_longest(before[-fifth(before):], after[:fifth(after)]):
            if late:
                timed(late, lasts[-1])
            if early:
                timed(early, firsts[-1])
        if n + 2 < len(subs):  # the next pair needs this game's middle played
            for item in after[fifth(after):-fifth(after)]:
                post(*item)
    return firsts, lasts


def over_http(port: int, games: list[dict]):
    client = Client(port)

    def post(path, body, token):
        status, answer = client.post(path, body, token)
        if status != 201:
            raise RuntimeError(f"{path}: {status} {answer[:300]!r}")

    return play(post, games)


def in_process(tmp: Path, args):
    app = create_app(Settings(database=str(tmp / "in-process.db")))
    store = app.extensions["alhambra"].store
    try:
        games = make_games(store, args)
        client = app.test_client()

        def post(path, body, token):
            r = client.post(path, json=body, headers={"Authorization": f"Bearer {token}"})
            if r.status_code != 201:
                raise RuntimeError(f"{path}: {r.status_code} {r.get_json()}")

        return play(post, games)
    finally:
        store.close()


def through_serve(tmp: Path, args):
    db = tmp / "serve.db"
    store = sqlite_store(str(db))
    games = make_games(store, args)
    store.close()
    port = free_port()
    proc = serve(db, port)
    try:
        return over_http(port, games)
    finally:
        stop(proc)


def on_postgres(_tmp: Path, args):
    from benchmarks import postgres

    db = postgres.Database()
    try:
        store = db.store()
        games = make_games(store, args)
        store.close()
        port = free_port()
        proc = postgres.serve(db.url, port)
        try:
            return over_http(port, games)
        finally:
            stop(proc)
    finally:
        db.drop()


MODES = {"in_process": in_process, "serve": through_serve, "postgres": on_postgres}


def fifths(firsts: list[list[float]], lasts: list[list[float]]) -> dict:
    """Median ms of the first and of the last fifths (pooled), their ratio, each pair's."""
    early = statistics.median([t for times in firsts for t in times])
    late = statistics.median([t for times in lasts for t in times])
    return {"first_ms": round(early, 2), "last_ms": round(late, 2),
            "ratio": round(late / early, 2),
            "per_pair": [round(statistics.median(b) / statistics.median(a), 2)
                         for a, b in zip(firsts, lasts, strict=True)],
            "submissions_per_fifth": [len(t) for t in lasts]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=3,
                        help="pairs of fifths timed (N + 1 games) per mode")
    parser.add_argument("--seed", type=int, default=3000, help="the first game's seed; "
                        "the others' follow")
    parser.add_argument("--modes", default="in_process,serve",
                        help=f"comma-separated, of: {', '.join(MODES)}")
    parser.add_argument("--json", action="store_true", help="one JSON document on stdout")
    args = parser.parse_args()
    out: dict = {"variant": VARIANT, "players": PLAYERS, "time_control": BANK,
                 "games": args.games, "seed": args.seed, "goal_ratio": GOAL}
    lines = sys.stderr if args.json else sys.stdout
    with tempfile.TemporaryDirectory(prefix="alhambra-bench-growth-") as tmp:
        for mode in filter(None, args.modes.split(",")):
            out[mode] = f = fifths(*MODES[mode](Path(tmp), args))
            print(f"{mode}: first fifth median {f['first_ms']:.2f} ms, last fifth "
                  f"{f['last_ms']:.2f} ms, ratio {f['ratio']:.2f} (pairs: "
                  f"{', '.join(f'{r:.2f}' for r in f['per_pair'])}; "
                  f"{', '.join(map(str, f['submissions_per_fifth']))} submissions a fifth)"
                  f"; goal <= {GOAL}: {'met' if f['ratio'] <= GOAL else 'NOT met'}",
                  file=lines, flush=True)
    if args.json:
        print(json.dumps(out))


if __name__ == "__main__":
    main()
