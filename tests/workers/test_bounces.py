"""Bounces and failed sends (issue 22), with real parts: an aiosmtpd relay that answers
550 or 450 for some recipients, the jobs' own code on claimed due rows, delivery reports
(RFC 3464) fed to ``mail-in`` as Postfix's pipe would, the API and ``/health``."""

from __future__ import annotations

import email
import email.policy
import threading
from datetime import timedelta

import pytest
from aiosmtpd.controller import Controller

from service import times
from tests.support import auth, new_game, run_due_here
from workers import mail_bounces
from workers.mail_in import HANDLED, IGNORED, NOT_OURS, Gateway, deliver_stdin
from workers.redis_server import free_port

HARD, SOFT = "gone@example.net", "busy@example.net"


class Relay:
    """An SMTP relay: 550 for HARD, 450 for SOFT, every other mail kept with its
    envelope sender."""

    def __init__(self) -> None:
        self.kept: list[tuple[str, list[str], email.message.EmailMessage]] = []
        self.lock = threading.Lock()

    async def handle_RCPT(self, server, session, envelope, address, options):  # noqa: N802
        if address == HARD:
            return "550 5.1.1 <gone@example.net>: Recipient address rejected: User unknown"
        if address == SOFT:
            return "450 4.2.0 <busy@example.net>: Mailbox busy"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):  # noqa: N802
        msg = email.message_from_bytes(envelope.content, policy=email.policy.default)
        with self.lock:
            self.kept.append((envelope.mail_from, list(envelope.rcpt_tos), msg))
        return "250 OK"


@pytest.fixture
def relay():
    handler = Relay()
    controller = Controller(handler, hostname="127.0.0.1", port=free_port())
    controller.start()
    try:
        handler.url = f"smtp://127.0.0.1:{controller.port}"
        yield handler
    finally:
        controller.stop()


@pytest.fixture
def bstack(tmp_path, redis_server, relay):
    from tests.support import make_stack

    s = make_stack(tmp_path, redis_server.url, relay.url, "bounces-nobody",
                   MAIL_REPLY_TO="moves@play.example.org",
                   MAIL_BOUNCES_TO="bounces@play.example.org", MAIL_HARD_FAILURES="2")
    ctx = s.context()
    try:
        yield s, ctx
    finally:
        ctx.close()
        s.store.close()


def dsn(to: str, recipient: str, action: str = "failed", status: str = "5.1.1",
        diagnostic: str = "smtp; 550 5.1.1 User unknown") -> bytes:
    """A delivery report as Postfix writes one."""
    return f"""From: MAILER-DAEMON@mx.example.net (Mail Delivery System)
To: {to}
Subject: Undelivered Mail Returned to Sender
Message-ID: <{action}.{status}.{recipient}@mx.example.net>
Auto-Submitted: auto-replied
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="B"

--B
Content-Type: text/plain

This is the mail system at host mx.example.net. I'm sorry to have to inform you...

--B
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.example.net

Final-Recipient: rfc822; {recipient}
Original-Recipient: rfc822;{recipient}
Action: {action}
Status: {status}
Diagnostic-Code: {diagnostic}

--B
Content-Type: message/rfc822

From: Alhambra <game@test>
Subject: your turn

move
--B--
""".replace("\n", "\r\n").encode()


def test_refusals_at_send_time_and_bounces_mark_an_address_failing(bstack, relay):
    s, ctx = bstack
    h = new_game(s.client, 3, ["ann@example.org", HARD, SOFT])
    done = run_due_here(ctx, h.id, lambda r: r.kind == "started")
    assert sorted(done.values()) == ["failed", "later", "sent"]
    rows = {r.seat: r for r in s.store.due_rows(h.id) if r.kind == "started"}
    # 550: failed for good, saying why; 450: due again later with back-off, saying so
    assert rows[1].state == "failed" and rows[1].last_error.startswith(
        "refused for good: 550 5.1.1 <gone@example.net>: Recipient address rejected")
    assert rows[2].state == "pending" and rows[2].due_at > times.now()
    assert rows[2].last_error.startswith("refused for now (450 4.2.0 <busy@example.net>: "
                                         "Mailbox busy): attempt 1, again at ")
    # The mail that went has its own envelope sender (VERP), naming game, seat, version.
    (sender, rcpt, msg), = relay.kept
    assert rcpt == ["ann@example.org"]
    version = int(msg["X-Alhambra-Version"])
    tag = mail_bounces.read_tag("bounces@play.example.org", sender)
    assert (tag.game_id, tag.seat, tag.version) == (h.id, 0, version)
    assert mail_bounces.verify(ctx.settings.secret_key, tag, "ann@example.org")
    assert not mail_bounces.verify(ctx.settings.secret_key, tag, "other@example.org")
    seats = s.store.game(h.id).seats
    assert [x.mail_failures for x in seats] == [0, 1, 0]  # one hard failure, one soft
    assert all(x.mail_failing is None for x in seats)

    # Delivery reports to the VERP address, fed to mail-in as the pipe does.
    gateway = Gateway(ctx)
    before = len(s.store.due_rows(h.id))
    assert gateway.deliver(dsn(sender, "ann@example.org", "delayed", "4.4.1",
                               "smtp; 451 4.4.1 try later"), [sender], "") == HANDLED
    assert s.store.game(h.id).seats[0].mail_failures == 0  # a delay is no hard failure
    assert deliver_stdin(ctx.settings, dsn(sender, "ann@example.org"), [sender],
                         "MAILER-DAEMON") == 0
    forged = sender[:-len("@play.example.org")][:-4] + "aaaa@play.example.org"
    assert gateway.deliver(dsn(forged, "ann@example.org"), [forged], "") == NOT_OURS
    assert s.store.game(h.id).seats[0].mail_failing is None
    assert gateway.deliver(dsn(sender, "ann@example.org", diagnostic="smtp; 550 5.2.1 "
                               "mailbox disabled"), [sender], "") == HANDLED
    ann = s.store.game(h.id).seats[0]
    assert ann.mail_failing == "550 5.2.1 mailbox disabled" and ann.mail_failures == 2
    assert len(s.store.due_rows(h.id)) == before  # no answer to any of them
    not_a_dsn = b"From: someone@example.net\r\nSubject: hi\r\n\r\nout of office\r\n"
    assert gateway.deliver(not_a_dsn, [sender], "x@example.net") == IGNORED

    # The host sees it per game; the seat on its own document; /health counts them.
    def failing(token):
        doc = s.client.get(f"/games/{h.id}", headers=auth(token)).get_json()
        return {x["seat"]: x["mail_failing"] for x in doc["seats"] if "mail_failing" in x}

    assert failing(h.host_token) == {0: "550 5.2.1 mailbox disabled", 1: None, 2: None}
    assert failing(h.tokens[0]) == {0: "550 5.2.1 mailbox disabled"}
    assert failing(h.tokens[1]) == {1: None} and failing(None) == {}
    r = s.client.get(f"/games/{h.id}/mail-failures",
                     headers={"Authorization": f"Bearer {h.host_token}"})
    assert r.status_code == 200
    listed = r.get_json()["failures"]
    assert [(f["seat"], f["permanent"]) for f in listed][:3] == [(0, True), (0, True),
                                                                 (0, False)]
    assert {f["seat"] for f in listed} == {0, 1, 2}
    assert s.client.get(f"/games/{h.id}/mail-failures",
                        headers={"Authorization": f"Bearer {h.tokens[1]}"}).status_code == 403
    health = s.client.get("/health").get_json()
    assert health["parts"]["mail"] == {"status": "ok", "failed_last_hour": 5}

    # Mails to a failing address stop (the row says why), until the seat confirms it.
    from service.store import Due
    s.store.add_due(h.id, [Due("your_turn", version, times.now(), seat=0,
                               from_version=version)])
    assert run_due_here(ctx, h.id, lambda r: r.kind == "your_turn") == {
        ("your_turn", 0, version): "address-failing"}
    assert len(relay.kept) == 1
    r = s.client.post(f"/games/{h.id}/seats/0/mail-address", json={},
                      headers={"Authorization": f"Bearer {h.tokens[0]}"})
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["mail_failing"] is None
    assert s.store.game(h.id).seats[0].mail_failing is None


def test_a_new_address_clears_the_mark_and_old_bounces_do_not_count(bstack, relay):
    s, ctx = bstack
    h = new_game(s.client, 2, ["ann@example.org", HARD])
    run_due_here(ctx, h.id, lambda r: r.kind == "started")
    (sender, _, _), = relay.kept
    gateway = Gateway(ctx)
    for _ in range(2):
        assert gateway.deliver(dsn(sender, "ann@example.org"), [sender], "") == HANDLED
    assert s.store.game(h.id).seats[0].mail_failing == "550 5.1.1 User unknown"
    r = s.client.post(f"/games/{h.id}/seats/0/mail-address",
                      json={"email": "Ann@Example.com"},
                      headers={"Authorization": f"Bearer {h.tokens[1]}"})
    assert r.status_code == 403  # another seat's token
    r = s.client.post(f"/games/{h.id}/seats/0/mail-address",
                      json={"email": "Ann@Example.com"},
                      headers={"Authorization": f"Bearer {h.tokens[0]}"})
    assert r.status_code == 200, r.get_json()
    seat = s.store.game(h.id).seats[0]
    assert (seat.email, seat.mail_failing, seat.mail_failures) == ("ann@example.com", None, 0)
    # A late bounce of a mail to the old address is not the new address's.
    assert gateway.deliver(dsn(sender, "ann@example.org"), [sender], "") == NOT_OURS
    assert s.store.game(h.id).seats[0].mail_failures == 0
    assert s.store.mail.count_failures(times.now() - timedelta(minutes=5)) == 3


def test_the_listener_takes_bounces_and_the_relay_connection_is_not_held_open(bstack, relay):
    """The SMTP listener accepts a bounce address at RCPT (a forged one: 550); the
    mailer closes its connection to the relay once unused for its idle time."""
    import smtplib

    from tests.support import smtp_send, wait_until
    from workers.mail_in import Listener

    s, ctx = bstack
    h = new_game(s.client, 2, ["ann@example.org", "bob@example.org"])
    ctx.mailer.idle = 0.3
    run_due_here(ctx, h.id, lambda r: r.kind == "started")
    assert len(relay.kept) == 2 and ctx.mailer._conn is not None  # one connection for both
    wait_until(lambda: ctx.mailer._conn is None, 5)
    sender = next(k[0] for k in relay.kept if k[1] == ["ann@example.org"])
    with Listener(ctx.settings, "127.0.0.1", free_port()) as listener:
        smtp_send(listener.port, dsn(sender, "ann@example.org"), [sender], sender="")
        forged = sender.replace(".0.", ".1.", 1)
        with pytest.raises(smtplib.SMTPRecipientsRefused, match="550"):
            smtp_send(listener.port, dsn(forged, "bob@example.org"), [forged], sender="")
    assert s.store.game(h.id).seats[0].mail_failures == 1  # recorded before DATA's 250


def test_a_reply_from_the_seat_confirms_its_failing_address(bstack, relay):
    s, ctx = bstack
    h = new_game(s.client, 2, ["ann@example.org", "bob@example.org"])
    run_due_here(ctx, h.id, lambda r: r.kind == "started")
    sender, _, msg = next(k for k in relay.kept if k[1] == ["ann@example.org"])
    gateway = Gateway(ctx)
    for _ in range(2):
        gateway.deliver(dsn(sender, "ann@example.org"), [sender], "")
    assert s.store.game(h.id).seats[0].mail_failing is not None
    reply_address = msg["Reply-To"].addresses[0].addr_spec
    reply = (f"From: Ann <ann@example.org>\r\nTo: {reply_address}\r\nSubject: Re: x\r\n"
             f"Message-ID: <confirm@example.org>\r\n\r\nstatus\r\n").encode()
    assert gateway.deliver(reply, [reply_address], "ann@example.org") == HANDLED
    assert s.store.game(h.id).seats[0].mail_failing is None
    assert s.store.game(h.id).seats[0].mail_failures == 0


def test_the_bounce_settings_are_checked():
    from service.settings import Settings, SettingsError

    s = Settings.from_env({"MAIL_BOUNCES_TO": " Bounces@Play.Example.org ",
                           "MAIL_HARD_FAILURES": "5"})
    assert (s.mail_bounces_to, s.mail_hard_failures) == ("bounces@play.example.org", 5)
    assert s.environ()["MAIL_BOUNCES_TO"] == "bounces@play.example.org"
    assert Settings.from_env({}).mail_hard_failures == 3
    for bad in ({"MAIL_BOUNCES_TO": "bounces+x@play.example.org"},
                {"MAIL_BOUNCES_TO": "nobody"}, {"MAIL_HARD_FAILURES": "0"}):
        with pytest.raises(SettingsError):
            Settings.from_env(bad)
