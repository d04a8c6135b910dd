"""Replies that must not play or must not be answered (issue 20, points 1 and 4), through
the real parts: the SMTP listener (aiosmtpd, in this process) and ``alhambra-pbem
mail-in`` as a subprocess, with the stack's worker sending the answers.

- forged senders: a From whose display name (plain, quoted, encoded-word, in a comment)
  holds another address than its real one, or with several addresses;
- MAIL_IN_AUTH: only an ``Authentication-Results`` header of the operator's MTA saying
  dkim=pass (or spf=pass) aligned with the From domain lets a reply play;
- mail loops: automatic mails get no answer, and whatever the headers say an address
  gets at most MAIL_IN_ANSWERS_PER_HOUR answers (counted across processes).

To show that a mail got no answer, a ``status`` reply to the stack's own listener (not
capped, not authenticated) follows it: the one worker sends answers in order."""

from __future__ import annotations

import base64
import logging
import subprocess
import sys
import uuid
from email.message import EmailMessage
from email.policy import SMTP

import pytest

from tests.support import (
    ROOT,
    Received,
    answer_to,
    answers,
    barrier,
    played_in_words,
    reply_to,
    smtp_send,
    start_by_mail,
)
from workers.mail_in import Listener
from workers.redis_server import free_port

AUTHSERV = "mx.alhambra.test"
CAP = 3


def _address(mail: Received) -> str:
    return mail.msg["Reply-To"].addresses[0].addr_spec


def _raw(msg: EmailMessage, *top: str, sender: str | None = None) -> bytes:
    """``msg`` as bytes with header lines ``top`` put above it (as an MTA adds them), and
    its From header written as ``sender`` says, byte for byte."""
    if sender is not None:
        del msg["From"]
        top = (f"From: {sender}", *top)
    return "".join(f"{line}\r\n" for line in top).encode() + msg.as_bytes(policy=SMTP)


def _pipe(env: dict[str, str], raw: bytes, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "service.cli", "mail-in", *args], input=raw,
                          env=env, cwd=ROOT, capture_output=True, timeout=60)


def _fresh(s, smtp) -> tuple:
    """A game whose seats have addresses no other test used (their answers uncounted)."""
    tag = uuid.uuid4().hex[:8]
    return start_by_mail(s, smtp, emails=[f"ann-{tag}@example.org", f"bob-{tag}@example.org"])


@pytest.fixture(scope="module")
def listeners(mail_stack):
    """Listeners on the stack's database with other settings: ``dkim`` (MAIL_IN_AUTH=dkim
    for the authserv-id AUTHSERV) and ``capped`` (MAIL_IN_ANSWERS_PER_HOUR=CAP)."""
    settings = mail_stack.context().settings
    made = {
        "dkim": Listener(settings.replace(mail_in_auth="dkim", mail_in_authserv_id=AUTHSERV),
                         "127.0.0.1", free_port()),
        "capped": Listener(settings.replace(mail_in_answers_per_hour=CAP), "127.0.0.1",
                           free_port()),
    }
    try:
        yield {name: listener.start() for name, listener in made.items()}
    finally:
        for listener in made.values():
            listener.stop()


# -- 1. forged senders -------------------------------------------------------------------

FORGED_FROM = {
    "display-name": "{ann} <eve@evil.example>",
    "quoted": '"{ann}" <eve@evil.example>',
    "encoded-word": "=?utf-8?q?{ann_q}?= <eve@evil.example>",
    "encoded-word-b": "=?utf-8?b?{ann_b}?= <eve@evil.example>",
    "comment": "eve@evil.example ({ann})",
    "comment-first": "({ann}) eve@evil.example",
    "name-and-comment": "{ann} (Ann) <eve@evil.example>",
    "another-in-the-name": '"eve@evil.example" <{ann}>',
    "several": "{ann}, eve@evil.example",
    "several-named": "Ann <{ann}>, Eve <eve@evil.example>",
    "two-angles": "Ann <{ann}> <eve@evil.example>",
    "group": "players: {ann};",
}


def _spell(template: str, ann: str) -> str:
    quoted = ann.replace("@", "=40").replace(".", "=2E")
    return template.format(ann=ann, ann_q=quoted,
                           ann_b=base64.b64encode(ann.encode()).decode())


@pytest.mark.parametrize("spelling", list(FORGED_FROM), ids=list(FORGED_FROM))
def test_a_from_naming_another_address_or_several_plays_nothing(mail_stack, smtp, spelling,
                                                                caplog):
    s = mail_stack
    h, mail = start_by_mail(s, smtp)
    ann = mail.rcpt[0]
    raw = _raw(reply_to(mail, "take 1"), sender=_spell(FORGED_FROM[spelling], ann))
    with caplog.at_level(logging.WARNING, logger="alhambra.mail_in"):
        smtp_send(s.listener.port, raw, rcpt=[_address(mail)], sender="eve@evil.example")
        barrier(s.listener.port, smtp, mail)
    assert h.get()["version"] == mail.version  # nothing played
    assert len(answers(smtp, h.id)) == 1  # the barrier's: no answer
    assert any("refused" in r.getMessage() and "From header" in r.getMessage()
               for r in caplog.records), [r.getMessage() for r in caplog.records]


def test_the_pipe_refuses_forged_senders_too(mail_stack, smtp):
    s = mail_stack
    h, mail = start_by_mail(s, smtp)
    ann = mail.rcpt[0]
    for spelling in ("display-name", "several"):
        raw = _raw(reply_to(mail, "take 1"), sender=_spell(FORGED_FROM[spelling], ann))
        done = _pipe(s.env, raw, "--recipient", _address(mail), "--sender",
                     "eve@evil.example")
        assert done.returncode == 0, done.stderr.decode()  # handled: dropped
        assert b"refused: the From header" in done.stderr
    barrier(s.listener.port, smtp, mail)
    assert h.get()["version"] == mail.version and len(answers(smtp, h.id)) == 1


def test_a_from_with_a_name_or_the_address_as_its_name_plays(mail_stack, smtp):
    s = mail_stack
    h, mail = start_by_mail(s, smtp)
    ann = mail.rcpt[0]
    msg = reply_to(mail, "take 1")
    smtp_send(s.listener.port, _raw(msg, sender=f'"{ann.upper()}" (at home) <{ann}>'),
              rcpt=[_address(mail)], sender=ann)
    text = answer_to(smtp, h.id, str(msg["Message-ID"])).part("plain")
    assert played_in_words(s.client, h.id, mail.version, text) == ["take 1"]


# -- 1. MAIL_IN_AUTH: Authentication-Results of the operator's MTA -------------------------

AUTH_REFUSED = {
    "none": [],
    "foreign-authserv-id": ["Authentication-Results: mx.evil.example; dkim=pass "
                            "header.d=example.org header.s=s1 header.b=AbCd"],
    "unaligned-dkim": [f"Authentication-Results: {AUTHSERV}; dkim=pass "
                       "header.d=evil.example header.s=s1 header.b=AbCd"],
    "dkim-fail": [f"Authentication-Results: {AUTHSERV}; dkim=fail "
                  "header.d=example.org header.s=s1 header.b=AbCd"],
    "spf-only": [f"Authentication-Results: {AUTHSERV}; spf=pass "
                 "smtp.mailfrom=ann@example.org"],
    "public-suffix": [f"Authentication-Results: {AUTHSERV}; dkim=pass header.d=org"],
    "ours-below-garbage": [f"Authentication-Results: {AUTHSERV}; dkim=pass header.d=",
                           "Authentication-Results: mx.evil.example; dkim=pass "
                           "header.d=example.org"],
}


@pytest.mark.parametrize("top", list(AUTH_REFUSED.values()), ids=list(AUTH_REFUSED))
def test_with_mail_in_auth_dkim_an_unauthenticated_reply_plays_nothing(mail_stack, smtp,
                                                                       listeners, top,
                                                                       caplog):
    s = mail_stack
    h, mail = start_by_mail(s, smtp)
    raw = _raw(reply_to(mail, "take 1"), *top)
    with caplog.at_level(logging.WARNING, logger="alhambra.mail_in"):
        smtp_send(listeners["dkim"].port, raw, rcpt=[_address(mail)], sender=mail.rcpt[0])
        barrier(s.listener.port, smtp, mail)
    assert h.get()["version"] == mail.version
    assert all(x.claimed_by is None for x in s.store.game(h.id).seats)  # claims nothing
    assert len(answers(smtp, h.id)) == 1  # no answer (no backscatter)
    if any(line.startswith(f"Authentication-Results: {AUTHSERV};") for line in top):
        assert any(f"no Authentication-Results of {AUTHSERV} says dkim=pass aligned with "
                   "example.org" in r.getMessage() and r.levelno == logging.WARNING
                   for r in caplog.records)
    else:  # no result of our MTA at all: its milter is not running (issue 34.6)
        assert any(f"no Authentication-Results header of {AUTHSERV} at all" in r.getMessage()
                   and "MAIL_IN_AUTH=dkim refuses every reply" in r.getMessage() and
                   r.levelno == logging.ERROR for r in caplog.records)


@pytest.mark.parametrize("header", [
    f"Authentication-Results: {AUTHSERV}; dkim=pass (2048-bit key; unprotected) "
    "header.d=example.org header.i=@example.org header.s=s1 header.b=AbCd",
    # relaxed alignment: a subdomain of the same organisational domain, any case
    f"Authentication-Results: {AUTHSERV.upper()}; spf=pass smtp.mailfrom=x@Example.ORG;"
    " dkim=pass header.d=mail.example.org header.s=s1",
], ids=["opendkim", "rspamd-subdomain"])
def test_with_mail_in_auth_dkim_an_aligned_pass_of_our_mta_plays(mail_stack, smtp, listeners,
                                                                 header):
    s = mail_stack
    h, mail = start_by_mail(s, smtp)
    msg = reply_to(mail, "take 1")
    # A forged header of another host below ours changes nothing.
    raw = _raw(msg, header, "Authentication-Results: mx.evil.example; dkim=fail")
    smtp_send(listeners["dkim"].port, raw, rcpt=[_address(mail)], sender=mail.rcpt[0])
    text = answer_to(smtp, h.id, str(msg["Message-ID"])).part("plain")
    assert played_in_words(s.client, h.id, mail.version, text) == ["take 1"]
    assert h.get()["version"] > mail.version
    # the verified sender claims its seat (issue 39): its account's, a new token
    seat = next(x for x in s.store.game(h.id).seats if x.email == mail.rcpt[0])
    assert seat.claimed_by == mail.rcpt[0] and seat.token_generation == 1
    r = s.client.get(f"/games/{h.id}", headers={"Authorization":
                                                f"Bearer {h.tokens[seat.seat]}"})
    assert r.status_code == 401  # the creator's copy of the token is gone


def test_the_pipe_with_mail_in_auth_any_takes_spf_or_dkim(mail_stack, smtp):
    s = mail_stack
    env = {**s.env, "MAIL_IN_AUTH": "any", "MAIL_IN_AUTHSERV_ID": AUTHSERV}
    h, mail = start_by_mail(s, smtp)
    foreign = _raw(reply_to(mail, "take 1"), "Authentication-Results: mx.evil.example; "
                   "spf=pass smtp.mailfrom=example.org")
    done = _pipe(env, foreign, "--recipient", _address(mail))
    assert done.returncode == 0 and b"ERROR" in done.stderr and b"no Authentication-" \
        b"Results header of mx.alhambra.test at all: the MTA's milter" in done.stderr, \
        done.stderr
    unaligned = _raw(reply_to(mail, "take 1"), f"Authentication-Results: {AUTHSERV}; "
                     "spf=pass smtp.mailfrom=evil.example")
    done = _pipe(env, unaligned, "--recipient", _address(mail))
    assert done.returncode == 0 and b"no Authentication-Results of mx.alhambra.test says " \
        b"dkim=pass or spf=pass aligned with example.org" in done.stderr, done.stderr
    assert h.get()["version"] == mail.version
    msg = reply_to(mail, "take 1")
    ours = _raw(msg, f"Authentication-Results: {AUTHSERV}; dkim=none; "
                "spf=pass smtp.mailfrom=bounces.example.org")
    done = _pipe(env, ours, "--recipient", _address(mail))
    assert done.returncode == 0, done.stderr.decode()
    text = answer_to(smtp, h.id, str(msg["Message-ID"])).part("plain")
    assert played_in_words(s.client, h.id, mail.version, text) == ["take 1"]


# -- 4. mail loops: automatic mails --------------------------------------------------------

AUTOMATIC = {
    "x-autoreply": {"X-Autoreply": "yes"},
    "x-autorespond": {"X-Autorespond": "Out of office"},
    "x-auto-response-suppress": {"X-Auto-Response-Suppress": "All"},
    "precedence-auto-reply": {"Precedence": "auto_reply"},
    "list-id": {"List-Id": "<games.lists.example.org>"},
    "list-unsubscribe": {"List-Unsubscribe": "<mailto:leave@lists.example.org>"},
    "return-path-empty": {"Return-Path": "<>"},
}


@pytest.mark.parametrize("headers", list(AUTOMATIC.values()), ids=list(AUTOMATIC))
def test_automatic_mails_get_no_answer(mail_stack, smtp, headers):
    s = mail_stack
    h, mail = start_by_mail(s, smtp)
    smtp_send(s.listener.port, reply_to(mail, "take 1", headers=headers))
    barrier(s.listener.port, smtp, mail)
    assert h.get()["version"] == mail.version and len(answers(smtp, h.id)) == 1


@pytest.mark.parametrize("args", [["--sender", "MAILER-DAEMON"], ["--sender="],
                                  ["--sender", "postmaster@example.org"]],
                         ids=["postfix-null-sender", "null_sender=", "postmaster"])
def test_the_pipe_takes_a_postfix_bounce_sender_for_automatic(mail_stack, smtp, args):
    """Postfix's pipe writes a bounce's empty envelope sender as MAILER-DAEMON (unless
    master.cf says null_sender=, as deploy/mail-in/postfix-master.cf does)."""
    s = mail_stack
    h, mail = start_by_mail(s, smtp)
    done = _pipe(s.env, reply_to(mail, "take 1").as_bytes(), "--recipient", _address(mail),
                 *args)
    assert done.returncode == 0 and b"is automatic" in done.stderr, done.stderr.decode()
    barrier(s.listener.port, smtp, mail)
    assert h.get()["version"] == mail.version and len(answers(smtp, h.id)) == 1


# -- 4. mail loops: at most CAP answers per address and hour --------------------------------

VACATION = "I am away until Monday and will read your mail then.\n\nAnn"


def test_a_naive_vacation_responder_gets_no_more_answers_after_the_cap(mail_stack, smtp,
                                                                       listeners):
    """The responder answers every mail it gets, without any automatic header; the
    service answers it CAP times, then no more, and a real move is still played."""
    s = mail_stack
    h, mail = _fresh(s, smtp)
    port = listeners["capped"].port
    latest, answered = mail, 0
    for _ in range(CAP):
        msg = reply_to(latest, VACATION)
        smtp_send(port, msg)
        latest = answer_to(smtp, h.id, str(msg["Message-ID"]))
        assert "could not read line 1" in latest.part("plain")
        answered += 1
    for _ in range(3):  # the loop goes on from the responder's side: no answer now
        smtp_send(port, reply_to(latest, VACATION))
    barrier(s.listener.port, smtp, mail)  # (the stack's listener has no cap)
    assert answered == CAP and len(answers(smtp, h.id)) == CAP + 1
    # Beyond the cap a move is still played; only its answer is not sent.
    move = reply_to(latest, "take 1")
    smtp_send(port, move)
    barrier(s.listener.port, smtp, mail)
    assert h.get()["version"] > mail.version
    assert not [a for a in answers(smtp, h.id) if str(a.msg["In-Reply-To"]) ==
                str(move["Message-ID"])]


def test_the_cap_counts_the_pipe_and_the_listener_together(mail_stack, smtp, listeners):
    s = mail_stack
    h, mail = _fresh(s, smtp)
    env = {**s.env, "MAIL_IN_ANSWERS_PER_HOUR": str(CAP)}
    for _ in range(CAP - 1):  # through the listener (this process)
        msg = reply_to(mail, "status")
        smtp_send(listeners["capped"].port, msg)
        answer_to(smtp, h.id, str(msg["Message-ID"]))
    last = reply_to(mail, "status")  # through the pipe (another process): the last one
    assert _pipe(env, last.as_bytes(), "--recipient", _address(mail)).returncode == 0
    answer_to(smtp, h.id, str(last["Message-ID"]))
    again = _pipe(env, last.as_bytes(), "--recipient", _address(mail))  # delivered again
    assert again.returncode == 0
    beyond = reply_to(mail, "status")
    done = _pipe(env, beyond.as_bytes(), "--recipient", _address(mail))
    assert done.returncode == 0 and b"MAIL_IN_ANSWERS_PER_HOUR (3)" in done.stderr
    smtp_send(listeners["capped"].port, reply_to(mail, "status"))
    barrier(s.listener.port, smtp, mail)
    assert len(answers(smtp, h.id)) == CAP + 1  # CAP, then the barrier's


def test_the_pipe_logs_a_reply_delivered_twice_as_played_once(mail_stack, smtp):
    """Issue 34.5: a move reply the MTA delivers twice is played once, and the second
    delivery's log line says so (it said "played" both times)."""
    s = mail_stack
    h, mail = _fresh(s, smtp)
    move = next(line.strip() for line in mail.part("plain").split("\n")
                if line.strip().startswith("take"))
    raw = reply_to(mail, move).as_bytes()
    first = _pipe(s.env, raw, "--recipient", _address(mail))
    played = h.get()["version"]
    again = _pipe(s.env, raw, "--recipient", _address(mail))
    assert first.returncode == again.returncode == 0
    assert played > mail.version and h.get()["version"] == played
    assert b": played " + move.encode() in first.stderr, first.stderr.decode()
    assert b": played " not in again.stderr, again.stderr.decode()
    assert b"delivered again, played once before: " + move.encode() in again.stderr
