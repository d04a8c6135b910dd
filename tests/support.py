"""What the service and workers tests share: games played through the HTTP API, problem
checks, waiting, an SMTP sink, a stack of real parts (a worker process and the API on
one SQLite file), and throwaway PostgreSQL databases. Fixtures live in the conftest files;
this module holds the helpers."""

from __future__ import annotations

import email
import email.policy
import itertools
import json
import os
import random
import secrets
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from email.message import EmailMessage
from functools import cached_property
from pathlib import Path
from typing import Any
from urllib.parse import quote as url_quote

import psutil
import psycopg

import engine
from service import create_app
from service.settings import Settings

ROOT = Path(__file__).resolve().parents[1]


def auth(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


def check_problem(r, status: int, code: str | None = None) -> dict:
    """``r`` is a problem+json answer of ``status`` (and ``code``); its body."""
    assert r.status_code == status, r.get_json()
    assert r.mimetype == "application/problem+json"
    body = r.get_json()
    assert body["status"] == status and body["code"] and body["title"] and body["type"]
    if code:
        assert body["code"] == code, body
    return body


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


def replayed(games, game_id: str) -> engine.State:
    """The game's state replayed from its stored log (no cache)."""
    return engine.replay(games.store.read(game_id))


# -- games through the API ---------------------------------------------------------------

@dataclass
class GameHandle:
    """A game created through the API, with every seat's token."""

    client: Any
    id: str
    tokens: list[str]
    host_token: str
    invite_code: str | None = None
    created: dict = field(default_factory=dict)

    def get(self, seat: int | None = None) -> dict:
        r = self.client.get(f"/games/{self.id}",
                            headers=auth(self.tokens[seat] if seat is not None else None))
        assert r.status_code == 200, r.get_json()
        return r.get_json()

    def legal(self, seat: int) -> dict:
        r = self.client.get(f"/games/{self.id}/legal-moves", headers=auth(self.tokens[seat]))
        assert r.status_code == 200, r.get_json()
        return r.get_json()

    def notations(self, seat: int) -> list[str]:
        """The seat's legal moves now, in notation."""
        return [m["notation"] for m in self.legal(seat)["moves"]]

    def submit(self, seat: int, move: str | None = None, version: int | None = None,
               moves: list | None = None, headers: dict | None = None):
        body: dict[str, Any] = {}
        if move is not None:
            body["move"] = move
        if moves is not None:
            body["moves"] = moves
        if version is not None:
            body["version"] = version
        return self.client.post(f"/games/{self.id}/moves", json=body,
                                headers={**auth(self.tokens[seat]), **(headers or {})})


def play_until(game: GameHandle, seat: int, most: int = 30) -> None:
    """The seats to act play their first legal move (through ``game``'s client or real
    HTTP) until it is ``seat``'s turn."""
    for _ in range(most):
        doc = game.get()
        if doc["current_seat"] == seat:
            return
        current = doc["current_seat"]
        r = game.submit(current, game.notations(current)[0], doc["version"])
        assert r.status_code == 201, r.get_json()
    raise AssertionError(f"seat {seat} never got the turn")


def new_game(client, players: int = 3, emails: list[str] | None = None, **extra
             ) -> GameHandle:
    """A game whose seats are all named (``P0``… with ``p0@example.org``…, or
    ``emails``): it starts."""
    emails = emails or [f"p{i}@example.org" for i in range(players)]
    body = {"seats": [{"name": f"P{i}", "email": emails[i]} for i in range(players)],
            **extra}
    r = client.post("/games", json=body)
    assert r.status_code == 201, r.get_json()
    doc = r.get_json()
    return GameHandle(client, doc["game_id"], [s["token"] for s in doc["seats"]],
                      doc["host_token"], doc["invite_code"], doc)


def random_api_move(legal: dict, rng: random.Random) -> str:
    """engine.bots.random_move over the API's answer: a random kind, then a random move."""
    by_kind: dict[str, list[str]] = {}
    for m in legal["moves"]:
        by_kind.setdefault(m["move"]["action"], []).append(m["notation"])
    kind = rng.choice(sorted(by_kind))
    return rng.choice(by_kind[kind])


def play_random(handle: GameHandle, rng: random.Random, max_moves: int | None = None,
                check=None) -> dict:
    """Play random legal moves through the API until the game is over (or max_moves)."""
    played = 0
    doc = handle.get()
    while doc["status"] != "over" and (max_moves is None or played < max_moves):
        seat = doc["current_seat"]
        legal = handle.legal(seat)
        assert legal["your_turn"] and legal["moves"], legal
        move = random_api_move(legal, rng)
        r = handle.submit(seat, move, legal["version"])
        assert r.status_code == 201, (move, r.get_json())
        if check:
            check(handle, seat, r.get_json())
        played += 1
        doc = handle.get()
    return doc


# -- mail: an SMTP sink ------------------------------------------------------------------

@dataclass
class Received:
    at: float  # time.monotonic() on arrival
    rcpt: list[str]
    msg: EmailMessage

    @cached_property
    def subject(self) -> str:
        return str(self.msg["Subject"])

    @cached_property
    def status(self) -> str:
        """What the mail is (its text's first line, its preheader): "Your turn, move 5"."""
        return self.part("plain").split("\n", 1)[0]

    @cached_property
    def kind(self) -> str:
        return str(self.msg["X-Alhambra-Kind"])

    @cached_property
    def version(self) -> int:
        return int(self.msg["X-Alhambra-Version"])

    @cached_property
    def game(self) -> str:
        return str(self.msg["X-Alhambra-Game"])

    _parts: dict[str, str] = field(default_factory=dict, repr=False, compare=False)

    def part(self, subtype: str) -> str:
        if subtype not in self._parts:
            body = self.msg.get_body(preferencelist=(subtype,))
            assert body is not None, f"no text/{subtype} part"
            self._parts[subtype] = body.get_content().replace("\r\n", "\n")
        return self._parts[subtype]


class Inbox:
    """An aiosmtpd handler keeping every message."""

    def __init__(self) -> None:
        self.messages: list[Received] = []
        self.cond = threading.Condition()
        self.url = ""

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
        """The mails of ``game_id`` (of ``kind``, that ``where`` picks) once there are
        ``count``: looked at again as soon as a mail arrives (and every 0.05 s)."""
        end = time.monotonic() + timeout
        while True:
            with self.cond:
                seen = len(self.messages)
            got = [m for m in self.of(game_id, kind) if where is None or where(m)]
            if len(got) >= count:
                return got
            left = end - time.monotonic()
            if left <= 0:
                raise AssertionError(f"timed out after {timeout} s waiting for {count} "
                                     f"{kind} mail(s) of {game_id}")
            with self.cond:
                if len(self.messages) == seen:  # nothing new since the look above
                    self.cond.wait(min(left, 0.05))


# -- a stack of real parts ----------------------------------------------------------------

@dataclass
class Stack:
    """The API (Flask's test client) and, once started, a worker process on one
    database, with one set of settings (``env``)."""

    data: Path
    env: dict[str, str]
    app: Any
    client: Any
    log_path: Path
    process: subprocess.Popen | None = None

    @property
    def games(self):
        return self.app.extensions["alhambra"]

    @property
    def store(self):
        return self.games.store

    def start_worker(self) -> None:
        self.log = open(self.log_path, "ab")  # noqa: SIM115 - closed in stop_worker()
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

    def context(self):
        """A workers Context on this stack (to run a job's logic in the test's process)."""
        from workers.context import Context

        return Context(Settings.from_env(self.env))


def run_due_here(ctx, game_id: str, pick: Callable[[Any], bool]) -> dict[tuple, str]:
    """Claim the due work of ``ctx``'s database and run, in this process and through the
    jobs' own code, the rows of ``game_id`` that ``pick`` picks (the others are given
    back): {(kind, seat, version): result}."""
    from service.store import Claim
    from workers import jobs

    rows = ctx.store.claim_due(1000, 60)
    mine = [r for r in rows if r.game_id == game_id and pick(r)]
    ctx.store.release_due([Claim(r.id, r.attempts) for r in rows if r not in mine])
    return {(r.kind, r.seat, r.version): jobs.run(ctx, Claim(r.id, r.attempts))
            for r in mine}


def run_due_now(ctx, game_id: str) -> dict[tuple, str]:
    """Run, in this process, every row of ``game_id`` due now by the service's clock and
    those the runs add due now too, until none is left: {(kind, seat, version): result}
    (with a FakeClock: the workers' behaviour without waiting for real time)."""
    done: dict[tuple, str] = {}
    for _ in range(100):
        ran = run_due_here(ctx, game_id, lambda row: True)
        if not ran:
            return done
        done.update(ran)
    raise AssertionError(f"due work of {game_id} kept coming")


def make_stack(tmp: Path, redis_url: str, smtp_url: str, queue: str, **env: str) -> Stack:
    """A stack on a fresh data folder; ``queue`` is its own RQ queue (a queue no worker
    serves keeps jobs for the test to run in-process)."""
    data = tmp / "data"
    data.mkdir(parents=True, exist_ok=True)
    full = {k: v for k, v in os.environ.items() if not k.startswith(("SMTP_", "REDIS_"))}
    full.update({
        "ALHAMBRA_DATA": str(data), "ALHAMBRA_DB": str(data / "alhambra.db"),
        "REDIS_URL": redis_url, "SMTP_URL": smtp_url, "MAIL_FROM": "Alhambra <game@test>",
        "PUBLIC_URL": "http://alhambra.test", "ALHAMBRA_QUEUE": queue,
        "ALHAMBRA_CLAIM_INTERVAL": "0.05", "ALHAMBRA_WEBHOOK_RETRIES": "1,1,1",
        "ALHAMBRA_MIN_TIME_PER_MOVE": "1", "PYTHONPATH": str(ROOT),
        # webhook receivers in the tests are local servers
        "ALHAMBRA_WEBHOOK_ALLOW_PRIVATE": "1", **env})
    app = create_app(Settings.from_env(full))
    return Stack(data, full, app, app.test_client(), tmp / "worker.log")


# -- PostgreSQL ----------------------------------------------------------------------------

#: The server the tests use (.ci/run starts it): they create and drop their own databases
#: there (``alhambra_test_<random>``) and touch no other.
PG_ADMIN_URL = os.environ.get("ALHAMBRA_TEST_PG_URL",
                              "postgresql://postgres@127.0.0.1:5432/postgres")


class PgDatabase:
    """A throwaway database on the test server: ``url`` to use, ``drop()`` when done.
    ``schema()`` gives a fresh, empty namespace in it (a URL whose search_path is that
    schema): a store as good as a new database, made in milliseconds."""

    def __init__(self) -> None:
        self.name = f"alhambra_test_{secrets.token_hex(6)}"
        base = PG_ADMIN_URL.rsplit("/", 1)[0]
        self.url = f"{base}/{self.name}"
        with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
            conn.execute(f'create database "{self.name}"')

    def schema(self) -> str:
        name = f"t_{secrets.token_hex(6)}"
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(f'create schema "{name}"')
        return f"{self.url}?options={url_quote(f'-csearch_path={name}')}"

    def drop(self) -> None:
        with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
            conn.execute(f'drop database if exists "{self.name}" with (force)')


@dataclass(frozen=True)
class StoreSpec:
    """Where a store of the contract tests lives: a SQLite file or a PostgreSQL URL. Plain
    data, so a test can hand it to other processes, each opening its own store."""

    kind: str  # "sqlite" or "postgres"
    where: str

    def settings(self, **changes: Any) -> Settings:
        if self.kind == "sqlite":
            return Settings(database=self.where, **changes)
        return Settings(database_url=self.where, secret="a test secret", **changes)

    def open(self):
        from service.store import open_store

        return open_store(self.settings())

    def raw(self, sql: str, params: tuple = ()) -> list[tuple]:
        """Run ``sql`` (``?`` placeholders) on a connection of its own, outside the store;
        the rows it returns."""
        if self.kind == "sqlite":
            import sqlite3

            conn = sqlite3.connect(self.where, isolation_level=None)
            try:
                return conn.execute(sql, params).fetchall()
            finally:
                conn.close()
        with psycopg.connect(self.where, autocommit=True) as conn:
            cur = conn.execute(sql.replace("?", "%s"), params)
            return cur.fetchall() if cur.description else []


# -- play by e-mail: replies to the mails ------------------------------------------------

def offered_moves(text: str) -> list[str]:
    """The lines of a mail's "Reply with one of these lines:" section, as offered."""
    if "Reply with one of these lines:" not in text:
        return []
    section = text.split("Reply with one of these lines:\n", 1)[1]
    lines = []
    for line in section.split("\n"):
        if not line.strip():
            break
        lines.append(line.strip())
    return lines


def reply_to(received: Received, body: str, *, sender: str | None = None,
             quote: bool = True, message_id: str | None = None,
             headers: dict[str, str] | None = None) -> EmailMessage:
    """A player's reply to ``received``: to its Reply-To, from its recipient (or
    ``sender``), in its thread, ``body`` on top and the mail quoted below."""
    import email.utils

    original = received.msg
    msg = EmailMessage()
    msg["From"] = sender or received.rcpt[0]
    msg["To"] = str(original["Reply-To"])
    msg["Subject"] = f"Re: {original['Subject']}"
    msg["Date"] = email.utils.formatdate()
    msg["Message-ID"] = message_id or email.utils.make_msgid(domain="player.test")
    msg["In-Reply-To"] = str(original["Message-ID"])
    msg["References"] = " ".join(str(v) for v in (original["References"],
                                                   original["Message-ID"]) if v)
    for name, value in (headers or {}).items():
        msg[name] = value
    text = body
    if quote:
        quoted = "\n".join(f"> {line}" for line in received.part("plain").split("\n"))
        text += f"\n\nOn {original['Date']}, {original['From']} wrote:\n{quoted}\n"
    msg.set_content(text)
    return msg


def smtp_send(port: int, msg: EmailMessage | bytes, rcpt: list[str] | None = None,
              sender: str | None = None) -> None:
    """Send through the SMTP server on 127.0.0.1:``port`` (raises on a refusal)."""
    import smtplib

    with smtplib.SMTP("127.0.0.1", port, timeout=10) as conn:
        if isinstance(msg, bytes):
            assert rcpt is not None
            conn.sendmail(sender or "player@player.test", rcpt, msg)
        else:
            conn.send_message(msg, from_addr=sender, to_addrs=rcpt)


def start_by_mail(s: Stack, inbox: Inbox, players: int = 2,
                  emails: list[str] | None = None) -> tuple[GameHandle, Received]:
    """A new game on ``s`` (its seats' addresses: ``emails``) and its first "your turn"
    mail: the "game started" mail of the seat to move."""
    h = new_game(s.client, players, emails)
    doc = h.get()
    address = (emails or [f"p{i}@example.org" for i in range(players)])[doc["current_seat"]]
    (mail,) = inbox.wait(h.id, "started", where=lambda m: m.version == doc["version"] and
                         m.rcpt == [address.lower()])
    return h, mail


def answers(inbox: Inbox, game_id: str) -> list[Received]:
    """The answers to replies of a game."""
    return [m for m in inbox.of(game_id) if m.kind.startswith("answer-")]


def answer_to(inbox: Inbox, game_id: str, message_id: str, timeout: float = 15
              ) -> Received:
    """The one answer to the reply ``message_id``."""
    (mail,) = inbox.wait(game_id, None, timeout=timeout,
                         where=lambda m: str(m.msg["In-Reply-To"]) == message_id)
    return mail


def played_in_words(client, game_id: str, since: int, text: str) -> list[str]:
    """What an answer ``text`` says was played ("you played:", then a line per move in
    words, as the history says it), as the notations of the moves after version
    ``since`` that those words name (KeyError: a line that is no move's words)."""
    lines = text.split("you played:\n", 1)[1].split("\n")
    said = [line[4:] for line in itertools.takewhile(lambda x: x.startswith("  - "), lines)]
    events = client.get(f"/games/{game_id}/events?since={since}").get_json()["events"]
    words = {e["text"]: e["event"]["move"] for e in events if "move" in e["event"]}
    return [words[line] for line in said]


def barrier(port: int, inbox: Inbox, mail: Received) -> Received:
    """Reply ``status`` to ``mail`` and return the answer: with one worker taking jobs in
    order, every answer to an earlier reply has come by then."""
    msg = reply_to(mail, "status")
    smtp_send(port, msg)
    return answer_to(inbox, mail.game, str(msg["Message-ID"]))


def stop_serve(proc: subprocess.Popen, children, log) -> int:
    """SIGTERM a test's ``alhambra-pbem serve``, its exit code (killed after 30 s); then
    kill any of ``children`` (psutil processes) still running, even on failure."""
    proc.send_signal(signal.SIGTERM)
    try:
        code = proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()
        code = proc.wait(5)
    for child in children:
        if child.is_running() and child.status() != psutil.STATUS_ZOMBIE:
            child.kill()
    log.close()
    return code


def start_serve(tmp: Path, *args: str, env: dict[str, str] | None = None,
                session: bool = False, log_name: str = "serve.log"):
    """A real ``alhambra-pbem serve`` on a free port of 127.0.0.1 (``args`` may add
    ``--host``/``--port``) with its data in ``tmp/data``; ``session``: in a process group of
    its own. Returns (process, base URL, log file); stop it with ``stop_serve``."""
    from workers.redis_server import free_port

    full = {k: v for k, v in os.environ.items()
            if k not in ("REDIS_URL", "SMTP_URL", "PUBLIC_URL")}
    full.update(ALHAMBRA_DATA=str(tmp / "data"), ALHAMBRA_CLAIM_INTERVAL="0.05",
                PYTHONPATH=str(ROOT), **(env or {}))
    if "--port" not in args:
        args = (*args, "--port", str(free_port()))
    host = args[args.index("--host") + 1] if "--host" in args else "127.0.0.1"
    port = args[args.index("--port") + 1]
    log = open(tmp / log_name, "ab")  # noqa: SIM115 - closed by stop_serve
    proc = subprocess.Popen([sys.executable, "-m", "service.cli", "serve", *args], env=full,
                            cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, start_new_session=session)
    host = f"[{host.strip('[]')}]" if ":" in host else host
    return proc, f"http://{host}:{port}", log


def stored(store, table: str) -> int:
    """How many rows ``table`` of ``store``'s database holds (``events``: the events of
    every batch): what a test checks was written, or was not."""
    with store.d.reading() as db:
        if table == "events":
            return db.scalar("select coalesce(sum(version - first + 1), 0) from event_batches")
        return db.scalar(f"select count(*) from {table}")


class FakeClock:
    """The service's clock (``times.now``) in a test: the time the test sets (``now``)."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now


class FakeTime:
    """A module's ``time`` in a test (``monkeypatch.setattr(module, "time", FakeTime())``):
    ``sleep`` moves ``monotonic`` on at once; ``slept`` is how long it was asked to wait."""

    def __init__(self) -> None:
        self.slept = 0.0

    def monotonic(self) -> float:
        return self.slept

    def sleep(self, seconds: float) -> None:
        self.slept += seconds


def fake_clock(monkeypatch, start: datetime) -> FakeClock:
    """``times.now`` replaced by a FakeClock at ``start`` for the test."""
    from service import times

    clock = FakeClock(start)
    monkeypatch.setattr(times, "now", clock)
    return clock


def signed_in(app, email: str) -> str:
    """A player token for ``email`` (the sign-in request's code, as the mail has it)."""
    from service.players import sign_in_code

    players = app.extensions["alhambra_players"]
    request = players.request_sign_in(email)
    code = sign_in_code(app.extensions["alhambra"].secret_key, request.id)
    r = app.test_client().post("/players/session", json={"code": code})
    assert r.status_code == 201, r.get_json()
    return r.get_json()["token"]


def claimed(app, game: GameHandle, seats_by_email: dict[int, str]) -> dict[int, str]:
    """Each of ``seats_by_email``'s seats (seat → address) signed in for and claimed by
    its address (issue 39); the game's tokens the claimed ones. The player tokens."""
    players = {}
    for seat, address in seats_by_email.items():
        players[seat] = signed_in(app, address)
        claim(app.test_client(), game, seat, players[seat])
    return players


def claim(client, game: GameHandle, seat: int, player_token: str) -> str:
    """The signed-in player of ``player_token`` claims ``seat`` (its address's); the
    game's token of the seat the new one, returned."""
    r = client.post(f"/games/{game.id}/seats/{seat}/claim", json={},
                    headers=auth(player_token))
    assert r.status_code == 201, r.get_json()
    game.tokens[seat] = r.get_json()["token"]
    return game.tokens[seat]


class Answer:
    """An HTTP answer shaped like the Flask test client's."""

    def __init__(self, status: int, headers: Any, data: bytes) -> None:
        self.status_code, self.headers, self.data = status, headers, data

    def get_json(self, silent: bool = False) -> Any:
        return json.loads(self.data) if self.data else None


class Http:
    """Real HTTP to the served API, with the test client's methods."""

    def __init__(self, base: str) -> None:
        self.base = base

    def open(self, path: str, method: str = "GET", json_body: Any = None,
             headers: dict | None = None) -> Answer:
        data = None if json_body is None else json.dumps(json_body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method, headers={
            **({"Content-Type": "application/json"} if data is not None else {}),
            **(headers or {})})
        try:
            with urllib.request.urlopen(req, timeout=20) as resp:
                return Answer(resp.status, resp.headers, resp.read())
        except urllib.error.HTTPError as exc:
            return Answer(exc.code, exc.headers, exc.read())

    def get(self, path: str, headers: dict | None = None) -> Answer:
        return self.open(path, headers=headers)

    def post(self, path: str, json: Any = None, headers: dict | None = None) -> Answer:
        return self.open(path, "POST", {} if json is None else json, headers)

    def patch(self, path: str, json: Any = None, headers: dict | None = None) -> Answer:
        return self.open(path, "PATCH", json, headers)

    def put(self, path: str, json: Any = None, headers: dict | None = None) -> Answer:
        return self.open(path, "PUT", json, headers)
