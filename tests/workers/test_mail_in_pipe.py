"""``alhambra-pbem mail-in`` reading one message on standard input (pipe delivery), as a
mail server runs it: its exit status tells the server what to do (0 handled, 67 no such
user, 75 try again later), with the database really unavailable, Redis not needed."""

from __future__ import annotations

import subprocess
import sys

from tests.support import (
    ROOT,
    answer_to,
    answers,
    barrier,
    played_in_words,
    reply_to,
    start_by_mail,
)
from workers.redis_server import free_port


def _pipe(env: dict[str, str], raw: bytes, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "service.cli", "mail-in", *args], input=raw,
                          env=env, cwd=ROOT, capture_output=True, timeout=60)


def test_exit_0_when_handled_67_when_not_ours(mail_stack, smtp):
    s = mail_stack
    h, mail = start_by_mail(s, smtp)
    address = mail.msg["Reply-To"].addresses[0].addr_spec
    msg = reply_to(mail, "take 1")
    done = _pipe(s.env, msg.as_bytes(), "--recipient", address)
    assert done.returncode == 0, done.stderr.decode()
    text = answer_to(smtp, h.id, str(msg["Message-ID"])).part("plain")
    assert played_in_words(s.client, h.id, mail.version, text) == ["take 1"]
    # Without --recipient: the address is read from the headers (To: the reply address).
    status = reply_to(mail, "status")
    assert _pipe(s.env, status.as_bytes()).returncode == 0
    answer_to(smtp, h.id, str(status["Message-ID"]))
    version = h.get()["version"]

    forged = address.replace(f".{mail.version}.", f".{mail.version + 1}.")
    for args, to in ((["--recipient", forged], None), ([], "someone@example.org"),
                     ([], forged)):
        msg = reply_to(mail, "take 1")
        if to:
            msg.replace_header("To", to)
        done = _pipe(s.env, msg.as_bytes(), *args)
        assert done.returncode == 67, (args, to, done.stderr.decode())
        assert b"for no reply address of ours" in done.stderr
    # ALHAMBRA_MAIL_IN_LOG (a setting): the log lines go to that file instead
    log = s.data / "mail-in.log"
    done = _pipe({**s.env, "ALHAMBRA_MAIL_IN_LOG": str(log)}, msg.as_bytes())
    assert done.returncode == 67 and b"for no reply address of ours" not in done.stderr
    assert "for no reply address of ours" in log.read_text()
    unwritable = _pipe({**s.env, "ALHAMBRA_MAIL_IN_LOG": str(s.data / "no" / "x.log")},
                       msg.as_bytes())
    assert unwritable.returncode == 75 and b"ALHAMBRA_MAIL_IN_LOG" in unwritable.stderr
    # An automatic mail is handled (dropped): 0, and no answer.
    bounce = reply_to(mail, "take 1")
    assert _pipe(s.env, bounce.as_bytes(), "--sender", "").returncode == 0
    barrier(s.listener.port, smtp, mail)
    assert len(answers(smtp, h.id)) == 3 and h.get()["version"] == version


def test_exit_75_while_the_database_is_unavailable(mail_stack, smtp, tmp_path):
    s = mail_stack
    h, mail = start_by_mail(s, smtp)
    msg = reply_to(mail, "take 1")
    gone = tmp_path / "volume-not-mounted"
    gone.mkdir()  # a folder where the database file should be: it cannot be opened
    done = _pipe({**s.env, "ALHAMBRA_DB": str(gone)}, msg.as_bytes())
    assert done.returncode == 75, done.stderr.decode()
    assert b"unavailable" in done.stderr
    assert h.get()["version"] == mail.version
    # The mail server tries again later: then it is played.
    assert _pipe(s.env, msg.as_bytes()).returncode == 0
    assert "you played" in answer_to(smtp, h.id, str(msg["Message-ID"])).part("plain")


def test_a_reply_needs_no_redis_and_is_played_and_answered_once(mail_stack, smtp):
    """The reply's move and its answer (due work) go to the database only: with Redis
    away the pipe still delivers, and a delivery again plays nothing twice, answers
    once."""
    s = mail_stack
    h, mail = start_by_mail(s, smtp)
    msg = reply_to(mail, "take 1")
    nothing_there = f"redis://127.0.0.1:{free_port()}/0"
    done = _pipe({**s.env, "REDIS_URL": nothing_there}, msg.as_bytes())
    assert done.returncode == 0, done.stderr.decode()
    played = h.get()["version"]
    assert played > mail.version
    text = answer_to(smtp, h.id, str(msg["Message-ID"])).part("plain")
    assert played_in_words(s.client, h.id, mail.version, text) == ["take 1"]
    # The mail server delivers again: the move is not played twice, the answer goes once.
    for _ in range(2):
        assert _pipe(s.env, msg.as_bytes()).returncode == 0
    barrier(s.listener.port, smtp, mail)
    assert h.get()["version"] == played
    assert len([a for a in answers(smtp, h.id)
                if str(a.msg["In-Reply-To"]) == str(msg["Message-ID"])]) == 1


def test_the_pipe_of_the_one_host_setup_has_no_redis_url_at_all(mail_stack, smtp):
    """Issue 22: with ``serve``'s embedded Redis the pipe's environment names no Redis;
    the move is played and its answer is due work in the database (exit 0, never 75),
    which the worker sends."""
    s = mail_stack
    h, mail = start_by_mail(s, smtp)
    msg = reply_to(mail, "take 1")
    env = {k: v for k, v in s.env.items() if k != "REDIS_URL"}
    done = _pipe(env, msg.as_bytes(), "--sender", str(mail.rcpt[0]))
    assert done.returncode == 0, done.stderr.decode()
    assert b"REDIS_URL" not in done.stderr
    assert h.get()["version"] > mail.version
    text = answer_to(smtp, h.id, str(msg["Message-ID"])).part("plain")
    assert played_in_words(s.client, h.id, mail.version, text) == ["take 1"]
