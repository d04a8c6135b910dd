"""The operator's recipe with a real Postfix (issues 22 and 34.6): deploy/POSTFIX.md's steps,
read from the document and run as written (tests/e2e/recipe.py: only the substitutions
the document declares), build a host: the ``alhambra`` user, a venv from Debian's
python3 with the checkout installed, the settings file, Postfix's main.cf and master.cf
(the pipe through the wrapper, as ``alhambra``), Postfix started without systemd and
logging to a file, ``serve`` running as ``alhambra``, a local player's mailbox. Then a
game is played by reply through the pipe and, after the document's listener steps,
through the SMTP listener behind ``reject_unverified_recipient``. A seat whose mails
bounce (Postfix's DSN, routed back to ``mail-in``) is marked failing after
``MAIL_HARD_FAILURES``; 550 for a forged reply address, 552 for a reply over
``message_size_limit`` = ``MAIL_IN_MAX_SIZE``; the data folder's files belong to
``alhambra``. Marked ``e2e`` (pytest -m e2e): a private Postfix instance on free ports."""

from __future__ import annotations

import email
import email.policy
import os
import pwd
import random
import shutil
import smtplib
import socket
import subprocess
import tempfile
import time
import urllib.error
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path

import pytest

from tests.support import (
    GameHandle,
    Http,
    Received,
    auth,
    new_game,
    offered_moves,
    random_api_move,
    reply_to,
    wait_until,
)
from workers.redis_server import free_port

from .postfix import Postfix, available
from .recipe import PARTS, Recipe, steps

pytestmark = pytest.mark.e2e

REPLY_DOMAIN, PLAYERS, GONE = "play.example.org", "players.example.org", "gone.example.org"
ANN, BOB = f"ann@{PLAYERS}", f"bob@{GONE}"  # Ann's mailbox: the document's §4
MAX_SIZE = 1048576  # the document's MAIL_IN_MAX_SIZE and message_size_limit
#: Ann's replies through the pipe; then as many through the listener (the rest of the
#: game by the API). ALHAMBRA_E2E_POSTFIX_MOVES=10000: the whole game by mail.
MOVES = int(os.environ.get("ALHAMBRA_E2E_POSTFIX_MOVES", "6"))
#: The test's own additions, declared in the document: Bob's mailbox host takes the
#: mail, then fails it for good (Postfix bounces it: a DSN to the mail's envelope sender),
#: and one player may have many answers within the hour.
GONE_SERVICE = "gone/unix=gone unix - n n - - pipe flags=q user=nobody argv=/bin/false"
EXTRA_SETTINGS = "MAIL_IN_ANSWERS_PER_HOUR=1000\n"


class Maildir:
    """A player's Maildir, as Postfix's virtual agent writes it."""

    def __init__(self, path: Path, address: str) -> None:
        self.path, self.address = path, address

    def mails(self) -> list[Received]:
        files = sorted((self.path / "new").glob("*")) if (self.path / "new").exists() else []
        return [Received(f.stat().st_mtime, [self.address], email.message_from_bytes(
            f.read_bytes(), policy=email.policy.default)) for f in files]

    def to_play(self, version: int) -> Received | None:
        """The mail showing ``version`` that offers moves (the one to answer)."""
        return next((m for m in self.mails() if m.msg["X-Alhambra-Version"] is not None
                     and m.version == version and offered_moves(m.part("plain"))), None)


@dataclass
class World:
    recipe: Recipe
    postfix: Postfix
    api: Http
    ann: Maildir

    def diagnosis(self) -> str:
        r = self.recipe
        return "\n".join(f"--- {name}\n{text[-2500:]}" for name, text in (
            ("postfix.log", self.postfix.log()),
            ("mail-in.log", _read(r.path("/var/log/alhambra-pbem/mail-in.log"))),
            ("serve.log", _read(r.path("/var/log/alhambra-pbem/serve.log")))))


def _read(path: Path) -> str:
    return path.read_text(errors="replace") if path.exists() else ""


def _health(api: Http) -> dict | None:
    try:
        r = api.get("/health")
    except (urllib.error.URLError, OSError):
        return None
    return r.get_json() if r.status_code == 200 else None


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def _pids(recipe: Recipe) -> list[int]:
    """The processes the document's steps started in the background (their pid files)."""
    found = []
    for name in ("serve.pid", "mail-in.pid"):
        text = _read(recipe.path("/run/alhambra-pbem") / name).strip()
        if text.isdigit():
            found.append(int(text))
    return found


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.fixture
def world():
    if not available():
        pytest.skip("no Postfix (apt-get install postfix)")
    if os.geteuid() != 0:
        pytest.skip("the recipe runs as root")
    root = Path(tempfile.mkdtemp(prefix="alhambra-postfix-", dir="/tmp"))
    root.chmod(0o755)  # the user alhambra reaches the venv, the settings and its data
    ports = {25: free_port(), 8000: free_port(), 2525: free_port()}
    recipe = Recipe(root, ports)
    postfix = Postfix(recipe.path("/etc/postfix"), root / "postfix", ports[25],
                      recipe.path("/var/log/postfix.log"))
    made_user = subprocess.run(["getent", "passwd", "alhambra"], capture_output=True,
                               check=False).returncode != 0
    api = Http(f"http://127.0.0.1:{ports[8000]}")
    w = World(recipe, postfix, api, Maildir(recipe.path("/var/mail/alhambra-test") / "ann",
                                            ANN))
    try:
        recipe.run("host")
        with recipe.path("/etc/alhambra-pbem.env").open("a") as f:
            f.write(EXTRA_SETTINGS)
        recipe.run("postfix")
        transport = recipe.path("/etc/postfix/transport")
        transport.write_text(transport.read_text() + f"{GONE} gone:\n")
        postfix.postconf("-M", GONE_SERVICE)
        subprocess.run(["postmap", "-c", str(postfix.etc), f"hash:{transport}"], check=True)
        recipe.run("start")
        wait_until(lambda: _health(api), 60, interval=0.3,
                   what=f"serve's /health\n{recipe.tail()}\n{w.diagnosis()}")
        recipe.run("local")
        yield w
    finally:
        recipe.run("stop", check=False)
        pids = _pids(recipe)
        deadline = time.monotonic() + 20
        while any(map(_alive, pids)) and time.monotonic() < deadline:
            time.sleep(0.2)
        for pid in filter(_alive, pids):  # the steps' own processes, if stop did not
            os.kill(pid, 9)
        postfix.stop()
        if made_user:
            subprocess.run(["userdel", "alhambra"], capture_output=True, check=False)
            subprocess.run(["groupdel", "alhambra"], capture_output=True, check=False)
        if os.environ.get("ALHAMBRA_E2E_KEEP") is None:
            shutil.rmtree(root, ignore_errors=True)
        else:
            print(f"kept {root}")


def send(port: int, msg: EmailMessage | bytes, rcpt: list[str], sender: str = ANN) -> None:
    with smtplib.SMTP("127.0.0.1", port, timeout=20) as conn:
        if isinstance(msg, bytes):
            conn.sendmail(sender, rcpt, msg)
        else:
            conn.send_message(msg, from_addr=sender, to_addrs=rcpt)


def play(w: World, h: GameHandle, seat: int, replies: int, rng: random.Random
         ) -> list[float]:
    """Ann's ``replies`` moves by reply (Bob's by the API between them): the seconds from
    each reply to Postfix until its move is in the game."""
    took: list[float] = []
    while len(took) < replies:
        doc = h.get()
        if doc["status"] == "over":
            break
        version = doc["version"]
        if doc["current_seat"] != seat:
            legal = h.legal(doc["current_seat"])
            r = h.submit(doc["current_seat"], random_api_move(legal, rng), version)
            assert r.status_code == 201, r.get_json()
            continue
        mail = wait_until(lambda v=version: w.ann.to_play(v), 30,
                          what=f"Ann's mail at version {version}\n{w.diagnosis()}")
        move = rng.choice(offered_moves(mail.part("plain")))
        reply = reply_to(mail, move)
        start = time.monotonic()
        send(w.postfix.port, reply, [mail.msg["Reply-To"].addresses[0].addr_spec])
        wait_until(lambda v=version: h.get()["version"] > v, 30,
                   what=f"the move {move!r} played\n{w.diagnosis()}")
        took.append(time.monotonic() - start)
        # its answer comes back to Ann's Maildir, in the seat's one thread
        wait_until(lambda r=reply: any(str(m.msg["In-Reply-To"]) == str(r["Message-ID"])
                                       for m in w.ann.mails()), 30,
                   what=f"the answer\n{w.diagnosis()}")
    return took


def test_the_documents_steps_come_in_the_order_the_test_runs_them():
    found = [s.part for s in steps()]
    assert set(found) == set(PARTS), found
    assert sorted(found, key=PARTS.index) == found  # each part's steps together, in order


def test_moves_by_reply_on_a_host_made_by_the_documents_steps(world):
    w = world
    r, postfix, api = w.recipe, w.postfix, w.api
    rng = random.Random(22)
    h = new_game(api, 2, [ANN, BOB])
    seat = 0  # Ann

    # One user for everything that writes: serve made the data folder's files as alhambra
    alhambra = pwd.getpwnam("alhambra").pw_uid
    data = r.path("/var/lib/alhambra-pbem")
    assert (data / "secret.key").exists()
    owners = {str(p.relative_to(data)): p.stat().st_uid for p in data.rglob("*")
              if not p.is_symlink()}
    assert {name for name, uid in owners.items() if uid != alhambra} == set(), owners
    assert any(name.endswith("-wal") for name in owners), owners

    # 1. The pipe: Postfix delivers each reply to `mail-in` as alhambra through the
    #    wrapper (the venv and the settings file named on the master.cf line).
    by_pipe = play(w, h, seat, MOVES, rng)
    assert len(by_pipe) == MOVES
    log = postfix.log()  # the recipe's maillog_file: Postfix without syslog
    assert "status=sent (delivered via alhambra service)" in log
    assert "mail-in: " in _read(r.path("/var/log/alhambra-pbem/mail-in.log"))

    # Bob's address bounces: Postfix's DSN goes to the mail's VERP sender, routed to
    # mail-in; three of them mark it failing, and mails to it stop.
    def failures() -> dict:
        got = api.get(f"/games/{h.id}/mail-failures", headers=auth(h.host_token))
        assert got.status_code == 200, got.get_json()
        return got.get_json()

    wait_until(lambda: failures()["failing"].get("1"), 60,
               what=f"Bob's address marked failing\n{w.diagnosis()}")
    found = failures()
    assert found["failing"]["1"] == "5.3.0 unknown mail system error 1"  # the DSN's
    bounced = [f for f in found["failures"] if f["seat"] == 1]
    assert len(bounced) >= 3 and all(f["permanent"] for f in bounced)
    assert all(f["address"] == BOB for f in bounced)
    assert "bounces+" in postfix.log() and "from=<>" in postfix.log()
    assert _health(api)["parts"]["mail"]["failed_last_hour"] >= 3

    # 2. The document's listener steps: Postfix asks the listener about each reply
    #    address before it accepts a mail (a forged one: 550 at once, no bounce).
    r.run("listener")
    wait_until(lambda: _listening(r.ports[2525]), 30,
               what=f"the listener\n{r.tail()}\n{w.diagnosis()}")
    forged = f"moves+{h.id}.0.1.aaaaaaaaaaaaaaaa@{REPLY_DOMAIN}"
    with pytest.raises(smtplib.SMTPRecipientsRefused) as refused:
        send(postfix.port, b"Subject: x\r\n\r\ntake 1\r\n", [forged])
    assert refused.value.recipients[forged][0] == 550
    # too big for MAIL_IN_MAX_SIZE: Postfix refuses it during the dialogue (552)
    mail = w.ann.mails()[-1]
    big = reply_to(mail, "take 1\n\n" + "x" * (MAX_SIZE + 100))
    with pytest.raises((smtplib.SMTPSenderRefused, smtplib.SMTPDataError)) as too_big:
        send(postfix.port, big, [mail.msg["Reply-To"].addresses[0].addr_spec])
    assert too_big.value.smtp_code == 552
    by_listener = play(w, h, seat, MOVES, rng)
    assert len(by_listener) == MOVES
    while (doc := h.get())["status"] != "over":
        legal = h.legal(doc["current_seat"])
        played = h.submit(doc["current_seat"], random_api_move(legal, rng), doc["version"])
        assert played.status_code == 201, played.get_json()
    wait_until(lambda: [m for m in w.ann.mails() if m.kind == "game_over"], 30,
               what=f"Ann's game over mail\n{w.diagnosis()}")

    # One thread, one subject: the started mail is the root every later mail refers to.
    mails = w.ann.mails()
    started = next(m for m in mails if m.kind == "started")
    root = str(started.msg["Message-ID"])
    assert {m.subject for m in mails} == {started.subject}
    assert all(str(m.msg["References"]).split()[0] == root for m in mails if m is not started)
    # every mail went out with its own envelope sender (Return-Path: the VERP address)
    assert all(str(m.msg["Return-Path"]).startswith(f"<bounces+{h.id}.0.") for m in mails)
    print(f"\n{MOVES} replies by pipe: {max(by_pipe):.2f}s at most, "
          f"{sum(by_pipe) / len(by_pipe):.2f}s on average; {len(by_listener)} by the "
          f"listener: {max(by_listener):.2f}s at most, "
          f"{sum(by_listener) / len(by_listener):.2f}s on average; {len(mails)} mails in "
          f"Ann's Maildir, {len(bounced)} bounces")
