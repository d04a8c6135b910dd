"""Two API hosts and two worker hosts on one PostgreSQL database and one Redis.

Each "host" is a process group of its own: ``alhambra-pbem serve --no-worker`` (gunicorn,
two workers) on its own port, and ``alhambra-pbem worker`` (RQ, and the claiming loop of
due work). Clients spread over both APIs play 20 two-player games at once to the end
with random legal moves; each game lets its deadline pass twice, so the timeout policy
plays for the seat. Halfway through, one API host and one worker host are killed
with SIGKILL; the clients of the dead API carry on through the other one (a request cut
off is sent again with the same Idempotency-Key).

Afterwards every log is contiguous and replays to its record, every mail the plan of its
batch calls for (started, your turn, timeout, game over: ``service.due.mails`` of the
replayed log) reached the SMTP sink exactly once, and every deadline that was let pass
played exactly one default move.

The worker is killed between two jobs (frozen with SIGSTOP until RQ says it is idle):
a worker killed in the middle of sending a mail cannot know whether the SMTP server
took it, and the mail is then sent again after the claim's lease, so "exactly once" does
not hold for that one mail. Its claiming loop may hold claimed rows (jobs queued for it
included): the survivor claims them again when their lease runs out.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from redis import Redis
from rq import Queue
from rq.registry import FailedJobRegistry

import engine
from engine.record import export_record, import_record
from service import due
from service.settings import Settings
from service.store import MAIL_KINDS, open_store
from tests.support import ROOT, PgDatabase, random_api_move, wait_until
from workers.redis_server import free_port

pytestmark = pytest.mark.e2e

REDIS_URL = os.environ.get("ALHAMBRA_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
GAMES = 20
TIME_PER_MOVE = 4
SKIPS = 2  # deadlines each game lets pass
KILL_AT = 0.5  # of the moves expected in all, when one API and one worker die
MOVES_PER_GAME = 185  # about, for two players (benchmarks/engine.py)


# -- hosts ---------------------------------------------------------------------------------

@dataclass
class Host:
    name: str
    process: subprocess.Popen
    log: Path
    port: int | None = None

    def alive(self) -> bool:
        return self.process.poll() is None

    def kill(self) -> None:
        """SIGKILL for the whole process group: the host is gone."""
        if self.alive():
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> None:
        if self.alive():
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.kill()


def start(name: str, args: list[str], env: dict[str, str], tmp: Path,
          port: int | None = None) -> Host:
    log = tmp / f"{name}.log"
    with open(log, "wb") as out:
        process = subprocess.Popen([sys.executable, "-m", "service.cli", *args], cwd=ROOT,
                                   env=env, stdout=out, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, start_new_session=True)
    return Host(name, process, log, port)


def kill_between_jobs(host: Host, redis: Redis, worker_name: str) -> None:
    """Freeze the worker host, and kill it once RQ has it idle (not inside a job)."""
    key = f"rq:worker:{worker_name}"
    for _ in range(500):
        os.killpg(host.process.pid, signal.SIGSTOP)
        if redis.hget(key, "state") == b"idle":
            host.kill()
            return
        os.killpg(host.process.pid, signal.SIGCONT)
        time.sleep(0.01)
    raise AssertionError(f"{worker_name} was never idle")


# -- clients -------------------------------------------------------------------------------

class Client:
    """JSON over HTTP to the first API that answers; a request cut off (its API died) is
    sent again, unchanged, to the next."""

    def __init__(self, ports: list[int]) -> None:
        self.ports = list(ports)
        self.conn: http.client.HTTPConnection | None = None
        self.failovers = 0

    def request(self, method: str, path: str, body: dict | None = None,
                token: str | None = None, key: str | None = None) -> tuple[int, dict]:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        if key:
            headers["Idempotency-Key"] = key
        for _ in range(len(self.ports) * 3):
            if self.conn is None:
                self.conn = http.client.HTTPConnection("127.0.0.1", self.ports[0], timeout=60)
            try:
                self.conn.request(method, path, json.dumps(body) if body else None, headers)
                resp = self.conn.getresponse()
                return resp.status, json.loads(resp.read() or b"null")
            except (ConnectionError, http.client.HTTPException, OSError):
                self.conn.close()
                self.conn = None
                self.ports.append(self.ports.pop(0))
                self.failovers += 1
                time.sleep(0.05)
        raise AssertionError(f"no API answered {method} {path}")


@dataclass
class Player:
    """Plays one game to the end through ``client``; lets the deadline pass at the
    versions it is at after ``skip_after`` of its moves."""

    game_id: str
    tokens: list[str]
    client: Client
    rng: random.Random
    skip_after: set[int]
    moves: int = 0  # made by this player
    skipped: list[int] = field(default_factory=list)  # versions whose deadline passed
    error: BaseException | None = None

    def game(self) -> dict:
        status, doc = self.client.request("GET", f"/games/{self.game_id}")
        assert status == 200, doc
        return doc

    def play(self) -> None:
        try:
            self._play()
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            self.error = exc

    def _play(self) -> None:
        doc = self.game()
        end = time.monotonic() + 400
        while doc["status"] != "over":
            assert time.monotonic() < end, f"game {self.game_id} did not end"
            seat, version = doc["current_seat"], doc["version"]
            if self.moves in self.skip_after:
                self.skip_after.discard(self.moves)
                self.skipped.append(version)  # wait for the timeout to play
                wait_until(lambda v=version: self.game()["version"] != v, 60, 0.25,
                           f"the deadline of {self.game_id} at version {version}")
                doc = self.game()
                continue
            status, legal = self.client.request(
                "GET", f"/games/{self.game_id}/legal-moves", token=self.tokens[seat])
            assert status == 200, legal
            if not legal["your_turn"]:
                doc = self.game()
                continue
            move = random_api_move(legal, self.rng)
            status, answer = self.client.request(
                "POST", f"/games/{self.game_id}/moves",
                {"move": move, "version": legal["version"]}, self.tokens[seat],
                key=f"{self.game_id}-{legal['version']}")
            if status == 201:
                self.moves += 1
                view = answer["view"]
                doc = {"status": "over" if view["phase"] == "over" else "active",
                       "current_seat": view["current"], "version": answer["version"]}
            elif status in (409, 403):  # a deadline played meanwhile
                doc = self.game()
            else:
                raise AssertionError((status, answer))


# -- the test ------------------------------------------------------------------------------

def batches(store, game_id: str) -> list[tuple[int, int]]:
    """(first, last) version of each batch of the game, as its due rows record them
    (every batch of a running game has its alarm, the last one its "game over" mails)."""
    return sorted({(d.from_version, d.version) for d in store.due_rows(game_id)
                   if d.from_version is not None})


def expected_mails(store, game_id: str) -> set[tuple]:
    """(game, version, kind, seat) of every mail the plan of each batch calls for (the
    pure ``due.mails`` of the replayed log), to the seats with an address."""
    log = store.read(game_id)
    seats = store.game(game_id).seats
    out = set()
    for lo, hi in batches(store, game_id):
        out |= {(game_id, hi, kind, seat) for kind, seat in due.mails(
            lo, log[lo - 1:hi], engine.replay(log[:hi])) if seats[seat].email}
    return out


def test_two_apis_and_two_workers_play_twenty_games(tmp_path, inbox):
    db = PgDatabase()
    redis = Redis.from_url(REDIS_URL)
    run = os.urandom(4).hex()
    queue = f"e2e-{run}"
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(ROOT),
        "DATABASE_URL": db.url, "ALHAMBRA_SECRET_KEY": f"e2e {run}",
        "DATABASE_POOL_SIZE": "4", "REDIS_URL": REDIS_URL, "ALHAMBRA_QUEUE": queue,
        "ALHAMBRA_REDIS_PREFIX": f"{queue}:", "SMTP_URL": inbox.url,
        "MAIL_FROM": "Alhambra <game@test>", "PUBLIC_URL": "http://alhambra.test",
        "ALHAMBRA_MIN_TIME_PER_MOVE": "1", "ALHAMBRA_REMINDERS": "",
        "ALHAMBRA_CLAIM_INTERVAL": "0.1", "ALHAMBRA_CLAIM_LEASE": "20",
    }
    hosts: list[Host] = []
    game_ids: list[str] = []
    try:
        migrated = subprocess.run([sys.executable, "-m", "service.cli", "migrate"], cwd=ROOT,
                                  env={**env, "ALHAMBRA_DATA": str(tmp_path / "ops")},
                                  capture_output=True, text=True, timeout=60)
        assert migrated.returncode == 0, migrated.stderr
        for i in (1, 2):
            port = free_port()
            hosts.append(start(f"api{i}", ["serve", "--no-worker", "--workers", "2",
                                           "--host", "127.0.0.1", "--port", str(port)],
                               {**env, "ALHAMBRA_DATA": str(tmp_path / f"api{i}")},
                               tmp_path, port))
        for i in (1, 2):
            hosts.append(start(f"worker{i}", ["worker", "--name", f"{queue}-w{i}"],
                               {**env, "ALHAMBRA_DATA": str(tmp_path / f"worker{i}")},
                               tmp_path))
        api1, api2, worker1, _ = hosts
        for api in (api1, api2):
            wait_until(lambda a=api: _port_open(a.port) or not a.alive(), 60,
                       what=f"{api.name} to listen")
            assert api.alive(), api.log.read_text()[-3000:]

        # 20 games, created and played through both APIs
        players: list[Player] = []
        for g in range(GAMES):
            client = Client([api1.port, api2.port] if g % 2 else [api2.port, api1.port])
            status, created = client.request("POST", "/games", {
                "seats": [{"name": "P0", "email": "p0@example.org"}, {"name": "P1"}],
                "time_per_move": TIME_PER_MOVE})
            assert status == 201, created
            game_ids.append(created["game_id"])
            rng = random.Random(g)
            players.append(Player(created["game_id"],
                                  [s["token"] for s in created["seats"]], client, rng,
                                  set(rng.sample(range(5, 120), SKIPS))))
        threads = [threading.Thread(target=p.play, daemon=True) for p in players]
        started = time.monotonic()
        for t in threads:
            t.start()

        def moves() -> int:
            return sum(p.moves for p in players)

        wait_until(lambda: moves() >= KILL_AT * GAMES * MOVES_PER_GAME, 200, 0.2,
                   "half of the moves")
        api1.kill()
        kill_between_jobs(worker1, redis, f"{queue}-w1")
        killed_at = moves()
        for t in threads:
            t.join(max(1, 420 - (time.monotonic() - started)))
        errors = [(p.game_id, p.error) for p in players if p.error]
        assert not errors, errors
        assert not any(t.is_alive() for t in threads)
        assert moves() > killed_at + GAMES * 10  # the others carried on
        assert sum(p.client.failovers for p in players) > 0  # some clients were cut off

        # Every log contiguous, in batches without gap or overlap, replaying to its record.
        store = open_store(Settings.from_env({**env, "ALHAMBRA_DATA": str(tmp_path)}))
        for game_id in game_ids:
            game, rows, log = store.game(game_id), store.transfer.dump(game_id), \
                store.read(game_id)
            assert game.status == "over" and len(log) == game.version
            assert [e["version"] for e in rows["events"]] == list(range(1, game.version + 1))
            ends = batches(store, game_id)
            assert [lo for lo, _ in ends] == [1] + [hi + 1 for _, hi in ends[:-1]]
            assert ends[-1][1] == game.version
            state = engine.replay(log)
            record = export_record(log, state)
            status, served = Client([api2.port]).request("GET", f"/games/{game_id}/record")
            # the engine's record, with the game's table talk beside it (none here)
            assert status == 200 and served.pop("messages") == []
            assert served == json.loads(json.dumps(record))
            again = engine.replay(import_record(record))
            for seat in (None, 0, 1):
                assert engine.view(again, seat) == engine.view(state, seat)

        # Every mail the plan calls for, exactly once.
        def mails_due() -> int:
            return sum(d.kind in MAIL_KINDS and d.state != "done"
                       for g in game_ids for d in store.due_rows(g))

        wait_until(lambda: not mails_due(), 180, 0.5, "the due mails to go out")
        expected = set().union(*(expected_mails(store, g) for g in game_ids))

        def received() -> Counter:
            return Counter((m.game, m.version, m.kind, int(m.rcpt[0][1]))
                           for m in inbox.messages if m.game in game_ids)

        played = time.monotonic() - started
        try:
            wait_until(lambda: set(received()) >= expected, 180, 0.5,
                       f"{len(expected)} mails")
        finally:
            print(f"played in {played:.0f} s, mails after {time.monotonic() - started:.0f}"
                  f" s: {len(set(received()) & expected)} of {len(expected)}; queue "
                  f"{Queue(queue, connection=redis).count}")
        time.sleep(2)  # a late duplicate would arrive now
        got = received()
        assert set(got) == expected
        assert {k: n for k, n in got.items() if n != 1} == {}
        ids = [m.msg["Message-ID"] for m in inbox.messages if m.game in game_ids]
        assert len(ids) == len(set(ids)) == len(expected)
        assert {k for k in expected if k[2] == "your_turn"}
        for game_id in game_ids:
            assert {d.result for d in store.due_rows(game_id) if d.kind in MAIL_KINDS} \
                <= {"sent", "no-address"}

        # Every deadline let pass played one default move (one batch, one mail).
        for p in players:
            ends = dict(batches(store, p.game_id))
            log = store.read(p.game_id)
            alarms = [d for d in store.due_rows(p.game_id) if d.kind == "deadline"]
            assert len(p.skipped) == SKIPS
            for version in p.skipped:
                to = ends[version + 1]
                (alarm,) = [d for d in alarms if d.version == version]
                assert (alarm.state, alarm.result) == ("done", "applied")
                moved = [e for e in log[version:to] if "move" in e]
                assert moved and all(e.get("timeout") for e in moved), (p.game_id, version)
                if moved[0]["seat"] == 0:  # the seat with an address is told
                    assert got[(p.game_id, to, "timeout", 0)] == 1
        assert FailedJobRegistry(queue, connection=redis).count == 0
        store.close()
    finally:
        for host in hosts:
            host.stop()
        for game_id in game_ids:
            _delete(redis, f"*{game_id}*")
        _delete(redis, f"*{queue}*")
        db.drop()
        redis.close()


def _port_open(port: int) -> bool:
    import socket

    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def _delete(redis: Redis, pattern: str) -> None:
    """Remove this run's keys (their names hold its random ids) from the shared Redis."""
    keys = list(redis.scan_iter(match=pattern, count=1000))
    if keys:
        redis.delete(*keys)

