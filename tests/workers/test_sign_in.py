"""Signing in by e-mail, end to end (issue 26): the API asks, the worker process mails
the code and link through a real SMTP sink, the code opens a session once; used or
expired it is refused; the code is kept nowhere, only its hash."""

from __future__ import annotations

import re
from datetime import timedelta

from service import times
from service.auth import hash_token
from service.errors import InvalidSignInCode
from service.players import normal_code
from tests.support import auth, check_problem, wait_until

CODE = re.compile(r"\b([A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4})\b")


def sign_in_mail(smtp, address: str, after: int = 0):
    def found():
        got = [m for m in smtp.messages[after:] if m.kind == "sign_in" and
               address in m.rcpt]
        return got[-1] if got else None
    return wait_until(found, 20, what=f"a sign-in mail to {address}")


def ask(stack, smtp, address: str, **body) -> tuple[str, object]:
    before = len(smtp.messages)
    r = stack.client.post("/players/sign-in", json={"email": address, **body})
    assert r.status_code == 202, r.get_json()
    assert r.get_json() == {"expires_in": 900}
    mail = sign_in_mail(smtp, address.lower(), before)
    (code,) = set(CODE.findall(mail.part("plain")))
    return code, mail


def test_a_code_by_mail_opens_a_session_once(stack, smtp):
    code, mail = ask(stack, smtp, "Ann.Signin@Example.org")
    text = mail.part("plain")
    assert f"http://alhambra.test/me#code={code}" in text
    assert f'href="http://alhambra.test/me#code={code}"' in mail.part("html")
    assert mail.subject == "Sign in to Alhambra" and "15 minutes" in text
    assert mail.msg["Auto-Submitted"] == "auto-generated"
    # kept only as a hash: the database file holds neither form of the code
    raw = (stack.data / "alhambra.db").read_bytes() + \
        (stack.data / "alhambra.db-wal").read_bytes()
    assert code.encode() not in raw and normal_code(code).encode() not in raw
    assert hash_token(normal_code(code)).encode() in raw

    typed = normal_code(code).lower()  # as typed: any case, no dashes
    r = stack.client.post("/players/session", json={"code": typed})
    assert r.status_code == 201, r.get_json()
    session = r.get_json()
    assert session["email"] == "ann.signin@example.org"
    assert session["token"].startswith("p_")
    again = stack.client.post("/players/session", json={"code": code})
    check_problem(again, 401, "invalid_sign_in_code")

    me = stack.client.get("/me", headers=auth(session["token"]))
    assert me.status_code == 200 and me.get_json()["email"] == "ann.signin@example.org"
    assert me.get_json()["notify"] == "turn"
    out = stack.client.delete("/players/session", headers=auth(session["token"]))
    assert out.status_code == 204
    check_problem(stack.client.get("/me", headers=auth(session["token"])), 401,
                  "invalid_player_token")
    check_problem(stack.client.delete("/players/session", headers=auth(session["token"])),
                  401, "invalid_player_token")


def test_an_expired_code_is_refused(stack, smtp):
    code, _ = ask(stack, smtp, "late@example.org")
    players = stack.app.extensions["alhambra_players"]
    try:
        players.open_session(code, now=times.now() + timedelta(minutes=15, seconds=1))
    except InvalidSignInCode:
        pass
    else:
        raise AssertionError("an expired code opened a session")
    assert players.open_session(code)["email"] == "late@example.org"  # still in time


def test_the_mail_speaks_the_asked_language(stack, smtp):
    _, mail = ask(stack, smtp, "fi@example.org", language="fi")
    assert mail.msg["Content-Language"] == "fi"
    assert "Sign in" not in mail.subject
    _, mail = stack_ask_header(stack, smtp, "da@example.org", "da-DK,da;q=0.9")
    assert mail.msg["Content-Language"] == "da"


def stack_ask_header(stack, smtp, address: str, accept: str):
    before = len(smtp.messages)
    r = stack.client.post("/players/sign-in", json={"email": address},
                          headers={"Accept-Language": accept})
    assert r.status_code == 202
    return None, sign_in_mail(smtp, address, before)


def test_any_address_gets_202_and_bad_ones_422(stack):
    r = stack.client.post("/players/sign-in", json={"email": "never.played@example.org"})
    assert r.status_code == 202
    check_problem(stack.client.post("/players/sign-in", json={"email": "not an address"}),
                  422, "validation_error")
    check_problem(stack.client.post("/players/session", json={"code": "ABCD-EFGH-JKLM"}),
                  401, "invalid_sign_in_code")
