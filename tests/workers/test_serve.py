"""``alhambra-pbem serve`` with no REDIS_URL: a private Redis and a worker beside the API,
all stopped on SIGTERM; with no SMTP_URL, mail lands in <data>/outbox/ as .eml files; with
MAIL_IN_LISTEN, the SMTP listener for replies runs beside them and a reply is played."""

from __future__ import annotations

import email
import email.policy
import json
import os
import re
import socket
import subprocess
import sys
import urllib.request

import psutil

from tests.support import ROOT, Received, reply_to, smtp_send, stop_serve, wait_until
from workers.redis_server import free_port


def _post(url: str, body: dict) -> dict:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return json.loads(resp.read())


def _healthy(base: str) -> bool:
    try:
        with urllib.request.urlopen(base + "/health", timeout=2) as resp:
            return resp.status == 200
    except OSError:
        return False


def _listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


def test_serve_embedded_redis_and_worker_eml_outbox_and_clean_shutdown(tmp_path, smtp):
    port = free_port()
    data = tmp_path / "data"
    env = {k: v for k, v in os.environ.items()
           if k not in ("REDIS_URL", "SMTP_URL", "PUBLIC_URL")}
    listen = free_port()
    env.update(ALHAMBRA_DATA=str(data), ALHAMBRA_CLAIM_INTERVAL="0.05",
               PYTHONPATH=str(ROOT), MAIL_REPLY_TO="moves@example.org",
               MAIL_IN_LISTEN=f"127.0.0.1:{listen}")
    log = open(tmp_path / "serve.log", "wb")  # noqa: SIM115
    proc = subprocess.Popen([sys.executable, "-m", "service.cli", "serve", "--port", str(port),
                             "--workers", "1"], env=env, cwd=ROOT, stdout=log,
                            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    children: list[psutil.Process] = []
    try:
        base = f"http://127.0.0.1:{port}"
        wait_until(lambda: _healthy(base) or proc.poll() is not None, 30, 0.1, "the API")
        assert proc.poll() is None, (tmp_path / "serve.log").read_text()[-3000:]
        children = psutil.Process(proc.pid).children(recursive=True)
        names = " ".join(" ".join(c.cmdline()) for c in children)
        assert "valkey-server" in names and "-m workers" in names
        assert f"mail-in --listen 127.0.0.1:{listen}" in names
        created = _post(base + "/games", {"seats": [{"name": "Ann", "email": "a@example.org"},
                                                    {"name": "Bob", "email": "b@example.org"}]})
        gid = created["game_id"]
        outbox = data / "outbox"
        files = wait_until(lambda: len(list(outbox.glob(f"{gid}-*.eml"))) >= 2 and
                           sorted(outbox.glob(f"{gid}-*.eml")), 20, what="the .eml files")
        kinds = sorted(f.name.split("-")[2] for f in files)
        assert kinds == ["started", "started"]  # the seat to move's is its turn mail too
        first = created["game"]["current_seat"]
        started = email.message_from_bytes(
            next(f for f in files if f"started-seat{1 - first}" in f.name).read_bytes(),
            policy=email.policy.default)
        text = started.get_body(("plain",)).get_content()
        assert f"{base}/play/{gid}#token={created['seats'][1 - first]['token']}" in text
        assert text.startswith("Game started, move 1\n")
        assert (data / "redis" / "appendonlydir").exists()
        # A reply to the first "your turn" mail, through the listener, is played and answered.
        turn = email.message_from_bytes(
            next(f for f in files if f"started-seat{first}" in f.name).read_bytes(),
            policy=email.policy.default)
        assert turn.get_body(("plain",)).get_content().startswith(
            "Game started: your turn, move 1\n")
        assert turn["Subject"] == started["Subject"] == f"Alhambra · game {gid[:8]} · " \
            + ", ".join(s["name"] for s in created["seats"])
        wait_until(lambda: _listening(listen), 20, 0.1, "the mail-in listener")
        msg = reply_to(Received(0, [str(turn["To"].addresses[0].addr_spec)], turn), "take 1")
        smtp_send(listen, msg)
        answer = wait_until(lambda: list(outbox.glob(f"{gid}-*-answer-*.eml")), 20,
                            what="the answer")
        said = email.message_from_bytes(answer[0].read_bytes(), policy=email.policy.default)
        said = said.get_body(("plain",)).get_content()
        assert re.search(r"you played:\n  - \S+ took ", said), said  # in words
    finally:
        code = stop_serve(proc, children, log)  # nothing left behind, even on failure
    assert code == 0, (tmp_path / "serve.log").read_text()[-3000:]
    assert children and not any(c.is_running() and c.status() != psutil.STATUS_ZOMBIE
                                for c in children)
    text = (tmp_path / "serve.log").read_text()
    assert "Traceback" not in text, text[-3000:]
