"""Benchmark of move submissions through gunicorn (2 workers) on loopback.

    .venv/bin/python benchmarks/api.py [--games 100000] [--seconds 10] [--clients 8]

Prints:
1. the floor: a bare Flask route that parses the same kind of JSON body and does the same
   SQLite append of one row (WAL, BEGIN IMMEDIATE, version check), submissions per second;
2. the service: real moves (precomputed random legal moves, each against its version)
   submitted to `alhambra-pbem serve`, submissions per second, and the ratio to the floor;
3. the latency of one submission (one client, median and p95) with 100 and with --games
   games stored.

Not a test: CI never runs it.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import engine  # noqa: E402
from engine.bots import random_move  # noqa: E402
from engine.rules import play  # noqa: E402
from service.store import codec, sqlite_store  # noqa: E402

# -- the floor ---------------------------------------------------------------------------


def floor_app():
    """A bare Flask app: POST /games/<id>/moves appends one row after a version check."""
    from flask import Flask, jsonify, request

    app = Flask(__name__)
    path = os.environ["FLOOR_DB"]
    local = threading.local()

    def conn():
        if getattr(local, "pid", None) != os.getpid():
            c = sqlite3.connect(path, isolation_level=None, timeout=30)
            c.execute("pragma journal_mode=wal")
            c.execute("pragma synchronous=normal")
            local.conn, local.pid = c, os.getpid()
        return local.conn

    @app.post("/games/<game_id>/moves")
    def append(game_id):
        body = request.get_json()
        c = conn()
        c.execute("begin immediate")
        try:
            row = c.execute("select version from games where id = ?", (game_id,)).fetchone()
            version = row[0]
            if version != body["version"]:
                c.execute("rollback")
                return jsonify(current_version=version), 409
            c.execute("insert into events (game_id, version, type, payload, created_at) "
                      "values (?, ?, ?, ?, ?)", (game_id, version + 1, "move",
                                                 json.dumps(body), time.time()))
            c.execute("update games set version = ? where id = ?", (version + 1, game_id))
            c.execute("commit")
        except BaseException:
            c.execute("rollback")
            raise
        return jsonify(version=version + 1), 201

    return app


def make_floor_db(path: Path, games: int) -> None:
    c = sqlite3.connect(path)
    c.execute("pragma journal_mode=wal")
    c.execute("create table games (id text primary key, version integer not null)")
    c.execute("create table events (game_id text, version integer, type text, payload text,"
              " created_at real, primary key (game_id, version))")
    c.executemany("insert into games values (?, 0)", [(f"g{i}",) for i in range(games)])
    c.commit()
    c.close()


# -- servers and clients -----------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(cmd: list[str], env: dict[str, str], port: int) -> subprocess.Popen:
    proc = subprocess.Popen(cmd, env={**os.environ, **env}, cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    for _ in range(1200):  # up to a minute: a busy machine starts slowly
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return proc
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError(proc.stderr.read().decode())


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()


class Client:
    def __init__(self, port: int) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def post(self, path: str, body: dict, token: str | None = None) -> tuple[int, bytes]:
        """POST ``body``; the answer is read whole but not decoded (the client shares the
        machine's CPUs with the server, so it does as little as it can)."""
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        self.conn.request("POST", path, json.dumps(body), headers)
        resp = self.conn.getresponse()
        data = resp.read()
        if resp.getheader("Connection", "").lower() == "close":
            self.conn.close()
        return resp.status, data


# -- games with known seeds, and their moves -----------------------------------------------


def create_games(store, count: int, base_seed: int, variant: str = "alhambra",
                 players: int = 4, emails: bool = False, time_per_move: int | None = 3600,
                 time_control: dict | None = None) -> list[dict]:
    """Games created in ``store`` through the service's own code with known seeds (so the
    benchmark can precompute legal moves), each with its seat tokens and the moves to
    play. ``emails``: each seat has an address (its mails are planned as due work)."""
    import service.games as sg
    from service.games import Games

    games = Games(store, cache_size=0)
    out = []
    real = sg.secrets.randbits
    try:
        for i in range(count):
            seed = base_seed + i
            sg.secrets.randbits = lambda _bits, seed=seed: seed
            seats = [{"name": f"P{j}", **({"email": f"p{j}@example.org"} if emails else {})}
                     for j in range(players)]
            created = games.create(variant=variant, options={}, players=players, seats=seats,
                                   time_per_move=time_per_move, time_control=time_control,
                                   timeout_policy="default_move")
            state = engine.replay(store.read(created["game_id"]))
            assert state.seed == seed
            rng = random.Random(seed)
            moves = []
            while state.phase != "over":
                seat = state.current
                move = random_move(state, seat, rng)
                moves.append((seat, str(move), state.version))
                play(state, seat, move)
            out.append({"id": created["game_id"], "tokens": [s["token"] for s in
                                                             created["seats"]],
                        "moves": moves})
    finally:
        sg.secrets.randbits = real
    return out


def fill(db: Path, count: int) -> None:
    """``count`` more games with real setup logs, inserted in bulk (for index size)."""
    sqlite_store(str(db)).close()
    template = engine.new_game("alhambra", ["a", "b", "c"], 1)
    data = codec.encode(template)  # the setup: one batch (service/store/codec.py)
    c = sqlite3.connect(db)
    c.execute("pragma journal_mode=wal")
    stamp = "2026-01-01T00:00:00.000Z"
    batch = 5000
    for start_ in range(0, count, batch):
        ids = [f"f{n:015x}" for n in range(start_, min(count, start_ + batch))]
        c.executemany(
            "insert into games (id, variant, options, players, status, phase, version, "
            "current_seat, time_per_move, timeout_policy, deadline, imported, created_at, "
            "updated_at) values (?, 'alhambra', '{}', 3, 'active', 'action', ?, 0, 3600, "
            "'default_move', null, 0, ?, ?)",
            [(g, len(template), stamp, stamp) for g in ids])
        c.executemany("insert into seats (game_id, seat, name, token_hash, joined_at) "
                      "values (?, ?, ?, ?, ?)",
                      [(g, s, f"p{s}", f"{g}-{s}", stamp) for g in ids for s in range(3)])
        c.executemany("insert into event_batches (game_id, version, first, at, data) "
                      "values (?, ?, 1, 1767225600000, ?)",
                      [(g, len(template), data) for g in ids])
        c.commit()
    c.close()


# -- measurements --------------------------------------------------------------------------


def throughput(port: int, jobs: list, seconds: float) -> float:
    """Each job is one client's iterator of (path, body, token); they post until the time is
    up. Returns the 2xx answers per second."""
    done = [0] * len(jobs)
    stop_at = [0.0]
    barrier = threading.Barrier(len(jobs) + 1)
    errors = []

    def run(i):
        client = Client(port)
        barrier.wait()
        while time.perf_counter() < stop_at[0]:
            item = next(jobs[i], None)
            if item is None:  # a rate counted over a client that stopped would be wrong
                errors.append(f"client {i} ran out of moves: more games are needed")
                break
            status, answer = client.post(*item)
            if status not in (200, 201):
                errors.append(f"{status}: {answer}")
                break
            done[i] += 1

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(jobs))]
    for t in threads:
        t.start()
    start_ = time.perf_counter()
    stop_at[0] = start_ + seconds
    barrier.wait()
    for t in threads:
        t.join()
    if errors:
        raise RuntimeError(errors[0])
    return sum(done) / (time.perf_counter() - start_)


def latency(port: int, job, n: int) -> float:
    """The median time of ``n`` submissions by one client, in ms."""
    client = Client(port)
    times = []
    for _ in range(n):
        item = next(job)
        t = time.perf_counter()
        status, answer = client.post(*item)
        times.append(time.perf_counter() - t)
        if status != 201:
            raise RuntimeError(f"{status}: {answer}")
    return statistics.median(times) * 1000


def service_job(games: list[dict]):
    for g in games:
        for seat, move, version in g["moves"]:
            yield f"/games/{g['id']}/moves", {"move": move, "version": version}, \
                g["tokens"][seat]


def floor_job(game: str):
    version = 0
    while True:
        yield f"/games/{game}/moves", {"move": "take 1", "version": version}, None
        version += 1


def serve(db: Path, port: int) -> subprocess.Popen:
    exe = str(Path(sys.executable).with_name("alhambra-pbem"))
    cmd = [exe] if Path(exe).exists() else [sys.executable, "-m", "service.cli"]
    # The API alone (no background worker), as the floor is a bare route.
    return start(cmd + ["serve", "--host", "127.0.0.1", "--port", str(port), "--workers",
                        "2", "--no-worker", "--db", str(db)],
                 {"ALHAMBRA_DATA": str(db.parent / f"data-{port}")}, port)  # its own Redis


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--latency-moves", type=int, default=200)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="alhambra-bench-"))
    procs = []
    try:
        floor_db = tmp / "floor.db"
        make_floor_db(floor_db, args.clients)
        floor_port = free_port()
        gunicorn = str(Path(sys.executable).with_name("gunicorn"))
        procs.append(start([gunicorn, "-w", "2", "-b", f"127.0.0.1:{floor_port}", "--chdir",
                            str(ROOT), "benchmarks.api:floor_app()"],
                           {"FLOOR_DB": str(floor_db)}, floor_port))
        floor_jobs = [floor_job(f"g{i}") for i in range(args.clients)]

        # moves enough for the warm-up and every round at up to 2,000 moves a second, and
        # for one client served four times its share (a busy machine is not fair)
        per_client = max(2, round((args.rounds * args.seconds + 1) * 2000 * 4 / args.clients
                                  / 250))
        servers = {}
        for stored in (100, args.games):
            db = tmp / f"service-{stored}.db"
            t = time.perf_counter()
            store = sqlite_store(str(db))
            games = create_games(store, args.clients * per_client + 4, base_seed=1000)
            store.close()
            fill(db, stored - len(games))
            port = free_port()
            procs.append(serve(db, port))
            jobs = [service_job(games[i * per_client:(i + 1) * per_client])
                    for i in range(args.clients)]
            servers[stored] = {"port": port, "jobs": jobs,
                               "latency_job": service_job(games[-4:]),
                               "setup": time.perf_counter() - t}
            print(f"set up {stored} games in {servers[stored]['setup']:.0f} s", flush=True)

        # warm up: imports, connections, both workers' caches
        throughput(floor_port, floor_jobs, 1)
        for srv in servers.values():
            throughput(srv["port"], srv["jobs"], 1)
            latency(srv["port"], srv["latency_job"], 10)

        floor, service_, lat = [], [], {k: [] for k in servers}
        for _ in range(args.rounds):  # interleaved, so that a busy machine hurts both
            floor.append(throughput(floor_port, floor_jobs, args.seconds))
            service_.append(throughput(servers[100]["port"], servers[100]["jobs"],
                                       args.seconds))
            for stored, srv in servers.items():
                lat[stored].append(latency(srv["port"], srv["latency_job"],
                                           args.latency_moves))
    finally:
        for proc in procs:
            stop(proc)
    f, s_ = statistics.median(floor), statistics.median(service_)
    print(f"floor (bare Flask route, one-row SQLite append, gunicorn -w 2): {f:6.0f} "
          f"submissions/s  (rounds: {', '.join(f'{x:.0f}' for x in floor)})")
    print(f"service (real moves, gunicorn -w 2, {args.clients} clients):       {s_:6.0f} "
          f"submissions/s  (rounds: {', '.join(f'{x:.0f}' for x in service_)})")
    print(f"ratio service / floor: {s_ / f:.2f}")
    for stored, values in lat.items():
        print(f"latency of one submission, {stored:>7} games stored: median "
              f"{statistics.median(values):.2f} ms (rounds: "
              f"{', '.join(f'{x:.2f}' for x in values)})")
    small, big = (statistics.median(lat[k]) for k in servers)
    print(f"latency ratio {args.games} / 100 games: {big / small:.2f}")


if __name__ == "__main__":
    main()
