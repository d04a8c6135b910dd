"""Deadlines while both cores are busy (issue 21): an API host and two worker hosts on
one PostgreSQL database and one Redis, beside two CPU-bound processes; games whose seats
never move. Every deadline is played once, by exactly one default move per turn, however
late the loaded machine runs it: the test waits for the work (it polls the database for
the default moves and the mail sink for their mails, within a generous bound), never for
a guessed wall-clock time."""

from __future__ import annotations

import multiprocessing
import os
import time
from collections import Counter

import pytest
from redis import Redis

from service.settings import Settings
from service.store import open_store
from tests.e2e.test_multihost import REDIS_URL, Client, _delete, _port_open, start
from tests.support import ROOT, PgDatabase, wait_until
from workers.redis_server import free_port

pytestmark = pytest.mark.e2e

GAMES = 4
TURNS = 3  # deadlines each game lets pass
BUSY_SECONDS = 120  # the CPU-bound processes stop by themselves after this long


def burn(until: float) -> None:
    """Keep one core busy until ``until`` (monotonic)."""
    x = 0
    while time.monotonic() < until:
        for i in range(100_000):
            x ^= i


def test_deadlines_fire_once_while_both_cores_are_busy(tmp_path, inbox):
    db = PgDatabase()
    redis = Redis.from_url(REDIS_URL)
    run = os.urandom(4).hex()
    queue = f"busy-{run}"
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(ROOT),
        "DATABASE_URL": db.url,
        "ALHAMBRA_SECRET_KEY": f"busy {run}", "DATABASE_POOL_SIZE": "4",
        "REDIS_URL": REDIS_URL, "ALHAMBRA_QUEUE": queue, "ALHAMBRA_REDIS_PREFIX": f"{queue}:",
        "SMTP_URL": inbox.url, "MAIL_FROM": "Alhambra <game@test>",
        "PUBLIC_URL": "http://alhambra.test", "ALHAMBRA_MIN_TIME_PER_MOVE": "1",
        "ALHAMBRA_REMINDERS": "", "ALHAMBRA_CLAIM_LEASE": "30",
    }
    hosts = []
    burners = [multiprocessing.Process(target=burn, args=(time.monotonic() + BUSY_SECONDS,),
                                       daemon=True) for _ in range(2)]
    game_ids: list[str] = []
    try:
        migrated = start("migrate", ["migrate"], {**env, "ALHAMBRA_DATA": str(tmp_path)},
                         tmp_path)
        assert migrated.process.wait(60) == 0, migrated.log.read_text()
        port = free_port()
        hosts.append(start("api", ["serve", "--no-worker", "--workers", "1", "--host",
                                   "127.0.0.1", "--port", str(port)],
                           {**env, "ALHAMBRA_DATA": str(tmp_path / "api")}, tmp_path, port))
        for i in (1, 2):
            hosts.append(start(f"worker{i}", ["worker", "--name", f"{queue}-w{i}"],
                               {**env, "ALHAMBRA_DATA": str(tmp_path / f"w{i}")}, tmp_path))
        wait_until(lambda: _port_open(port) or not hosts[0].alive(), 60, what="the API")
        for b in burners:
            b.start()
        client = Client([port])
        for _ in range(GAMES):
            status, created = client.request("POST", "/games", {
                "seats": [{"name": "P0", "email": "p0@example.org"},
                          {"name": "P1", "email": "p1@example.org"}],
                "time_per_move": 2, "takeover_after_timeouts": 0})
            assert status == 201, created
            game_ids.append(created["game_id"])
        store = open_store(Settings.from_env({**env, "ALHAMBRA_DATA": str(tmp_path)}))

        def timed_out_turns(game_id: str) -> list[int]:
            """The first version of each batch of default moves."""
            log = store.read(game_id)
            return [v for v, e in enumerate(log, start=1)
                    if e.get("timeout") and not log[v - 2].get("timeout")]

        started = time.monotonic()
        wait_until(lambda: all(len(timed_out_turns(g)) >= TURNS for g in game_ids), 240,
                   0.5, f"{TURNS} deadlines in each game")
        print(f"\n{GAMES * TURNS} deadlines played under load in "
              f"{time.monotonic() - started:.0f} s")
        for game_id in game_ids:
            alarms = [d for d in store.due_rows(game_id) if d.kind == "deadline"
                      and d.state == "done" and d.result == "applied"]
            turns = timed_out_turns(game_id)
            # each alarm that played was followed by one batch of default moves, no more
            assert len(alarms) >= TURNS and {a.version + 1 for a in alarms} >= set(
                turns[:TURNS])
            wanted = len(alarms)
            wait_until(lambda g=game_id, n=wanted: len(
                {m.version for m in inbox.of(g, "timeout")}) >= n, 120, 0.5,
                f"the timeout mails of {game_id}")
        time.sleep(2)  # a late duplicate would come now
        for game_id in game_ids:
            counts = Counter(m.msg["Message-ID"] for m in inbox.of(game_id, "timeout"))
            assert set(counts.values()) == {1}, counts
        store.close()
    finally:
        for b in burners:
            if b.is_alive():
                b.terminate()
            b.join(5)
        for host in hosts:
            host.stop()
        for game_id in game_ids:
            _delete(redis, f"*{game_id}*")
        _delete(redis, f"*{queue}*")
        db.drop()
        redis.close()
