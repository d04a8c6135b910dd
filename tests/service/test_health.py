"""/health names each part (issue 10.5): the database, the due-work lag, Redis and the
workers; 503 when one is down. (With real processes: tests/workers/test_serve_watch.py.)"""

from __future__ import annotations

from datetime import timedelta

import pytest

from service import create_app, times
from service.blueprints.common import redis_client
from service.settings import Settings
from tests.support import fake_clock, new_game
from workers.redis_server import free_port


def test_without_redis_the_api_reports_what_it_can_see(tmp_path):
    app = create_app(Settings(data_dir=tmp_path, database=str(tmp_path / "a.db")))
    r = app.test_client().get("/health")
    assert r.status_code == 200
    doc = r.get_json()
    assert doc["status"] == "ok"
    assert doc["parts"]["database"] == {"status": "ok"}
    assert doc["parts"]["due"] == {"status": "ok", "lag_seconds": 0.0}
    assert doc["parts"]["mail"] == {"status": "ok", "failed_last_hour": 0}
    assert doc["parts"]["redis"]["status"] == "unknown"


def test_due_work_nobody_claims_and_a_redis_that_is_gone_are_down(tmp_path, monkeypatch):
    settings = Settings(data_dir=tmp_path, database=str(tmp_path / "a.db"),
                        health_max_lag=0.2, redis_url=f"redis://127.0.0.1:{free_port()}/0")
    app = create_app(settings)
    client = app.test_client()
    clock = fake_clock(monkeypatch, times.now())
    new_game(client, 2)  # its mails are due: no worker claims them
    clock.now += timedelta(seconds=0.3)
    r = client.get("/health")
    with app.app_context():  # /health must answer: its Redis client waits half a second
        kwargs = redis_client().connection_pool.connection_kwargs
    assert kwargs["socket_timeout"] == kwargs["socket_connect_timeout"] == 0.5
    assert r.status_code == 503
    parts = r.get_json()["parts"]
    assert parts["due"]["status"] == "down" and parts["due"]["lag_seconds"] >= 0.3
    assert parts["redis"]["status"] == "down" and "Connection" in parts["redis"]["error"]
    assert r.get_json()["status"] == "down"


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_replies_refused_for_want_of_the_mtas_authentication_results(kind, tmp_path, request):
    """Issue 34.6: with MAIL_IN_AUTH=dkim and no milter writing Authentication-Results,
    every reply is refused without an answer; once three in a row were, /health's
    ``mail_in`` says why (200 still: the API is up), until a reply is authenticated."""
    from service.store import open_store
    from workers import reply_address
    from workers.context import Context
    from workers.mail_in import HANDLED, IGNORED, Gateway

    mail = {"mail_reply_to": "moves@play.example.org", "mail_in_auth": "dkim",
            "mail_in_authserv_id": "mx.play.example.org", "secret": "s" * 32}
    if kind == "sqlite":
        settings = Settings(data_dir=tmp_path, database=str(tmp_path / "a.db"), **mail)
    else:
        url = request.getfixturevalue("pg_database").schema()
        store = open_store(Settings(database_url=url, secret="s"), check_schema=False)
        store.migrate()
        store.close()
        settings = Settings(database_url=url, **mail)
    app = create_app(settings)
    client = app.test_client()
    ctx = Context(settings)
    try:
        h = new_game(client, 2, ["ann@example.org", "bob@example.org"])
        seat = ctx.store.game(h.id).seats[0]
        assert seat.token_hash is not None
        tag = reply_address.make_tag(settings.secret_key, h.id, 0, h.get()["version"],
                                     seat.token_hash)
        assert tag is not None
        address = reply_address.address("moves@play.example.org", tag)
        sent = iter(range(100))

        def reply(*top: str) -> bytes:
            return "".join(f"{line}\r\n" for line in (
                *top, "From: ann@example.org", f"To: {address}", "Subject: Re: your turn",
                f"Message-ID: <reply-{next(sent)}@example.org>", "", "status")).encode()

        def mail_in() -> dict:
            r = client.get("/health")
            assert r.status_code == 200, r.get_json()  # refused replies: the API is up
            return r.get_json()["parts"]["mail_in"]

        gateway = Gateway(ctx)
        assert mail_in() == {"status": "ok", "unauthenticated_in_a_row": 0}
        for n in (1, 2):
            assert gateway.deliver(reply(), [address], "ann@example.org") == IGNORED
            assert mail_in() == {"status": "ok", "unauthenticated_in_a_row": n}
        # a header of another host proves nothing: still none of ours
        foreign = reply("Authentication-Results: mx.evil.example; dkim=pass "
                        "header.d=example.org")
        assert gateway.deliver(foreign, [address], "ann@example.org") == IGNORED
        part = mail_in()
        assert part["status"] == "failing" and part["unauthenticated_in_a_row"] == 3
        assert part["error"].startswith("the last 3 replies were refused, none "
                                        "authenticated since (the last at ")
        assert "no Authentication-Results header of mx.play.example.org at all: the MTA's " \
               "milter that writes it" in part["error"]
        assert times.from_text(part["last_refused_at"]) <= times.now()

        def answers() -> list:
            return [r for r in ctx.store.due_rows(h.id) if r.kind == "answer"]

        assert answers() == []  # refused: no answer
        # the milter runs again: an authenticated reply ends it
        assert gateway.deliver(reply("Authentication-Results: mx.play.example.org; "
                                     "dkim=pass header.d=example.org"), [address],
                               "ann@example.org") == HANDLED
        assert mail_in() == {"status": "ok", "unauthenticated_in_a_row": 0}
        assert len(answers()) == 1  # answered
        # without MAIL_IN_AUTH there is nothing to report
        plain = create_app(settings.replace(mail_in_auth="none")).test_client()
        assert "mail_in" not in plain.get("/health").get_json()["parts"]
    finally:
        ctx.close()
