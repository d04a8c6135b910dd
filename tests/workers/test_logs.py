"""Logs a machine can read (issue 38): with ALHAMBRA_LOG_FORMAT=json one JSON line per API
request (its route, status, game, seat and request id) and per due job (its kind and
result), and never a token or an address in clear."""

from __future__ import annotations

import io
import json
import logging

import pytest

from service import create_app, logs, times
from service.settings import Settings, SettingsError
from tests.support import auth, fake_clock, make_stack, new_game, run_due_now


@pytest.fixture
def lines():
    """The JSON lines this test's loggers write meanwhile (the handler on each of them, at
    INFO: whatever another test of this process did to the loggers' levels and to the
    root's handlers)."""
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(logs.JsonLines())
    ours = [logging.getLogger(n) for n in ("alhambra.jobs", "alhambra.requests",
                                           "alhambra.test")]
    kept = [(logger.level, logger.disabled, logger.propagate) for logger in ours]
    for logger in ours:
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.disabled, logger.propagate = False, False
    try:
        yield lambda: [json.loads(line) for line in out.getvalue().splitlines()]
    finally:
        for logger, (level, disabled, propagate) in zip(ours, kept, strict=True):
            logger.removeHandler(handler)
            logger.setLevel(level)
            logger.disabled, logger.propagate = disabled, propagate


def test_one_line_per_request_with_its_game_seat_and_id(tmp_path, lines):
    app = create_app(Settings(database=str(tmp_path / "a.db"), log_format="json"))
    client = app.test_client()
    h = new_game(client, 2, emails=["ann@example.org", "bob@example.org"])
    doc = h.get()
    seat = doc["current_seat"]
    r = client.post(f"/games/{h.id}/moves", headers={**auth(h.tokens[seat]),
                                                     "X-Request-ID": "abc-123"},
                    json={"version": doc["version"], "move": h.notations(seat)[0]})
    assert r.status_code == 201 and r.headers["X-Request-ID"] == "abc-123"
    assert client.get("/games/nope").headers["X-Request-ID"]  # one made up
    said = [line for line in lines() if line["logger"] == "alhambra.requests"]
    move = next(line for line in said if line["request_id"] == "abc-123")
    assert move | {"ms": 0} == move | {
        "method": "POST", "route": "/games/<string:game_id>/moves", "status": 201,
        "game_id": h.id, "seat": seat, "ms": 0}
    assert {line["status"] for line in said} >= {201, 200, 404}
    text = json.dumps(lines())
    for secret in (*h.tokens, h.host_token, "ann@example.org", "bob@example.org"):
        assert secret not in text


def test_one_line_per_due_job_and_addresses_hidden(tmp_path, redis_server, smtp,
                                                   monkeypatch, lines):
    s = make_stack(tmp_path, redis_server.url, smtp.url, "idle", ALHAMBRA_LOG_FORMAT="json")
    ctx = s.context()
    fake_clock(monkeypatch, times.now())
    try:
        h = new_game(s.client, 2, emails=["ann@example.org", "bob@example.org"])
        ran = run_due_now(ctx, h.id)
        assert ran
        jobs = [line for line in lines() if line["logger"] == "alhambra.jobs"
                and line.get("game_id") == h.id and line.get("kind") == "started"]
        assert {line["result"] for line in jobs} == {"sent"}  # (other tests' jobs aside)
        assert {line["seat"] for line in jobs} == {0, 1}
        logging.getLogger("alhambra.test").info("mail to ann@example.org and "
                                                "Moves+g1.0.5.ab@play.example.org")
        said = next(line["message"] for line in reversed(lines())
                    if line["logger"] == "alhambra.test")
        assert "@" not in said and said.count("<address:") == 2
        assert logs.hidden("ANN@example.org") == logs.hidden("ann@example.org")
        assert "ann@example.org" not in json.dumps(lines())
    finally:
        ctx.close()
        s.store.close()


def test_a_log_format_is_text_or_json():
    with pytest.raises(SettingsError, match="ALHAMBRA_LOG_FORMAT must be text or json"):
        Settings.from_env({"ALHAMBRA_LOG_FORMAT": "xml"})
