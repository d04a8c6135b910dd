"""An invitation by handle is mailed to each invitee (issue 33's invitations, mailed as
a correspondence player expects): through a real SMTP server, in the invitee's language,
naming the inviter, the game and its clock, when it expires and where to answer; not to
an invitee who answered already, nor once the invitation is closed."""

from __future__ import annotations

from tests.service.test_invitations import account
from tests.support import auth, run_due_now


def invite(s, token: str, **body) -> dict:
    r = s.client.post("/invitations", json={"variant": "alhambra", **body},
                      headers=auth(token))
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def test_each_invitee_is_mailed_in_its_language_once(unserved_stack, smtp):
    s = unserved_stack
    ann = account(s.app, "ann@example.org", "ann")
    account(s.app, "bob@example.org", "bob")
    cyd = account(s.app, "cyd@example.org", "cyd")
    r = s.client.patch("/me", json={"language": "fi"}, headers=auth(cyd))
    assert r.status_code == 200, r.get_json()
    inv = invite(s, ann, invitees=["bob", "cyd"], bots=["strong"],
                 time_per_move=2 * 86400, expires_in=3 * 86400)
    ctx = s.context()
    done = run_due_now(ctx, "")
    assert sorted(v for k, v in done.items() if k[0] == "invitation_mail") == \
        ["sent", "sent"]
    mails = {m.rcpt[0]: m.msg for m in smtp.wait(inv["id"], "invitation", 2)}
    assert sorted(mails) == ["bob@example.org", "cyd@example.org"]

    bob = mails["bob@example.org"]
    assert bob["Subject"] == "ann invites you to a game of Alhambra"
    assert bob["Content-Language"] == "en" and bob["Reply-To"] is None
    text = bob.get_body(("plain",)).get_content()
    assert "ann invites you to a game of Alhambra with cyd and a strong bot." in text
    assert "Time control: 2 days per move." in text
    assert "It expires in 3 days," in text
    assert "Accept or decline it on your page:\nhttp://alhambra.test/me\n" in text
    assert "href=\"http://alhambra.test/me\"" in bob.get_body(("html",)).get_content()

    cyd_mail = mails["cyd@example.org"]
    assert cyd_mail["Content-Language"] == "fi"
    assert "ann" in cyd_mail["Subject"] and "invites" not in cyd_mail["Subject"]
    assert "http://alhambra.test/me" in cyd_mail.get_body(("plain",)).get_content()
    assert run_due_now(ctx, "") == {}  # once


def test_no_mail_once_answered_or_closed(unserved_stack, smtp):
    s = unserved_stack
    ann = account(s.app, "ann@example.org", "ann")
    bob = account(s.app, "bob@example.org", "bob")
    account(s.app, "cyd@example.org", "cyd")
    first = invite(s, ann, invitees=["bob"])
    r = s.client.post(f"/invitations/{first['id']}/decline", headers=auth(bob))
    assert r.status_code == 200, r.get_json()
    second = invite(s, ann, invitees=["bob", "cyd"])
    r = s.client.post(f"/invitations/{second['id']}/accept", headers=auth(bob))
    assert r.status_code == 200, r.get_json()
    run_due_now(s.context(), "")
    rows = [d for d in s.store.due_rows("") if d.kind == "invitation_mail"]
    by = {(d.reply, d.seat): d.result for d in rows}
    assert by == {(first["id"], 1): "closed", (second["id"], 1): "closed",
                  (second["id"], 2): "sent"}
    [sent] = smtp.wait(second["id"], "invitation", 1)
    assert sent.rcpt == ["cyd@example.org"] and smtp.of(first["id"]) == []


def test_the_invited_of_an_invitation_only_tournament_are_mailed(unserved_stack, smtp):
    """Issue 36's entry by invitation: each invited account (not the organiser, nor one
    that entered already) is mailed where to enter, in its language."""
    s = unserved_stack
    org = account(s.app, "org@example.org", "org")
    dee = account(s.app, "dee@example.org", "dee")
    eve = account(s.app, "eve@example.org", "eve")
    r = s.client.patch("/me", json={"language": "da"}, headers=auth(eve))
    assert r.status_code == 200, r.get_json()
    account(s.app, "fay@example.org", "fay")
    r = s.client.post("/tournaments", headers=auth(org), json={
        "name": "Winter Cup", "variant": "granada", "format": "swiss", "table_size": 3,
        "rounds": 2, "invited": ["org", "dee", "eve", "fay"]})
    assert r.status_code == 201, r.get_json()
    t = r.get_json()
    r = s.client.post(f"/tournaments/{t['id']}/entries", headers=auth(dee))
    assert r.status_code in (200, 201), r.get_json()
    run_due_now(s.context(), "")
    mails = {m.rcpt[0]: m.msg for m in smtp.wait(t["id"], "tournament-invited", 2)}
    assert sorted(mails) == ["eve@example.org", "fay@example.org"]  # dee entered
    fay = mails["fay@example.org"]
    assert fay["Subject"] == "org invites you to the tournament Winter Cup"
    text = fay.get_body(("plain",)).get_content()
    assert "org invites you to the tournament Winter Cup (Granada); only the players " \
        "invited may enter." in text
    assert f"http://alhambra.test/tournament/{t['id']}\n" in text
    eve_mail = mails["eve@example.org"]
    assert eve_mail["Content-Language"] == "da" and "invites" not in eve_mail["Subject"]
    rows = [d for d in s.store.due_rows("") if d.kind == "tournament_mail"]
    assert sorted(d.result for d in rows) == ["closed", "sent", "sent"]
