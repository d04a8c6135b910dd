"""Names and addresses that go into mails: refused at the API when they would break a
mail (point 7 of issue 10), and sent correctly when accepted, through real SMTP."""

from __future__ import annotations

import email.header

from tests.support import check_problem, stored


def test_a_name_with_a_line_break_or_control_is_refused_and_nothing_is_written(stack):
    before = stored(stack.store, "games")
    for name in ("Eve\r\nBcc: spy@example.org", "Eve\nX", "Eve\x00", "Eve\t", "\u202eEve",
                 "Eve\u2066", "   ", "E" * 41):
        r = stack.client.post("/games", json={"seats": [
            {"name": name, "email": "eve@example.org"}, {"name": "Bob"}]})
        body = check_problem(r, 422, "validation_error")
        assert "printable" in str(body["errors"]), body  # the rule, in the message
    assert stored(stack.store, "games") == before
    created = stack.client.post("/games", json={"players": 2, "seats": [{"name": "Ann"}]})
    join = f"/games/{created.get_json()['game_id']}/join"
    check_problem(stack.client.post(join, json={
        "invite_code": created.get_json()["invite_code"], "name": "Eve\r\nBcc: x@y.org"}),
        422, "validation_error")


def test_an_address_needing_smtputf8_is_refused_at_the_api(stack):
    r = stack.client.post("/games", json={"seats": [
        {"name": "Zoë", "email": "zoë@example.org"}, {"name": "Bob"}]})
    body = check_problem(r, 422, "validation_error")
    assert "before the @-sign" in str(body["errors"])


def test_a_non_ascii_name_makes_a_correct_to_header(stack, smtp):
    r = stack.client.post("/games", json={"seats": [
        {"name": "Zoë Ñúñez", "email": "Zoe@Bücher.example"},
        {"name": "Bob", "email": "bob@example.org"}]})
    assert r.status_code == 201, r.get_json()
    game = r.get_json()["game_id"]
    (mail,) = smtp.wait(game, "started", where=lambda m: "bob" not in m.rcpt[0])
    assert mail.rcpt == ["zoe@xn--bcher-kva.example"]  # the domain in ASCII (IDNA)
    raw = dict(mail.msg.raw_items())["To"]
    assert raw.isascii(), raw  # an encoded word, not raw UTF-8
    (to,) = mail.msg["To"].addresses
    assert (to.display_name, to.addr_spec) == ("Zoë Ñúñez", "zoe@xn--bcher-kva.example")
    decoded = "".join(part.decode(cs or "ascii") if isinstance(part, bytes) else part
                      for part, cs in email.header.decode_header(raw))
    assert decoded.startswith("Zoë Ñúñez")
    assert not mail.msg["To"].defects
