"""Benchmark of idle /games/{id}/stream connections on a real `alhambra-pbem serve`.

    .venv/bin/python benchmarks/streams.py [--streams 2000] [--games 50] [--workers 2]

Starts `serve` (its defaults: 2 gunicorn workers of 8 threads, SQLite, the private Redis,
a worker), creates --games games and opens --streams streams on them (each game's seats
and spectators in turn) from loopback aliases 127.0.x.y, --per-address each (the default
cap, ALHAMBRA_STREAMS_PER_CLIENT, is 8). With them all open and idle it measures:

1. `/health`: the latency of 20 requests (median, max);
2. a move in every game (POST /games/{id}/moves): the latency of each (median, max);
3. delivery: for each move, the time until every stream of that game has its event
   (median, p95, max over all streams; and how many heard it within 2 s);
4. memory: the resident memory of serve's API processes (master and gunicorn workers)
   before and with the streams open, and per stream.

Streams last --stream-seconds (default 120, longer than the run, so that none ends
while measuring). Not a test: CI never runs it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import selectors
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from workers.redis_server import free_port  # noqa: E402

ID = re.compile(rb"\nid: (\d+)\n")


def call(base: str, path: str, body: dict | None = None, token: str | None = None,
         timeout: float = 30) -> dict:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    req = urllib.request.Request(base + path, data=json.dumps(body).encode() if body else None,
                                 method="POST" if body else "GET", headers=headers)
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        return json.loads(resp.read())


class Streams:
    """Open streams and a thread that notes when each hears each version."""

    def __init__(self) -> None:
        self.selector = selectors.DefaultSelector()
        self.heads: dict[socket.socket, bool] = {}
        self.heard: dict[socket.socket, dict[int, float]] = {}
        self.tail: dict[socket.socket, bytes] = {}
        self.game: dict[socket.socket, str] = {}
        self.closed = 0
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.read, daemon=True)

    def open(self, port: int, source: str, game_id: str, token: str | None, since: int
             ) -> None:
        s = socket.create_connection(("127.0.0.1", port), timeout=30,
                                     source_address=(source, 0))
        auth = f"Authorization: Bearer {token}\r\n" if token else ""
        s.sendall(f"GET /games/{game_id}/stream?since={since} HTTP/1.1\r\nHost: bench\r\n"
                  f"{auth}Accept: text/event-stream\r\n\r\n".encode())
        s.setblocking(False)
        with self.lock:
            self.heads[s], self.heard[s], self.tail[s], self.game[s] = False, {}, b"", game_id
            self.selector.register(s, selectors.EVENT_READ)

    def read(self) -> None:
        while not self.stop.is_set():
            with self.lock:
                events = self.selector.select(0.05) if self.heads else []
            now = time.monotonic()
            for key, _ in events:
                s = key.fileobj
                try:
                    data = s.recv(65536)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                with self.lock:
                    if not data:
                        self.selector.unregister(s)
                        self.closed += 1
                        continue
                    text = self.tail[s] + data
                    if not self.heads[s]:
                        self.heads[s] = text.startswith(b"HTTP/1.1 200")
                        if not text.startswith(b"HTTP/1.1 "):
                            continue
                        if not self.heads[s]:
                            print("refused:", text[:60], file=sys.stderr)
                    for m in ID.finditer(text):
                        self.heard[s].setdefault(int(m.group(1)), now)
                    self.tail[s] = text[-64:]

    def of(self, game_id: str) -> list[socket.socket]:
        return [s for s, g in self.game.items() if g == game_id]


def api_memory(serve: psutil.Process) -> int:
    """Resident bytes of serve and its gunicorn workers (not Redis, not the worker)."""
    procs = [serve] + [c for c in serve.children() if "service.cli" in " ".join(c.cmdline())
                       and "mail-in" not in " ".join(c.cmdline())]
    return sum(p.memory_info().rss for p in procs)


def quantile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--streams", type=int, default=2000)
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--per-address", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--stream-seconds", type=float, default=120)
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

    tmp = Path(tempfile.mkdtemp(prefix="alhambra-streams-"))
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "SMTP_URL")}
    env.update(ALHAMBRA_DATA=str(tmp / "data"), PYTHONPATH=str(ROOT),
               ALHAMBRA_STREAM_SECONDS=str(args.stream_seconds),
               ALHAMBRA_LIMIT_CREATE="100000/hour")
    log = open(tmp / "serve.log", "wb")  # noqa: SIM115
    proc = subprocess.Popen([sys.executable, "-m", "service.cli", "serve", "--port", str(port),
                             "--workers", str(args.workers)], env=env, cwd=ROOT, stdout=log,
                            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    streams = Streams()
    try:
        for _ in range(400):
            try:
                call(base, "/health", timeout=2)
                break
            except OSError:
                time.sleep(0.1)
        serve = psutil.Process(proc.pid)
        games = []
        for i in range(args.games):
            created = call(base, "/games", {"seats": [{"name": f"A{i}"}, {"name": f"B{i}"}]})
            games.append(created)
        time.sleep(2)  # the worker's first mails, the caches warm
        before = api_memory(serve)
        streams.thread.start()
        started = time.monotonic()
        for n in range(args.streams):
            created = games[n % len(games)]
            viewer = (n // len(games)) % 3  # seat 0, seat 1, a spectator
            token = created["seats"][viewer]["token"] if viewer < 2 else None
            a = n // args.per_address + 2
            streams.open(port, f"127.0.{a // 250}.{a % 250 + 1}", created["game_id"], token,
                         created["game"]["version"])
        while time.monotonic() - started < 120:
            with streams.lock:
                if all(streams.heads.values()):
                    break
            time.sleep(0.05)
        opened = time.monotonic() - started
        with streams.lock:
            answered = sum(streams.heads.values())
        time.sleep(3)
        with_streams = api_memory(serve)

        health = []
        for _ in range(20):
            t = time.monotonic()
            call(base, "/health", timeout=10)
            health.append(time.monotonic() - t)
        moves, delivery, late, missing = [], [], 0, 0
        for created in games:
            gid = created["game_id"]
            seat = created["game"]["current_seat"]
            t = time.monotonic()
            answer = call(base, f"/games/{gid}/moves",
                          {"version": created["game"]["version"], "move": "take 1"},
                          created["seats"][seat]["token"], timeout=30)
            moves.append(time.monotonic() - t)
            version = answer["version"]
            watchers = streams.of(gid)
            end = t + 10
            while time.monotonic() < end:
                with streams.lock:
                    if all(version in streams.heard[s] for s in watchers):
                        break
                time.sleep(0.01)
            with streams.lock:
                for s in watchers:
                    if version in streams.heard[s]:
                        delivery.append(streams.heard[s][version] - t)
                        late += streams.heard[s][version] - t > 2
                    else:
                        missing += 1
        with streams.lock:
            closed = streams.closed
        print(json.dumps({
            "streams": args.streams, "answered_200": answered, "games": args.games,
            "addresses": (args.streams + args.per_address - 1) // args.per_address,
            "seconds_to_open_all": round(opened, 2),
            "closed_during_run": closed,
            "health_seconds": {"median": round(statistics.median(health), 4),
                               "max": round(max(health), 4)},
            "move_seconds": {"median": round(statistics.median(moves), 4),
                             "max": round(max(moves), 4)},
            "delivery_seconds": {"median": round(statistics.median(delivery), 3),
                                 "p95": round(quantile(delivery, 0.95), 3),
                                 "max": round(max(delivery), 3)} if delivery else None,
            "deliveries": len(delivery), "late_over_2s": late, "missing": missing,
            "api_memory_mb": {"before": round(before / 2**20, 1),
                              "with_streams": round(with_streams / 2**20, 1),
                              "per_stream_kb": round((with_streams - before) / 1024
                                                     / max(1, args.streams), 1)},
        }, indent=2))
    finally:
        streams.stop.set()
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
