"""``alhambra-pbem serve`` watches its children (issue 10.5): ``kill -9`` of its worker or of
its embedded Redis makes ``/health`` answer 503 naming the part, then 200 once ``serve``
has started it again; mails of games made around the kills arrive, each once. A real
``serve`` (gunicorn, the embedded Valkey, worker processes) and a real SMTP sink."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from collections import Counter

import psutil

from service.store import SqlStore
from service.store.dialect import Sqlite
from tests.support import ROOT, stop_serve, wait_until
from workers.redis_server import free_port


def _health(base: str) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(base + "/health", timeout=3) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())
    except OSError:
        return 0, {}


def _create(base: str) -> str:
    body = {"seats": [{"name": "Ann", "email": "ann@example.org"},
                      {"name": "Bob", "email": "bob@example.org"}]}
    req = urllib.request.Request(base + "/games", data=json.dumps(body).encode(),
                                 method="POST", headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return json.loads(resp.read())["game_id"]


def _child(proc: subprocess.Popen, words: str, without: str = "\0") -> psutil.Process:
    for child in psutil.Process(proc.pid).children(recursive=True):
        line = " ".join(child.cmdline())
        if words in line and without not in line and child.status() != psutil.STATUS_ZOMBIE:
            return child
    raise AssertionError(f"no child process running {words!r}")


def test_serve_restarts_a_killed_worker_and_redis_and_health_says_what_is_down(tmp_path, smtp):
    port = free_port()
    env = {k: v for k, v in os.environ.items()
           if k not in ("REDIS_URL", "SMTP_URL", "PUBLIC_URL")}
    env.update(ALHAMBRA_DATA=str(tmp_path / "data"), ALHAMBRA_CLAIM_INTERVAL="0.05",
               ALHAMBRA_CLAIM_LEASE="5", SMTP_URL=smtp.url,
               PYTHONPATH=str(ROOT))
    log = open(tmp_path / "serve.log", "wb")  # noqa: SIM115
    proc = subprocess.Popen([sys.executable, "-m", "service.cli", "serve", "--port", str(port),
                             "--workers", "1"], env=env, cwd=ROOT, stdout=log,
                            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    store = SqlStore(Sqlite(str(tmp_path / "data" / "alhambra.db")), check_schema=False)
    seen: set[psutil.Process] = set()
    games: list[str] = []

    def up() -> bool:
        assert proc.poll() is None, (tmp_path / "serve.log").read_text()[-3000:]
        seen.update(psutil.Process(proc.pid).children(recursive=True))
        return _health(base)[0] == 200

    def down(part: str) -> dict:
        status, doc = _health(base)
        return doc if status == 503 and doc["parts"].get(part, {}).get("status") == "down" \
            else {}

    def mails_of(game_id: str) -> None:
        """Both "started" mails arrived, and the worker recorded them sent: a worker
        killed between the two would send the mail again (at least once, by design)."""
        smtp.wait(game_id, "started", 2, timeout=40)  # the first turn's: one of them
        wait_until(lambda: all(d.state == "done" for d in store.due_rows(game_id)
                               if d.kind == "started"), 10, 0.02, "the mails recorded sent")

    def mails_of_a_new_game() -> None:
        games.append(_create(base))
        mails_of(games[-1])

    try:
        wait_until(up, 40, 0.1, "serve healthy")
        status, doc = _health(base)
        assert doc["status"] == "ok" and {p: v["status"] for p, v in doc["parts"].items()} == {
            "database": "ok", "due": "ok", "redis": "ok", "worker": "ok",
            "webhook_worker": "ok", "mail": "ok"}
        assert doc["parts"]["due"]["lag_seconds"] == 0
        mails_of_a_new_game()

        worker = _child(proc, "-m workers", without="--queues")
        worker.kill()  # kill -9
        doc = wait_until(lambda: down("worker"), 15, 0.05, "503: the worker is down")
        assert doc["parts"]["redis"]["status"] == "ok"
        games.append(_create(base))  # while no worker runs
        wait_until(up, 30, 0.1, "200: the worker started again")
        assert _child(proc, "-m workers", without="--queues").pid != worker.pid
        mails_of(games[-1])
        mails_of_a_new_game()

        redis = _child(proc, "valkey-server")
        redis.kill()
        doc = wait_until(lambda: down("redis"), 15, 0.05, "503: Redis is down")
        assert "error" in doc["parts"]["redis"]
        games.append(_create(base))  # while Redis is away (or just back)
        wait_until(up, 40, 0.1, "200: Redis started again")
        assert _child(proc, "valkey-server").pid != redis.pid
        mails_of(games[-1])
        mails_of_a_new_game()

        ids = Counter(m.msg["Message-ID"] for g in games for m in smtp.of(g))
        lost = 2 * len(games) - len(ids)  # each game's two "started" mails
        duplicated = sum(n - 1 for n in ids.values())
        print(f"\nafter a worker and a Redis kill -9: {lost} mails lost, "
              f"{duplicated} duplicated, of {2 * len(games)}")
        assert (lost, duplicated) == (0, 0)
    finally:
        store.close()
        code = stop_serve(proc, seen, log)  # nothing left behind, even on failure
    assert code == 0, (tmp_path / "serve.log").read_text()[-3000:]
