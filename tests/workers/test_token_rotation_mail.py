"""Rotating a seat's token rotates its reply addresses (issue 13): a reply to a mail sent
before the rotation is refused at RCPT and plays nothing; the seat's next mail carries a
new address, which works."""

from __future__ import annotations

import smtplib

import pytest

from tests.support import answer_to, auth, reply_to, smtp_send, start_by_mail


def test_rotating_the_token_retires_the_reply_addresses_of_older_mails(mail_stack, smtp):
    s = mail_stack
    h, mail = start_by_mail(s, smtp)
    seat = h.get()["current_seat"]
    old = mail.msg["Reply-To"].addresses[0].addr_spec
    r = s.client.post(f"/games/{h.id}/token", headers=auth(h.tokens[seat]))
    assert r.status_code == 201
    h.tokens[seat] = r.get_json()["token"]
    with pytest.raises(smtplib.SMTPRecipientsRefused) as refused:
        smtp_send(s.listener.port, reply_to(mail, "take 1"), rcpt=[old])
    assert refused.value.recipients[old][0] == 550
    assert h.get()["version"] == mail.version  # nothing played

    for who in (seat, 1 - seat):  # a turn each: the seat's turn again, a new mail
        r = h.submit(who, "take 1", h.get()["version"])
        assert r.status_code == 201, r.get_json()
    v = r.get_json()["version"]
    (later,) = smtp.wait(h.id, "your_turn", where=lambda m: m.version == v)
    new = later.msg["Reply-To"].addresses[0].addr_spec
    assert later.rcpt == mail.rcpt and new != old
    msg = reply_to(later, "status")
    smtp_send(s.listener.port, msg)
    assert "status" in answer_to(smtp, h.id, str(msg["Message-ID"])).part("plain").lower()
