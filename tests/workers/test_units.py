"""Smaller parts: SMTP_URL, settings, the .eml fallback, signatures, address checks."""

from __future__ import annotations

import email
import email.policy

import pytest
import redis

from service.settings import Settings
from workers.mail import Mail, Mailer, parse_smtp_url
from workers.redis_server import EmbeddedRedis
from workers.webhooks import sign, verify


def test_smtp_url():
    c = parse_smtp_url("smtp://user%40x:p%3Ass@mail.example.org:2525?starttls=1")
    assert (c.host, c.port, c.user, c.password, c.starttls, c.ssl) == (
        "mail.example.org", 2525, "user@x", "p:ss", True, False)
    assert parse_smtp_url("smtps://h").port == 465 and parse_smtp_url("smtps://h").ssl
    assert parse_smtp_url("smtp://h").port == 25
    with pytest.raises(ValueError):
        parse_smtp_url("http://h")


def test_settings_from_env(tmp_path):
    s = Settings.from_env({"ALHAMBRA_DATA": str(tmp_path), "ALHAMBRA_REMINDERS": "0.25,0.75,2",
                           "PUBLIC_URL": "https://x.test/", "ALHAMBRA_WEBHOOK_RETRIES": "1,2"})
    assert s.database == str(tmp_path / "alhambra.db") and s.outbox_dir == tmp_path / "outbox"
    assert s.reminders == (0.25, 0.75) and s.public_url == "https://x.test"
    assert s.webhook_retries == (1, 2) and s.redis_url is None and s.smtp_url is None
    assert Settings.from_env({}).reminders == (0.5, 0.9)


def test_without_smtp_mail_is_written_to_the_outbox_folder(tmp_path):
    mailer = Mailer(Settings(data_dir=tmp_path))
    mail = Mail("g1", 7, "your_turn", 1, "Bob", "bob@example.org", "[Alhambra g1] move 7",
                "text é", "<p>html</p>")
    where = mailer.send(mail)
    assert where == str(tmp_path / "outbox" / "g1-00007-your_turn-seat1.eml")
    msg = email.message_from_bytes((tmp_path / "outbox" / "g1-00007-your_turn-seat1.eml")
                                   .read_bytes(), policy=email.policy.default)
    assert msg["To"] == "Bob <bob@example.org>" and msg["Subject"] == "[Alhambra g1] move 7"
    assert msg.get_body(("plain",)).get_content().strip() == "text é"
    assert msg.get_body(("html",)).get_content().strip() == "<p>html</p>"


def test_the_started_mail_is_the_root_of_the_seats_thread(tmp_path):
    """Issue 22: the seat's "game started" mail has the id every later mail to the seat
    refers to; an answer refers to the player's reply too."""
    mailer = Mailer(Settings(data_dir=tmp_path, mail_from="Alhambra <game@play.test>"))
    started = mailer.message(Mail("g1", 3, "started", 1, "Bob", "bob@example.org", "S",
                                  "t", "<p>h</p>"))
    assert started["Message-ID"] == "<g1.seat1@play.test>"
    assert started["In-Reply-To"] is None and started["References"] is None
    turn = mailer.message(Mail("g1", 9, "your_turn", 1, "Bob", "bob@example.org", "S", "t",
                               "<p>h</p>"))
    assert turn["Message-ID"] == "<g1-00009-your_turn-seat1@play.test>"
    assert turn["In-Reply-To"] == turn["References"] == "<g1.seat1@play.test>"
    answer = mailer.message(Mail("g1", 9, "answer-x", 1, "Bob", "bob@example.org", "S", "t",
                                 "<p>h</p>", in_reply_to="<r@x>",
                                 references=("<g1.seat1@play.test>",)))
    assert answer["In-Reply-To"] == "<r@x>"
    assert answer["References"] == "<g1.seat1@play.test> <r@x>"


def test_signatures():
    body = b'{"a":1}'
    assert sign("k" * 16, body).startswith("sha256=")
    assert verify("k" * 16, body, sign("k" * 16, body))
    assert not verify("k" * 16, body + b" ", sign("k" * 16, body))
    assert not verify("k" * 16, body, None)


@pytest.mark.parametrize("address", ["not-an-address", "a@b", "a@@example.org",
                                     "a b@example.org"])
def test_addresses_are_validated_on_game_creation(stack, address):
    r = stack.client.post("/games", json={"seats": [{"name": "A", "email": address},
                                                    {"name": "B"}]})
    assert r.status_code == 422, r.get_json()
    assert r.get_json()["code"] == "validation_error"


def test_addresses_are_normalised(stack):
    r = stack.client.post("/games", json={"seats": [{"name": "A", "email": "Ann@Example.ORG"},
                                                    {"name": "B"}]})
    assert r.status_code == 201
    seats = stack.store.game(r.get_json()["game_id"]).seats
    assert seats[0].email == "ann@example.org"


def test_minimum_time_per_move_is_the_servers(stack):
    from service import create_app

    r = stack.client.post("/games", json={"players": 2, "time_per_move": 1})
    assert r.status_code == 201  # this app allows 1 s
    app = create_app(Settings(database=":memory:"))
    r = app.test_client().post("/games", json={"players": 2, "time_per_move": 59})
    assert r.status_code == 422 and r.get_json()["code"] == "invalid_option"
    assert r.get_json()["field"] == "time_per_move"


def test_the_embedded_server_starts_in_a_relative_data_folder(tmp_path, monkeypatch):
    """The default data folder is ./data: a relative path must work (the server changes
    into its folder before it opens its log)."""
    monkeypatch.chdir(tmp_path)
    server = EmbeddedRedis("data/redis")
    try:
        url = server.start()
        client = redis.Redis.from_url(url)
        assert client.ping() and client.set("k", "v")
        client.close()
    finally:
        server.stop()
    assert (tmp_path / "data" / "redis" / "redis.log").exists()


def test_the_workers_use_rqs_public_api_only():
    """No override of RQ's private methods (issue 11.10); the tested major version of rq
    is pinned."""
    import ast
    import re
    import tomllib
    from importlib.metadata import version
    from pathlib import Path

    import rq

    root = Path(__file__).resolve().parents[2]
    for path in (root / "workers").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ClassDef):
                continue
            bases = {getattr(b, "id", getattr(b, "attr", "")) for b in node.bases}
            if not bases & {name for name in dir(rq) if not name.startswith("_")}:
                continue
            private = [f.name for f in node.body if isinstance(f, ast.FunctionDef)
                       and f.name.startswith("_") and not f.name.startswith("__")]
            assert not private, f"{path.name}: {node.name} overrides {private}"
    deps = tomllib.loads((root / "pyproject.toml").read_text())["project"]["dependencies"]
    (pin,) = [d for d in deps if re.match(r"rq\b", d)]
    major = int(version("rq").split(".")[0])
    assert pin == f"rq>={major}.0,<{major + 1}", pin
