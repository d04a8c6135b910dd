"""Issue 33, item 3: every 429 says when to try again (Retry-After), and the answers of
limited operations carry the RateLimit-Limit, -Remaining and -Reset fields (draft-06)."""

from __future__ import annotations

from service import create_app
from service.problems import CODES
from service.settings import Settings
from tests.support import auth, check_problem, new_game

ANN = {"REMOTE_ADDR": "192.0.2.1"}


def _app(tmp_path, **changes):
    return create_app(Settings(database=str(tmp_path / "a.db"), **changes))


def _fields(r) -> tuple[int, int, int]:
    return (int(r.headers["RateLimit-Limit"]), int(r.headers["RateLimit-Remaining"]),
            int(r.headers["RateLimit-Reset"]))


def test_limited_operations_say_where_the_caller_stands(tmp_path):
    client = _app(tmp_path, limit_create="3/minute", limit_join="2/minute").test_client()
    body = {"players": 3, "seats": [{"name": "A"}]}
    answers = [client.post("/games", json=body, environ_base=ANN) for _ in range(4)]
    assert [r.status_code for r in answers] == [201, 201, 201, 429]
    assert [_fields(r)[:2] for r in answers] == [(3, 2), (3, 1), (3, 0), (3, 0)]
    assert all(0 < _fields(r)[2] <= 61 for r in answers), [_fields(r) for r in answers]
    assert 0 < int(answers[-1].headers["Retry-After"]) <= 61
    # a join counts when it takes a seat (after the deduction)
    game = answers[0].get_json()
    joined = client.post(f"/games/{game['game_id']}/join", environ_base=ANN,
                         json={"name": "B", "invite_code": game["invite_code"]})
    assert joined.status_code == 201 and _fields(joined)[:2] == (2, 1)
    # operations without a limit say nothing
    r = client.get(f"/games/{game['game_id']}")
    assert "RateLimit-Limit" not in r.headers and "Retry-After" not in r.headers


def test_every_429_has_a_retry_after(tmp_path, monkeypatch):
    app = _app(tmp_path, messages_per_hour=2)
    client = app.test_client()
    game = new_game(client, 2)
    url = f"/games/{game.id}/messages"
    sent = [client.post(url, json={"text": f"hi {i}", "to": None},
                        headers=auth(game.tokens[0])) for i in range(3)]
    assert [r.status_code for r in sent] == [201, 201, 429]
    body = check_problem(sent[-1], 429, "too_many_messages")
    retry = int(sent[-1].headers["Retry-After"])
    assert 3500 < retry <= 3600 and body["retry_after"] == retry
    # the other seat still writes
    assert client.post(url, json={"text": "me", "to": None},
                       headers=auth(game.tokens[1])).status_code == 201
    # (too_many_reports' Retry-After: tests/service/test_moderation.py)
    assert {c for c, e in CODES.items() if e.status == 429} == {
        "rate_limited", "too_many_messages", "too_many_reports"}


def test_cors_exposes_the_fields(tmp_path):
    client = _app(tmp_path, cors_origins=("https://app.example",)).test_client()
    r = client.post("/games", json={"players": 2, "seats": [{"name": "A"}]},
                    headers={"Origin": "https://app.example"})
    exposed = {h.strip() for h in r.headers["Access-Control-Expose-Headers"].split(",")}
    assert {"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset",
            "Retry-After"} <= exposed
