"""Benchmark of move submissions on PostgreSQL, with 1 and 2 API processes, on loopback.

    .venv/bin/python benchmarks/postgres.py [--events 1000000] [--seconds 5] [--clients 8]

Throwaway databases on the server of ``ALHAMBRA_BENCH_PG_URL`` (default
``postgresql://postgres@127.0.0.1:5432/postgres``), dropped at the end. Prints:
1. the floor: a bare Flask route (gunicorn, one worker per process) that parses the same
   kind of JSON body and appends one row to PostgreSQL after a version check (one
   statement: the compare-and-set of the game's version and the insert), submissions per
   second with 1 and with 2 such processes (each on its own port, the clients split
   between them);
2. the service: real moves (precomputed random legal moves, each against its version)
   submitted to ``alhambra-pbem serve --no-worker --workers 1``, 1 and 2 of them on one
   database, submissions per second, and the ratio to the floor;
3. the latency of one submission (one client, median) with about 100 events stored and
   with ``--events`` more (filled with generate_series in a database of its own).

Not a test: CI never runs it.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import statistics
import sys
import threading
import time
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import engine  # noqa: E402
from benchmarks.api import (  # noqa: E402
    create_games,
    floor_job,
    free_port,
    latency,
    service_job,
    start,
    stop,
    throughput,
)
from service.settings import Settings  # noqa: E402
from service.store import codec, open_store  # noqa: E402

ADMIN_URL = os.environ.get("ALHAMBRA_BENCH_PG_URL",
                           "postgresql://postgres@127.0.0.1:5432/postgres")
SECRET = "benchmark"

# -- the floor ---------------------------------------------------------------------------

FLOOR_APPEND = """
with moved as (update games set version = version + 1
               where id = %(id)s and version = %(version)s returning id)
insert into events (game_id, version, type, payload, created_at)
select id, %(version)s + 1, 'move', %(payload)s::json, now() from moved
"""


def floor_app():
    """A bare Flask app: POST /games/<id>/moves appends one row after a version check."""
    from flask import Flask, jsonify, request
    from psycopg_pool import ConnectionPool

    app = Flask(__name__)
    pool = ConnectionPool(os.environ["FLOOR_DB"], min_size=1, max_size=2,
                          kwargs={"autocommit": True}, open=True)

    @app.post("/games/<game_id>/moves")
    def append(game_id):
        body = request.get_json()
        with pool.connection() as conn:
            moved = conn.execute(FLOOR_APPEND, {"id": game_id, "version": body["version"],
                                                "payload": json.dumps(body)}).rowcount
            if not moved:
                current = conn.execute("select version from games where id = %s",
                                       (game_id,)).fetchone()[0]
                return jsonify(current_version=current), 409
        return jsonify(version=body["version"] + 1), 201

    return app


def make_floor_db(url: str, games: int) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("create table games (id text primary key, version integer not null)")
        conn.execute("create table events (game_id text, version integer, type text, "
                     "payload json, created_at timestamptz, primary key (game_id, version))")
        conn.execute("insert into games select 'g' || i, 0 from generate_series(0, %s) i",
                     (games - 1,))


# -- databases -------------------------------------------------------------------------------


class Database:
    def __init__(self) -> None:
        self.name = f"alhambra_bench_{secrets.token_hex(4)}"
        self.url = f"{ADMIN_URL.rsplit('/', 1)[0]}/{self.name}"
        with psycopg.connect(ADMIN_URL, autocommit=True) as conn:
            conn.execute(f'create database "{self.name}"')

    def store(self):
        settings = Settings(database_url=self.url, secret=SECRET)
        store = open_store(settings, check_schema=False)
        store.migrate()
        return store

    def drop(self) -> None:
        with psycopg.connect(ADMIN_URL, autocommit=True) as conn:
            conn.execute(f'drop database if exists "{self.name}" with (force)')


def fill(url: str, events: int, per_game: int = 40) -> None:
    """About ``events`` more events: games of ``per_game`` real setup events each (the
    payloads of a real game's first events, in turn), with their seats, in bulk."""
    template = engine.new_game("alhambra", ["a", "b", "c"], 1)
    payloads = list(template)
    games = events // per_game
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("""
            insert into games (id, variant, options, players, status, phase, version,
                current_seat, time_per_move, timeout_policy, deadline, imported,
                created_at, updated_at)
            select 'f' || g, 'alhambra', '{}', 3, 'active', 'action', %(n)s, 0, 3600,
                'default_move', null, false, now(), now()
            from generate_series(1, %(games)s) g""", {"games": games, "n": per_game - per_game % 3})
        conn.execute("""
            insert into seats (game_id, seat, name, token_hash, joined_at)
            select 'f' || g, s, 'p' || s, 'f' || g || '-' || s, now()
            from generate_series(1, %(games)s) g, generate_series(0, 2) s""",
                     {"games": games})
        # batches of 3 events, stored as the store does (service/store/codec.py)
        conn.execute("""
            insert into event_batches (game_id, version, first, at, data)
            select 'f' || g, v, v - 2, now(), %(data)s
            from generate_series(1, %(games)s) g, generate_series(3, %(n)s, 3) v""",
                     {"games": games, "n": per_game - per_game % 3,
                      "data": codec.encode(payloads[:3])})
        conn.execute("vacuum analyze")


def serve(url: str, port: int):
    exe = str(Path(sys.executable).with_name("alhambra-pbem"))
    cmd = [exe] if Path(exe).exists() else [sys.executable, "-m", "service.cli"]
    return start(cmd + ["serve", "--host", "127.0.0.1", "--port", str(port), "--workers",
                        "1", "--no-worker"],
                 {"DATABASE_URL": url, "ALHAMBRA_SECRET_KEY": SECRET,
                  "ALHAMBRA_DATA": str(Path("/tmp") / f"alhambra-bench-{port}")}, port)


def spread(port_jobs: list[tuple[int, object]], seconds: float) -> float:
    """Throughput of several servers at once (their clients run side by side)."""
    results = [0.0] * len(port_jobs)

    def run(i, port, jobs):
        results[i] = throughput(port, jobs, seconds)

    threads = [threading.Thread(target=run, args=(i, port, jobs))
               for i, (port, jobs) in enumerate(port_jobs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--latency-moves", type=int, default=200)
    args = parser.parse_args()
    databases, procs = [], []
    try:
        floor_db, service_db, small_db, big_db = (Database() for _ in range(4))
        databases += [floor_db, service_db, small_db, big_db]
        make_floor_db(floor_db.url, 2 * args.clients)
        gunicorn = str(Path(sys.executable).with_name("gunicorn"))
        floor_ports = [free_port(), free_port()]
        for port in floor_ports:
            procs.append(start([gunicorn, "-w", "1", "-b", f"127.0.0.1:{port}", "--chdir",
                                str(ROOT), "benchmarks.postgres:floor_app()"],
                               {"FLOOR_DB": floor_db.url}, port))

        # the service's games: each client plays its own, enough for every round
        # moves enough for the warm-up and every round at up to 2,000 moves a second
        per_client = max(2, round((args.rounds * args.seconds + 1) * 2000 / args.clients
                                  / 250))
        store = service_db.store()
        t = time.perf_counter()
        games = create_games(store, 2 * args.clients * per_client, base_seed=1000)
        store.close()
        service_ports = [free_port(), free_port()]
        for port in service_ports:
            procs.append(serve(service_db.url, port))
        print(f"set up {len(games)} games in {time.perf_counter() - t:.0f} s", flush=True)

        latency_jobs = {}
        for label, db in (("100", small_db), (f"{args.events}", big_db)):
            store = db.store()
            mine = create_games(store, 4, base_seed=5000)
            store.close()
            t = time.perf_counter()
            if db is big_db:
                fill(db.url, args.events)
            with psycopg.connect(db.url) as conn:
                stored = conn.execute("select coalesce(sum(version - first + 1), 0) from "
                                      "event_batches").fetchone()[0]
            port = free_port()
            procs.append(serve(db.url, port))
            latency_jobs[label] = (port, service_job(mine), stored)
            print(f"{stored} events stored ({time.perf_counter() - t:.0f} s)", flush=True)

        # one setting (1 or 2 processes) = its clients' own games, split over the ports
        def split(ports: list[int], jobs: list) -> list[tuple[int, list]]:
            return [(ports[i], jobs[i::len(ports)]) for i in range(len(ports))]

        floor_jobs = {n: split(floor_ports[:n], [floor_job(f"g{(n - 1) * args.clients + c}")
                                                 for c in range(args.clients)])
                      for n in (1, 2)}
        service_jobs = {n: split(service_ports[:n], [service_job(games[
            ((n - 1) * args.clients + c) * per_client:
            ((n - 1) * args.clients + c + 1) * per_client]) for c in range(args.clients)])
            for n in (1, 2)}

        # warm up: imports, connections, caches
        for n in (1, 2):
            spread(floor_jobs[n], 1)
            spread(service_jobs[n], 1)
        for port, job, _ in latency_jobs.values():
            latency(port, job, 5)

        floor: dict[int, list[float]] = {1: [], 2: []}
        service: dict[int, list[float]] = {1: [], 2: []}
        lat: dict[str, list[float]] = {k: [] for k in latency_jobs}
        for _ in range(args.rounds):  # interleaved, so that a busy machine hurts all
            for n in (1, 2):
                floor[n].append(spread(floor_jobs[n], args.seconds))
                service[n].append(spread(service_jobs[n], args.seconds))
            for label, (port, job, _) in latency_jobs.items():
                lat[label].append(latency(port, job, args.latency_moves))
    finally:
        for proc in procs:
            stop(proc)
        for db in databases:
            db.drop()
    for n in (1, 2):
        f, s_ = statistics.median(floor[n]), statistics.median(service[n])
        print(f"{n} API process{'es' if n > 1 else ''}: floor (bare Flask, one-row "
              f"PostgreSQL append) {f:6.0f}/s, service (real moves) {s_:6.0f}/s, ratio "
              f"{s_ / f:.2f}  (rounds: floor {', '.join(f'{x:.0f}' for x in floor[n])}; "
              f"service {', '.join(f'{x:.0f}' for x in service[n])})")
    for label, values in lat.items():
        stored = latency_jobs[label][2]
        print(f"latency of one submission, {stored:>8} events stored: median "
              f"{statistics.median(values):.2f} ms (rounds: "
              f"{', '.join(f'{x:.2f}' for x in values)})")
    small, big = (statistics.median(v) for v in lat.values())
    print(f"latency ratio big / small: {big / small:.2f}")


if __name__ == "__main__":
    main()
