"""The operator's recipe with a real Postfix (issue 22): Debian's Postfix as the mail
server of the reply domain and of a player's mailbox, the service's mail out through it
with a VERP envelope sender per mail, and moves played by reply through both documented
paths: the ``mail-in`` pipe transport (deploy/mail-in/postfix-master.cf's line, run as a
user that is not root, as the wrapper runs it) and the SMTP listener behind
``reject_unverified_recipient``. A seat whose mails bounce (Postfix's own DSN, routed
back to ``mail-in``) is recorded and, after ``MAIL_HARD_FAILURES``, marked failing.
Size limits agree (``message_size_limit`` = ``MAIL_IN_MAX_SIZE``: 552 during the SMTP
dialogue). Marked ``e2e`` (pytest -m e2e): a private Postfix instance on free ports."""

from __future__ import annotations

import email
import email.policy
import os
import random
import shlex
import shutil
import smtplib
import subprocess
import sys
import tempfile
import time
from email.message import EmailMessage
from pathlib import Path

import pytest

from tests.support import (
    ROOT,
    Received,
    auth,
    make_stack,
    new_game,
    offered_moves,
    random_api_move,
    reply_to,
    wait_until,
)
from workers.redis_server import EmbeddedRedis, free_port

from .postfix import Postfix, available

pytestmark = pytest.mark.e2e

REPLY_DOMAIN, PLAYERS, GONE = "play.example.org", "players.example.org", "gone.example.org"
ANN, BOB = f"ann@{PLAYERS}", f"bob@{GONE}"
MAX_SIZE = 65536
#: Ann's replies through the pipe; then through the listener until the game is over.
MOVES = int(os.environ.get("ALHAMBRA_E2E_POSTFIX_MOVES", "20"))
#: Bob's mailbox host: it takes the mail, then fails it for good (Postfix bounces it: a DSN
#: to the mail's envelope sender).
GONE_SERVICE = "gone unix - n n - - pipe\n  flags=q user=nobody argv=/bin/false\n"
#: The settings the pipe reads (the wrapper's environment file).
PIPE_SETTINGS = ("ALHAMBRA_DATA", "ALHAMBRA_DB", "ALHAMBRA_SECRET_KEY", "MAIL_FROM",
                 "MAIL_REPLY_TO", "MAIL_BOUNCES_TO", "MAIL_IN_MAX_SIZE", "MAIL_HARD_FAILURES",
                 "MAIL_IN_ANSWERS_PER_HOUR", "PUBLIC_URL")


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


def as_nobody(command: str) -> bool:
    return subprocess.run(["su", "-s", "/bin/sh", "nobody", "-c", command], cwd="/",
                          capture_output=True, timeout=60, check=False).returncode == 0


def pipe_command(root: Path) -> str:
    """How the pipe's user runs ``alhambra-pbem``: the venv's entry point, or, where the
    venv's interpreter lies in a folder that user cannot enter (a pyenv under /root), the
    system's Python of the same version with the venv's packages on its path (and, below
    Python 3.11.3, the ``async_timeout`` redis-py imports there: asyncio's own)."""
    entry = str(Path(sys.executable).parent / "alhambra-pbem")
    if as_nobody(f"{shlex.quote(entry)} --help"):
        return entry
    shim = root / "shim"
    shim.mkdir(mode=0o755)
    (shim / "async_timeout.py").write_text("from asyncio import timeout  # noqa: F401\n")
    site = next(Path(sys.prefix).glob("lib/python3*/site-packages"))
    command = f"env PYTHONPATH={ROOT}:{site}:{shim} /usr/bin/python3 -m service.cli"
    if not as_nobody(f"{command} --help"):
        pytest.skip("the pipe's user cannot run alhambra-pbem on this machine")
    return command


@pytest.fixture
def world():
    if not available():
        pytest.skip("no Postfix (apt-get install postfix)")
    if os.geteuid() != 0:
        pytest.skip("a private Postfix instance needs root")
    root = Path(tempfile.mkdtemp(prefix="alhambra-postfix-", dir="/tmp"))
    root.chmod(0o755)  # the pipe's user (nobody) reads the wrapper and the settings
    (root / "mail").mkdir(mode=0o777)
    (root / "mail").chmod(0o777)  # the virtual agent writes as nobody
    redis = EmbeddedRedis(root / "redis", port=free_port(), persist=False)
    redis.start()
    port, listen_port = free_port(), free_port()
    s = make_stack(root, redis.url, f"smtp://127.0.0.1:{port}", "postfix-e2e",
                   MAIL_REPLY_TO=f"moves@{REPLY_DOMAIN}", MAIL_BOUNCES_TO=f"bounces@{REPLY_DOMAIN}",
                   MAIL_FROM=f"Alhambra <game@{REPLY_DOMAIN}>", MAIL_IN_MAX_SIZE=str(MAX_SIZE),
                   ALHAMBRA_SECRET_KEY="e2e-postfix-secret-0123456789abcdef",
                   MAIL_HARD_FAILURES="3", MAIL_IN_ANSWERS_PER_HOUR="1000")
    # the pipe runs as nobody: the data folder (the one its user must own) is shared here
    s.data.chmod(0o777)
    for f in s.data.iterdir():
        f.chmod(0o666)
    log = root / "mail-in.log"
    log.touch(mode=0o666)
    log.chmod(0o666)
    (root / "alhambra.env").write_text("".join(
        f"{k}={shlex.quote(s.env[k])}\n" for k in PIPE_SETTINGS) +
        f"ALHAMBRA_MAIL_IN_LOG={log}\n")
    wrapper = root / "alhambra-mail-in"  # deploy/mail-in/alhambra-mail-in, with these paths
    wrapper.write_text((ROOT / "deploy" / "mail-in" / "alhambra-mail-in").read_text()
                       .replace("/etc/alhambra-pbem.env", str(root / "alhambra.env"))
                       .replace("/opt/alhambra-pbem/.venv/bin/alhambra-pbem",
                                pipe_command(root)))
    wrapper.chmod(0o755)
    pipe = "".join(line for line in (ROOT / "deploy" / "mail-in" / "postfix-master.cf")
                   .read_text().splitlines(keepends=True) if not line.startswith("#"))
    pipe = pipe.replace("user=alhambra", "user=nobody").replace(
        "/opt/alhambra-pbem/deploy/mail-in/alhambra-mail-in", str(wrapper))
    postfix = Postfix(root / "postfix", port, {
        "myhostname": f"mx.{REPLY_DOMAIN}", "relay_domains": REPLY_DOMAIN,
        "recipient_delimiter": "+", "alhambra_destination_recipient_limit": "1",
        "transport_maps": f"texthash:{root}/postfix/etc/transport",
        "virtual_mailbox_domains": PLAYERS, "virtual_mailbox_base": str(root / "mail"),
        "virtual_mailbox_maps": f"texthash:{root}/postfix/etc/vmailbox",
        "virtual_uid_maps": "static:65534", "virtual_gid_maps": "static:65534",
        "message_size_limit": str(MAX_SIZE),
        # (the recipe's order puts permit_mynetworks first: here the players' servers are
        # this host, so the reply domain's check comes before it)
        "smtpd_recipient_restrictions": f"check_recipient_access texthash:{root}/postfix/"
                                        "etc/verify, permit_mynetworks, "
                                        "reject_unauth_destination",
        "unverified_recipient_reject_code": "550", "address_verify_poll_delay": "1s",
    }, pipe + GONE_SERVICE, maps={
        "transport": f"{REPLY_DOMAIN} alhambra:\n{GONE} gone:\n",
        "vmailbox": f"{ANN} ann/\n", "verify": ""})
    postfix.start()
    s.start_worker()
    try:
        yield s, postfix, Maildir(root / "mail" / "ann", ANN), listen_port, log
    finally:
        s.stop_worker()
        postfix.stop()
        s.store.close()
        redis.stop()
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


def play(s, postfix, ann: Maildir, h, seat: int, replies: int, rng: random.Random
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
        mail = wait_until(lambda v=version: ann.to_play(v), 30,
                          what=f"Ann's mail at version {version}\n{postfix.log()[-3000:]}")
        move = rng.choice(offered_moves(mail.part("plain")))
        reply = reply_to(mail, move)
        start = time.monotonic()
        send(postfix.port, reply, [mail.msg["Reply-To"].addresses[0].addr_spec])
        wait_until(lambda v=version: h.get()["version"] > v, 30,
                   what=f"the move {move!r} played\n{postfix.log()[-3000:]}")
        took.append(time.monotonic() - start)
        # its answer comes back to Ann's Maildir, in the seat's one thread
        wait_until(lambda r=reply: any(str(m.msg["In-Reply-To"]) == str(r["Message-ID"])
                                       for m in ann.mails()), 30, what="the answer")
    return took


def test_moves_by_reply_through_postfix_pipe_and_listener_and_a_bounce(world):
    from workers.mail_in import Listener

    s, postfix, ann, listen_port, log = world
    rng = random.Random(22)
    h = new_game(s.client, 2, [ANN, BOB])
    seat = 0  # Ann

    # A game: Ann's moves by reply (MOVES through the pipe, then MOVES through the
    # listener), Bob's through the API (his mails bounce); then to its end.
    # 1. The pipe: Postfix delivers each reply to `mail-in` as nobody; answers by the
    #    database (due rows) and the worker, no Redis in the pipe's environment.
    by_pipe = play(s, postfix, ann, h, seat, MOVES, rng)
    assert len(by_pipe) == MOVES
    assert "status=sent (delivered via alhambra service)" in postfix.log()
    assert "mail-in:" in log.read_text()  # the pipe's stderr, kept by the wrapper

    # Bob's address bounces: Postfix's DSN goes to the mail's VERP sender, routed to
    # mail-in; three of them mark it failing, and mails to it stop.
    wait_until(lambda: s.store.game(h.id).seats[1].mail_failing, 60,
               what=f"Bob's address marked failing\n{postfix.log()[-3000:]}")
    failures = s.client.get(f"/games/{h.id}/mail-failures",
                            headers=auth(h.host_token)).get_json()
    assert failures["failing"]["1"] == "5.3.0 unknown mail system error 1"  # the DSN's
    bounced = [f for f in failures["failures"] if f["seat"] == 1]
    assert len(bounced) >= 3 and all(f["permanent"] for f in bounced)
    assert all(f["address"] == BOB for f in bounced)
    assert "bounces+" in postfix.log() and "from=<>" in postfix.log()
    assert s.client.get("/health").get_json()["parts"]["mail"]["failed_last_hour"] >= 3

    # 2. The listener, behind reject_unverified_recipient: Postfix asks it about each
    #    reply address before it accepts a mail (a forged one: 550 at once, no bounce).
    postfix.maps["transport"] = (f"{REPLY_DOMAIN} smtp:[127.0.0.1]:{listen_port}\n"
                                 f"{GONE} gone:\n")
    postfix.maps["verify"] = f"{REPLY_DOMAIN} reject_unverified_recipient\n"
    postfix.reload()
    listener = Listener(s.context().settings, "127.0.0.1", listen_port).start()
    try:
        forged = f"moves+{h.id}.0.1.aaaaaaaaaaaaaaaa@{REPLY_DOMAIN}"
        with pytest.raises(smtplib.SMTPRecipientsRefused) as refused:
            send(postfix.port, b"Subject: x\r\n\r\ntake 1\r\n", [forged])
        assert refused.value.recipients[forged][0] == 550
        # too big for MAIL_IN_MAX_SIZE: Postfix refuses it during the dialogue (552)
        mail = ann.mails()[-1]
        big = reply_to(mail, "take 1\n\n" + "x" * (MAX_SIZE + 100))
        with pytest.raises((smtplib.SMTPSenderRefused, smtplib.SMTPDataError)) as too_big:
            send(postfix.port, big, [mail.msg["Reply-To"].addresses[0].addr_spec])
        assert too_big.value.smtp_code == 552
        # as many replies again through the listener (ALHAMBRA_E2E_POSTFIX_MOVES=10000:
        # the whole rest of the game; CI keeps its run short), the rest through the API
        by_listener = play(s, postfix, ann, h, seat, MOVES, rng)
        while (doc := h.get())["status"] != "over":
            legal = h.legal(doc["current_seat"])
            r = h.submit(doc["current_seat"], random_api_move(legal, rng), doc["version"])
            assert r.status_code == 201, r.get_json()
    finally:
        listener.stop()
    assert len(by_listener) == MOVES
    wait_until(lambda: [m for m in ann.mails() if m.kind == "game_over"], 30,
               what="Ann's game over mail")

    # One thread, one subject: the started mail is the root every later mail refers to.
    mails = ann.mails()
    started = next(m for m in mails if m.kind == "started")
    root = str(started.msg["Message-ID"])
    assert {m.subject for m in mails} == {started.subject}
    assert all(str(m.msg["References"]).split()[0] == root for m in mails if m is not started)
    # every mail went out with its own envelope sender (Return-Path: the VERP address)
    assert all(str(m.msg["Return-Path"]).startswith(f"<bounces+{h.id}.0.") for m in mails)
    print(f"\n{MOVES} replies by pipe: {max(by_pipe):.2f}s at most, "
          f"{sum(by_pipe) / len(by_pipe):.2f}s on average; {len(by_listener)} by the "
          f"listener: "
          f"{max(by_listener):.2f}s at most, {sum(by_listener) / len(by_listener):.2f}s "
          f"on average; {len(mails)} mails in Ann's Maildir, {len(bounced)} bounces")
