"""Moves by e-mail (issue 13), case by case, with real SMTP both ways: the players' replies
go to the SMTP listener of ``mail-in``, the answers and "your turn" mails come to the
SMTP sink through the worker.

To show that a mail got no answer, a test sends a ``status`` reply afterwards and waits
for its answer: the one worker runs the answer jobs in order, so an answer to the earlier
mail would have come first."""

from __future__ import annotations

import base64
import email.utils
import quopri
import re
import smtplib

import pytest

from tests.support import (
    answer_to,
    answers,
    barrier,
    offered_moves,
    played_in_words,
    reply_to,
    smtp_send,
    start_by_mail,
)
from workers import city, reply_address

RULE_SENTENCE = "there is no tile to place now: tiles are placed after the turn's actions"


def test_a_reply_plays_the_move_and_is_answered_in_the_games_thread(mail_stack, smtp):
    s = mail_stack
    h, mail = start_by_mail(s, smtp)
    seat, version = h.get()["current_seat"], mail.version
    # The your-turn mail: a per-seat reply address, in the game's thread, automatic.
    tag = mail.msg["Reply-To"].addresses[0].addr_spec
    assert re.fullmatch(rf"moves\+{h.id}\.{seat}\.{version}\.[a-z2-7]{{16}}@alhambra\.test",
                        tag)
    # The started mail is the thread's root: later mails to the seat refer to it.
    root = f"<{h.id}.seat{seat}@test>"
    assert str(mail.msg["Message-ID"]) == root
    assert mail.msg["In-Reply-To"] is None and mail.msg["References"] is None
    assert str(mail.msg["Auto-Submitted"]) == "auto-generated"
    assert mail.status == "Game started: your turn, move 1"
    subject = f"Alhambra · game {h.id[:8]} · P0, P1"
    assert mail.subject == subject
    assert '<div class="preheader" style="display:none' in mail.part("html")
    assert "Game started: your turn, move 1</div>" in mail.part("html")
    text = mail.part("plain")
    offered = offered_moves(text)
    assert offered == h.notations(seat)  # every legal move, one a line
    assert re.search(r"Deadline: in 3 days, \w+day \d\d:\d\d UTC \(\w+ \d+, \d{4}\): 3 days left "
                     r"for this move\.\n", text)
    assert "Time: 3 days per move" in text
    assert '"status"' in text and '"help"' in text
    picture = city.picture(h.get(seat)["view"]["seats"][seat]["city"])
    assert "Your city (0 points):\n" + "\n".join(picture) + "\n" in text  # the fountain
    assert "Reply with one of these lines" in mail.part("html")

    take = next(m for m in offered if m.startswith("take"))
    msg = reply_to(mail, f"  {take.upper()}  ")  # case and spaces do not matter
    smtp_send(s.listener.port, msg)
    answer = answer_to(smtp, h.id, str(msg["Message-ID"]))
    doc = h.get()
    assert doc["version"] > version and doc["current_seat"] != seat
    events = s.client.get(f"/games/{h.id}/events?since={version}").get_json()["events"]
    assert events[0]["event"]["move"] == take and events[0]["event"]["seat"] == seat
    text = answer.part("plain")
    assert played_in_words(s.client, h.id, version, text) == [take]  # in words
    assert f"you played:\n  - {events[0]['text']}\n" in text and take not in text
    assert f"It is P{doc['current_seat']}'s turn (move 2)" in text
    assert answer.rcpt == [f"p{seat}@example.org"]
    assert (answer.subject, answer.status) == (subject, "Move played, move 2")
    assert str(answer.msg["In-Reply-To"]) == str(msg["Message-ID"])
    assert str(answer.msg["References"]).split() == [root, str(msg["Message-ID"])]
    assert str(answer.msg["Auto-Submitted"]) == "auto-replied"  # RFC 3834: an answer
    # The next seat's "your turn" mail, with its own reply address.
    (nxt,) = smtp.wait(h.id, "your_turn", where=lambda m: m.version == doc["version"])
    assert nxt.rcpt == [f"p{doc['current_seat']}@example.org"]
    assert f".{doc['current_seat']}.{doc['version']}." in str(nxt.msg["Reply-To"])


def test_forged_or_moved_tags_are_refused_at_rcpt_and_by_the_pipe(mail_stack, smtp):
    s = mail_stack
    h, mail = start_by_mail(s, smtp)
    other, _ = start_by_mail(s, smtp)
    good = mail.msg["Reply-To"].addresses[0].addr_spec
    tag = reply_address.read("moves@alhambra.test", good)
    assert tag is not None
    forged = [
        good.replace(tag.mac, ("a" if tag.mac[0] != "a" else "b") + tag.mac[1:]),  # MAC
        good.replace(h.id, other.id),  # moved to another game
        good.replace(f".{tag.seat}.", f".{1 - tag.seat}."),  # to the other seat
        good.replace(f".{tag.version}.", f".{tag.version + 1}."),  # to another version
        "moves@alhambra.test", "someone@alhambra.test",
        good.replace("@alhambra.test", "@elsewhere.test"),
    ]
    for address in forged:
        msg = reply_to(mail, "take 1")
        with pytest.raises(smtplib.SMTPRecipientsRefused) as refused:
            smtp_send(s.listener.port, msg, rcpt=[address])
        assert refused.value.recipients[address][0] == 550, address
    # Mail systems may change the letter case of an address: it still verifies.
    assert s.listener.gateway.target(good.upper()) is not None
    # Nothing was played, nothing was answered (no backscatter).
    assert h.get()["version"] == mail.version and other.get()["version"] > 0
    barrier(s.listener.port, smtp, mail)
    assert len(answers(smtp, h.id)) == 1


def test_a_reply_from_another_address_plays_nothing_and_gets_no_answer(mail_stack, smtp):
    s = mail_stack
    h, mail = start_by_mail(s, smtp)
    msg = reply_to(mail, "take 1", sender="mallory@example.org")
    smtp_send(s.listener.port, msg)  # accepted (the address is ours), then dropped
    barrier(s.listener.port, smtp, mail)
    assert h.get()["version"] == mail.version
    assert len(answers(smtp, h.id)) == 1  # the barrier's only
    # The seat's address in other letter case is the seat's address.
    msg = reply_to(mail, "take 1", sender=mail.rcpt[0].upper())
    smtp_send(s.listener.port, msg)
    text = answer_to(smtp, h.id, str(msg["Message-ID"])).part("plain")
    assert played_in_words(s.client, h.id, mail.version, text) == ["take 1"]


def test_a_reply_to_an_old_mail_plays_nothing_and_shows_the_game_now(mail_stack, smtp):
    s = mail_stack
    h, mail = start_by_mail(s, smtp)
    seat = h.get()["current_seat"]
    first = reply_to(mail, "take 1")
    smtp_send(s.listener.port, first)
    answer_to(smtp, h.id, str(first["Message-ID"]))
    after = h.get()
    (theirs,) = smtp.wait(h.id, "your_turn", where=lambda m: m.version == after["version"])
    r = h.submit(after["current_seat"], "take 1", after["version"])  # the other seat moves
    assert r.status_code == 201
    now = h.get()
    assert now["current_seat"] == seat
    old = reply_to(mail, "take 2")  # answers the first mail again, 2 moves ago
    smtp_send(s.listener.port, old)
    answer = answer_to(smtp, h.id, str(old["Message-ID"]))
    assert h.get()["version"] == now["version"]  # nothing played
    text = answer.part("plain")
    assert f"your reply answers version {mail.version}" in text
    assert f"at version {now['version']} now" in text and "You wrote: take 2" in text
    since = s.client.get(f"/games/{h.id}/events?since={mail.version}",
                         headers={"Authorization": f"Bearer {h.tokens[seat]}"}).get_json()
    said = [e["text"] for e in since["events"] if e["text"]]
    assert len(said) >= 2 and all(f"  - {line}\n" in text for line in said)  # since then
    assert offered_moves(text) == h.notations(seat)  # the moves of now
    assert f".{seat}.{now['version']}." in str(answer.msg["Reply-To"])
    assert answer.status == "Nothing played: the game moved on, move 3"
    assert theirs  # the other seat's mail was a your-turn mail, as after any move


def test_the_same_mail_delivered_twice_plays_once_and_is_answered_once(mail_stack, smtp):
    s = mail_stack
    h, mail = start_by_mail(s, smtp)
    msg = reply_to(mail, "take 1")
    smtp_send(s.listener.port, msg)
    answer_to(smtp, h.id, str(msg["Message-ID"]))
    played = h.get()["version"]
    smtp_send(s.listener.port, msg)  # the same Message-ID again, after the answer
    smtp_send(s.listener.port, msg)
    barrier(s.listener.port, smtp, mail)
    assert h.get()["version"] == played
    assert len([a for a in answers(smtp, h.id)
                if str(a.msg["In-Reply-To"]) == str(msg["Message-ID"])]) == 1
    # A refused reply delivered twice is answered once too.
    nope = reply_to(mail, "take 2")
    for _ in range(2):
        smtp_send(s.listener.port, nope)
    barrier(s.listener.port, smtp, mail)
    assert len([a for a in answers(smtp, h.id)
                if str(a.msg["In-Reply-To"]) == str(nope["Message-ID"])]) == 1


def test_quoted_text_with_other_moves_is_not_read(mail_stack, smtp):
    s = mail_stack
    h, mail = start_by_mail(s, smtp)
    offered = offered_moves(mail.part("plain"))
    assert "take 1" in offered and "take 2" in offered  # both quoted below the answer
    msg = reply_to(mail, "take 2\n\nthanks, good game so far\n-- \nP0\nSent from my phone")
    smtp_send(s.listener.port, msg)
    text = answer_to(smtp, h.id, str(msg["Message-ID"])).part("plain")
    assert played_in_words(s.client, h.id, mail.version, text) == ["take 2"]
    events = s.client.get(f"/games/{h.id}/events?since={mail.version}").get_json()["events"]
    assert [e["event"]["move"] for e in events if "move" in e["event"]] == ["take 2"]


def test_a_bottom_posted_reply_is_read_below_the_quote(mail_stack, smtp):
    s = mail_stack
    h, mail = start_by_mail(s, smtp)
    msg = reply_to(mail, "", quote=True)
    body = msg.get_content().strip() + "\n\ntake 3\n"
    msg.set_content(body)
    smtp_send(s.listener.port, msg)
    text = answer_to(smtp, h.id, str(msg["Message-ID"])).part("plain")
    assert played_in_words(s.client, h.id, mail.version, text) == ["take 3"]


def test_an_html_only_reply_is_read(mail_stack, smtp):
    s = mail_stack
    h, mail = start_by_mail(s, smtp)
    msg = reply_to(mail, "", quote=False)
    msg.set_content(
        '<html><body><div dir="ltr">Take 4<br></div><br><div class="gmail_quote">'
        f'<div dir="ltr">On {mail.msg["Date"]}, Alhambra &lt;game@test&gt; wrote:<br></div>'
        '<blockquote class="gmail_quote"><pre>Reply with one of these lines:\n  take 1\n'
        '  take 2</pre></blockquote></div></body></html>', subtype="html")
    assert msg.get_body(("plain",)) is None
    smtp_send(s.listener.port, msg)
    text = answer_to(smtp, h.id, str(msg["Message-ID"])).part("plain")
    assert played_in_words(s.client, h.id, mail.version, text) == ["take 4"]


@pytest.mark.parametrize("charset", ["iso-8859-1", "utf-8"])
@pytest.mark.parametrize("encoding", ["quoted-printable", "base64"])
def test_quoted_printable_and_base64_bodies_in_latin1_and_utf8(mail_stack, smtp, charset,
                                                              encoding):
    s = mail_stack
    h, mail = start_by_mail(s, smtp)
    # A no-break space between the words: read right only if the charset is honoured.
    text = "take\u00a02\n\nGrüße, Jürgen – à bientôt\n"
    body = text.encode(charset, "replace")
    body = quopri.encodestring(body) if encoding == "quoted-printable" else \
        base64.encodebytes(body)
    message_id = email.utils.make_msgid(domain="player.test")
    raw = (f"From: P <{mail.rcpt[0]}>\r\nTo: {mail.msg['Reply-To']}\r\n"
           f"Subject: Re: {mail.subject}\r\nMessage-ID: {message_id}\r\n"
           f"Date: {email.utils.formatdate()}\r\nMIME-Version: 1.0\r\n"
           f"Content-Type: text/plain; charset={charset}\r\n"
           f"Content-Transfer-Encoding: {encoding}\r\n\r\n").encode() + \
        body.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    smtp_send(s.listener.port, raw, rcpt=[mail.msg["Reply-To"].addresses[0].addr_spec],
              sender=mail.rcpt[0])
    text = answer_to(smtp, h.id, message_id).part("plain")
    assert played_in_words(s.client, h.id, mail.version, text) == ["take 2"]


@pytest.mark.parametrize("headers,sender", [
    ({"Auto-Submitted": "auto-replied"}, None),
    ({"Auto-Submitted": "auto-generated; type=vacation"}, None),
    ({"Precedence": "bulk"}, None),
    ({"Precedence": "junk"}, None),
    ({"Precedence": "list"}, None),
    ({}, ""),  # a bounce: the null envelope sender
], ids=["auto-replied", "vacation", "bulk", "junk", "list", "bounce"])
def test_automatic_mails_play_nothing_and_get_no_answer(mail_stack, smtp, headers, sender):
    s = mail_stack
    h, mail = start_by_mail(s, smtp)
    msg = reply_to(mail, "take 1", headers=headers)
    smtp_send(s.listener.port, msg, sender=sender)
    barrier(s.listener.port, smtp, mail)
    assert h.get()["version"] == mail.version
    assert len(answers(smtp, h.id)) == 1
    # Auto-Submitted: no is a person's mail.
    msg = reply_to(mail, "take 1", headers={"Auto-Submitted": "no"})
    smtp_send(s.listener.port, msg)
    assert "you played" in answer_to(smtp, h.id, str(msg["Message-ID"])).part("plain")


def test_mail_from_the_mailer_daemon_plays_nothing(mail_stack, smtp):
    s = mail_stack
    h, mail = start_by_mail(s, smtp)
    raw = reply_to(mail, "take 1")
    for name in ("MAILER-DAEMON@example.org", "postmaster@example.org"):
        raw.replace_header("From", name)
        raw.replace_header("Message-ID", email.utils.make_msgid(domain="player.test"))
        smtp_send(s.listener.port, raw)
    barrier(s.listener.port, smtp, mail)
    assert h.get()["version"] == mail.version and len(answers(smtp, h.id)) == 1


def test_an_oversized_mail_is_refused_with_552(mail_stack, smtp):
    s = mail_stack
    h, mail = start_by_mail(s, smtp)
    with smtplib.SMTP("127.0.0.1", s.listener.port, timeout=10) as conn:
        conn.ehlo()
        assert conn.has_extn("size") and conn.esmtp_features["size"] == "65536"
    big = reply_to(mail, "take 1\n\n" + ("x" * 70 + "\n") * 1000)
    with pytest.raises(smtplib.SMTPSenderRefused) as refused:  # SIZE= said at MAIL FROM
        smtp_send(s.listener.port, big)
    assert refused.value.smtp_code == 552
    with smtplib.SMTP("127.0.0.1", s.listener.port, timeout=10) as conn:  # no SIZE=
        conn.ehlo()
        assert conn.mail(mail.rcpt[0])[0] == 250
        assert conn.rcpt(str(mail.msg["Reply-To"]))[0] == 250
        code, said = conn.data(big.as_string())
        assert code == 552, said
    barrier(s.listener.port, smtp, mail)
    assert h.get()["version"] == mail.version and len(answers(smtp, h.id)) == 1


def test_a_refused_move_gets_the_rule_and_the_sentence_as_the_api_gives_them(mail_stack,
                                                                             smtp):
    s = mail_stack
    h, mail = start_by_mail(s, smtp)
    seat = h.get()["current_seat"]
    api = h.submit(seat, "place A01 at 1,0", mail.version).get_json()
    assert api["rule"] == "A-3.4" and api["detail"] == RULE_SENTENCE
    msg = reply_to(mail, "Place a01 at 1, 0")
    smtp_send(s.listener.port, msg)
    answer = answer_to(smtp, h.id, str(msg["Message-ID"]))
    text = answer.part("plain")
    assert "nothing was played. I read: place A01 at 1,0" in text
    assert f"Rule A-3.4 does not allow it: {RULE_SENTENCE}" in text
    assert offered_moves(text) == h.notations(seat)  # and the moves of now
    assert answer.status == "Move refused, move 1"
    assert h.get()["version"] == mail.version


def test_a_notation_error_is_answered_with_its_line_and_column(mail_stack, smtp):
    s = mail_stack
    h, mail = start_by_mail(s, smtp)
    seat = h.get()["current_seat"]
    api = h.submit(seat, "take 1; tkae 2", mail.version).get_json()
    assert api["code"] == "notation_error"
    msg = reply_to(mail, "take 1\ntkae 2")
    smtp_send(s.listener.port, msg)
    text = answer_to(smtp, h.id, str(msg["Message-ID"])).part("plain")
    assert "could not read line 2 of your reply, column 1: expected " + api["expected"] in text
    assert "  tkae 2\n  ^\n" in text
    assert offered_moves(text) == h.notations(seat)
    assert h.get()["version"] == mail.version


def test_status_and_help_are_commands(mail_stack, smtp):
    s = mail_stack
    h, mail = start_by_mail(s, smtp)
    seat = h.get()["current_seat"]
    status = barrier(s.listener.port, smtp, mail)
    text = status.part("plain")
    assert f"here is the game as it stands (version {mail.version})" in text
    assert offered_moves(text) == h.notations(seat) and "Your hand (" in text
    assert status.status == "Status, move 1"
    msg = reply_to(mail, "Help")
    smtp_send(s.listener.port, msg)
    text = answer_to(smtp, h.id, str(msg["Message-ID"])).part("plain")
    assert "buy A17 pay DI5,DI3" in text and "place A17 at 1,-1" in text
    assert offered_moves(text) == h.notations(seat)
    empty = reply_to(mail, "")
    smtp_send(s.listener.port, empty)
    text = answer_to(smtp, h.id, str(empty["Message-ID"])).part("plain")
    assert "I found no move at the top of your reply" in text
    assert h.get()["version"] == mail.version
    # The other seat may ask for the status, and is told whose turn it is.
    (started,) = smtp.wait(h.id, "started", where=lambda m: m.rcpt == [f"p{1 - seat}@example.org"])
    text = barrier(s.listener.port, smtp, started).part("plain")
    assert f"It is P{seat}'s turn (move 1)" in text and not offered_moves(text)
